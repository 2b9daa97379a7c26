// RUN: verify
// ERROR: 5:5: operand dimension 0 of size 4 cannot broadcast to result dimension 0 of size 2
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<2x4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0] : (tensor<4xf32>) -> tensor<2x4xf32>
    return %0 : tensor<2x4xf32>
  }
}
