// RUN: parse
// ERROR: 5:52: expected an integer after the keyword, found `one`
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<2x4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [one] : (tensor<4xf32>) -> tensor<2x4xf32>
    return %0 : tensor<2x4xf32>
  }
}
