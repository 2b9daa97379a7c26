// RUN: verify
// reduce_precision prints in StableHLO's pretty form, its format as `eXmY`.
func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = "stablehlo.reduce_precision"(%x) {exponent_bits = 11 : i32, mantissa_bits = 0 : i32} : (tensor<3xf64>) -> tensor<3xf64>
  %1 = stablehlo.reduce_precision %0, format = e5m10 : tensor<3xf64>
  return %1 : tensor<3xf64>
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<3xf64>) -> tensor<3xf64> {
// CHECK:     %0 = stablehlo.reduce_precision %arg0, format = e11m0 : tensor<3xf64>
// CHECK:     %1 = stablehlo.reduce_precision %0, format = e5m10 : tensor<3xf64>
// CHECK:     return %1 : tensor<3xf64>
// CHECK:   }
// CHECK: }
