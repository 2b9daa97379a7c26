// RUN: verify
// ERROR: 5:5: operand has 6 elements, result 4
module {
  func.func @main(%arg0: tensor<2x3xf32>) -> tensor<4xf32> {
    %0 = stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
