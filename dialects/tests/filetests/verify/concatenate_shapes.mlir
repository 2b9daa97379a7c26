// RUN: verify
// ERROR: 5:5: input 1 has size 4 in dimension 1, input 0 has 3
module {
  func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x4xf32>) -> tensor<4x3xf32> {
    %0 = stablehlo.concatenate %arg0, %arg1, dim = 0 : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
    return %0 : tensor<4x3xf32>
  }
}
