// RUN: canonicalize
// "No element is unmasked" is "every element is masked".
module {
  func.func public @main(%arg0: tensor<4x8xi1>) -> tensor<4xi1> {
    %0 = stablehlo.not %arg0 : tensor<4x8xi1>
    %c = stablehlo.constant dense<false> : tensor<i1>
    %1 = stablehlo.reduce(%0 init: %c) applies stablehlo.or across dimensions = [1] : (tensor<4x8xi1>, tensor<i1>) -> tensor<4xi1>
    %2 = stablehlo.not %1 : tensor<4xi1>
    return %2 : tensor<4xi1>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4x8xi1>) -> tensor<4xi1> {
// CHECK:     %c = stablehlo.constant dense<true> : tensor<i1>
// CHECK:     %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.and across dimensions = [1] : (tensor<4x8xi1>, tensor<i1>) -> tensor<4xi1>
// CHECK:     return %0 : tensor<4xi1>
// CHECK:   }
// CHECK: }
