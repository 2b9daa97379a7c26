// RUN: verify
// triangular_solve's constraints C1-C3, each broken once (C4, the result type, is every op's result check).
func.func @main(%a: tensor<3x3xf32>, %b: tensor<3x2xf32>, %r: tensor<3x4xf32>, %i: tensor<3x3xi32>, %d: tensor<2x3x3xf32>, %e: tensor<5x3x2xf32>, %f: tensor<3x2xf64>) -> tensor<3x2xf32> {
  %1 = "stablehlo.triangular_solve"(%d, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<2x3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %2 = "stablehlo.triangular_solve"(%r, %r) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %3 = "stablehlo.triangular_solve"(%a, %b) {left_side = false, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %4 = "stablehlo.triangular_solve"(%d, %e) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<2x3x3xf32>, tensor<5x3x2xf32>) -> tensor<5x3x2xf32>
  %0 = "stablehlo.triangular_solve"(%i, %i) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xi32>, tensor<3x3xi32>) -> tensor<3x3xi32>
  %5 = "stablehlo.triangular_solve"(%a, %f) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xf32>, tensor<3x2xf64>) -> tensor<3x2xf64>
  return %b : tensor<3x2xf32>
}
// ERROR: 4:3: C2: a and b must have one rank of at least 2, got 3 and 2
// ERROR: 5:3: C3: a must hold square matrices, got 3 x 4
// ERROR: 6:3: C3: a's matrices are 3 x 3, but b has 2 columns (left_side = false)
// ERROR: 7:3: C3: a and b must have the same batch dimensions, got [2] and [5]
// ERROR: 8:3: I1: a must be of a floating-point or complex type, got i32
// ERROR: 9:3: C1: a and b must have one element type, got f32 and f64
