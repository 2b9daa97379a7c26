// RUN: legalize
// bitcast_convert to and from i1: one bit per boolean (the spec), not one byte (XLA); other
// bitcasts stay.
func.func @main(%x: tensor<2xui16>, %bits: tensor<3x32xi1>, %f: tensor<2xf32>) -> (tensor<2x16xi1>, tensor<3xf32>, tensor<2xi32>) {
  %0 = stablehlo.bitcast_convert %x : (tensor<2xui16>) -> tensor<2x16xi1>
  %1 = stablehlo.bitcast_convert %bits : (tensor<3x32xi1>) -> tensor<3xf32>
  %2 = stablehlo.bitcast_convert %f : (tensor<2xf32>) -> tensor<2xi32>
  return %0, %1, %2 : tensor<2x16xi1>, tensor<3xf32>, tensor<2xi32>
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2xui16>, %arg1: tensor<3x32xi1>, %arg2: tensor<2xf32>) -> (tensor<2x16xi1>, tensor<3xf32>, tensor<2xi32>) {
// CHECK:     %0 = stablehlo.broadcast_in_dim %arg0, dims = [0] : (tensor<2xui16>) -> tensor<2x16xui16>
// CHECK:     %1 = stablehlo.iota dim = 1 : tensor<2x16xui16>
// CHECK:     %2 = stablehlo.shift_right_logical %0, %1 : tensor<2x16xui16>
// CHECK:     %c = stablehlo.constant dense<1> : tensor<2x16xui16>
// CHECK:     %3 = stablehlo.and %2, %c : tensor<2x16xui16>
// CHECK:     %4 = stablehlo.convert %3 : (tensor<2x16xui16>) -> tensor<2x16xi1>
// CHECK:     %5 = stablehlo.convert %arg1 : (tensor<3x32xi1>) -> tensor<3x32xui32>
// CHECK:     %6 = stablehlo.iota dim = 1 : tensor<3x32xui32>
// CHECK:     %7 = stablehlo.shift_left %5, %6 : tensor<3x32xui32>
// CHECK:     %c_0 = stablehlo.constant dense<0> : tensor<ui32>
// CHECK:     %8 = stablehlo.reduce(%7 init: %c_0) applies stablehlo.or across dimensions = [1] : (tensor<3x32xui32>, tensor<ui32>) -> tensor<3xui32>
// CHECK:     %9 = stablehlo.bitcast_convert %8 : (tensor<3xui32>) -> tensor<3xf32>
// CHECK:     %10 = stablehlo.bitcast_convert %arg2 : (tensor<2xf32>) -> tensor<2xi32>
// CHECK:     return %4, %9, %10 : tensor<2x16xi1>, tensor<3xf32>, tensor<2xi32>
// CHECK:   }
// CHECK: }
