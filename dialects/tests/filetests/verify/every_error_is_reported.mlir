// RUN: verify
// Three broken ops: the verifier reports all of them, in order.
// ERROR: 8:5: permutation entry 1 appears twice
// ERROR: 9:5: operand has 6 elements, result 7
// ERROR: 10:5: result 0 has type tensor<2x3xi32>, expected tensor<2x3xf32>
module {
  func.func @main(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %0 = stablehlo.transpose %arg0, dims = [1, 1] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %1 = stablehlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<7xf32>
    %2 = "stablehlo.multiply"(%arg0, %arg0) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi32>
    return %arg0 : tensor<2x3xf32>
  }
}
