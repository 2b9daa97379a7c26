// RUN: verify
// A batched triangular_solve in StableHLO's generic form prints back with every attribute.
func.func @main(%a: tensor<2x3x3xf32>, %b: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose ADJOINT>} : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x3x3xf32>, %arg1: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
// CHECK:     %0 = "stablehlo.triangular_solve"(%arg0, %arg1) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose ADJOINT>, unit_diagonal = false}> : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK:     return %0 : tensor<2x3x4xf32>
// CHECK:   }
// CHECK: }
