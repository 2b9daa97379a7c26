// RUN: fuse,inline-composites,dce
// Outlining then inlining gives back the original ops (what XLA does with a composite it does
// not keep).
module {
  func.func public @main(%x: tensor<2x8x16xf32>, %w: tensor<16xf32>) -> tensor<2x8x16xf32> {
    %1 = stablehlo.multiply %x, %x : tensor<2x8x16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x8x16xf32>, tensor<f32>) -> tensor<2x8xf32>
    %cst_0 = stablehlo.constant dense<6.250000e-02> : tensor<2x8xf32>
    %3 = stablehlo.multiply %2, %cst_0 : tensor<2x8xf32>
    %cst_1 = stablehlo.constant dense<1.000000e-06> : tensor<2x8xf32>
    %4 = stablehlo.add %3, %cst_1 : tensor<2x8xf32>
    %5 = stablehlo.rsqrt %4 : tensor<2x8xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x16xf32>
    %7 = stablehlo.multiply %x, %6 : tensor<2x8x16xf32>
    %8 = stablehlo.broadcast_in_dim %w, dims = [2] : (tensor<16xf32>) -> tensor<2x8x16xf32>
    %9 = stablehlo.multiply %7, %8 : tensor<2x8x16xf32>
    return %9 : tensor<2x8x16xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x8x16xf32>, %arg1: tensor<16xf32>) -> tensor<2x8x16xf32> {
// CHECK:     %0 = stablehlo.multiply %arg0, %arg0 : tensor<2x8x16xf32>
// CHECK:     %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x8x16xf32>, tensor<f32>) -> tensor<2x8xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<6.250000e-02> : tensor<2x8xf32>
// CHECK:     %2 = stablehlo.multiply %1, %cst_0 : tensor<2x8xf32>
// CHECK:     %cst_1 = stablehlo.constant dense<1.000000e-06> : tensor<2x8xf32>
// CHECK:     %3 = stablehlo.add %2, %cst_1 : tensor<2x8xf32>
// CHECK:     %4 = stablehlo.rsqrt %3 : tensor<2x8xf32>
// CHECK:     %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x16xf32>
// CHECK:     %6 = stablehlo.multiply %arg0, %5 : tensor<2x8x16xf32>
// CHECK:     %7 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<16xf32>) -> tensor<2x8x16xf32>
// CHECK:     %8 = stablehlo.multiply %6, %7 : tensor<2x8x16xf32>
// CHECK:     return %8 : tensor<2x8x16xf32>
// CHECK:   }
// CHECK: }
