// RUN: verify
// ERROR: 5:5: broadcast dimension 2 is out of range [0, 2)
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<2x4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<4xf32>) -> tensor<2x4xf32>
    return %0 : tensor<2x4xf32>
  }
}
