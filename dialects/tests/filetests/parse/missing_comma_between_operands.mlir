// RUN: parse
// ERROR: 5:32: expected ',' after operand, found `%arg0`
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "stablehlo.add"(%arg0 %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
