// RUN: parse
// The format of reduce_precision's pretty form is `eXmY`.
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.reduce_precision %x, format = f16 : tensor<3xf32>
  return %0 : tensor<3xf32>
}
// ERROR: 4:48: expected a format `eXmY` (such as e5m10), found `f16`
