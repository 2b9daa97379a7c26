// RUN: verify
// Constants of shapes without elements, written as a splat or as `dense<>`, print as `dense<>`.
func.func @main() -> (tensor<2x0x3xi4>, tensor<2x0xi32>, tensor<0xf32>) {
  %0 = stablehlo.constant dense<2> : tensor<2x0x3xi4>
  %1 = stablehlo.constant dense<> : tensor<2x0xi32>
  %2 = stablehlo.constant dense<1.5> : tensor<0xf32>
  %3 = stablehlo.add %0, %0 : tensor<2x0x3xi4>
  return %3, %1, %2 : tensor<2x0x3xi4>, tensor<2x0xi32>, tensor<0xf32>
}
// CHECK: module {
// CHECK:   func.func public @main() -> (tensor<2x0x3xi4>, tensor<2x0xi32>, tensor<0xf32>) {
// CHECK:     %c = stablehlo.constant dense<> : tensor<2x0x3xi4>
// CHECK:     %c_0 = stablehlo.constant dense<> : tensor<2x0xi32>
// CHECK:     %cst = stablehlo.constant dense<> : tensor<0xf32>
// CHECK:     %0 = stablehlo.add %c, %c : tensor<2x0x3xi4>
// CHECK:     return %0, %c_0, %cst : tensor<2x0x3xi4>, tensor<2x0xi32>, tensor<0xf32>
// CHECK:   }
// CHECK: }
