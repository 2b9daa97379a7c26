// RUN: verify
// reduce_precision in both forms; its constraints I1, C2 and C3, each broken once.
func.func @main(%x: tensor<3xf32>, %i: tensor<3xi32>) -> tensor<3xf32> {
  %0 = stablehlo.reduce_precision %x, format = e5m10 : tensor<3xf32>
  %1 = "stablehlo.reduce_precision"(%0) {exponent_bits = 8 : i32, mantissa_bits = 0 : i32} : (tensor<3xf32>) -> tensor<3xf32>
  %2 = "stablehlo.reduce_precision"(%x) {exponent_bits = 0 : i32, mantissa_bits = 3 : i32} : (tensor<3xf32>) -> tensor<3xf32>
  %3 = "stablehlo.reduce_precision"(%x) {exponent_bits = 2 : i32, mantissa_bits = -1 : i32} : (tensor<3xf32>) -> tensor<3xf32>
  %4 = stablehlo.reduce_precision %i, format = e5m2 : tensor<3xi32>
  return %1 : tensor<3xf32>
}
// ERROR: 6:3: C2: exponent_bits must be at least 1, got 0
// ERROR: 7:3: C3: mantissa_bits must be at least 0, got -1
// ERROR: 8:3: I1: operand must be of a floating-point type, got i32
