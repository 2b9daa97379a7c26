// RUN: fuse,dce
// RMSNorm as JAX writes it (after canonicalize): the mean kept as `[N, 1]` (keepdims), divided
// by the size, then broadcast back.
module {
  func.func public @main(%x: tensor<8x16xf32>, %w: tensor<16xf32>) -> tensor<8x16xf32> {
    %1 = stablehlo.multiply %x, %x : tensor<8x16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %cst_0 = stablehlo.constant dense<1.600000e+01> : tensor<8x1xf32>
    %4 = stablehlo.divide %3, %cst_0 : tensor<8x1xf32>
    %cst_1 = stablehlo.constant dense<1.000000e-06> : tensor<8x1xf32>
    %5 = stablehlo.add %4, %cst_1 : tensor<8x1xf32>
    %6 = stablehlo.rsqrt %5 : tensor<8x1xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
    %8 = stablehlo.multiply %x, %7 : tensor<8x16xf32>
    %9 = stablehlo.broadcast_in_dim %w, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
    %10 = stablehlo.multiply %8, %9 : tensor<8x16xf32>
    return %10 : tensor<8x16xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<8x16xf32>, %arg1: tensor<16xf32>) -> tensor<8x16xf32> {
// CHECK:     %0 = stablehlo.composite "odml.rms_norm" %arg0, %arg1 {composite_attributes = {epsilon = 1.000000e-06 : f32}, decomposition = @odml_rms_norm_0, version = 1 : i32} : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
// CHECK:     return %0 : tensor<8x16xf32>
// CHECK:   }
// CHECK:   func.func private @odml_rms_norm_0(%arg0: tensor<8x16xf32>, %arg1: tensor<16xf32>) -> tensor<8x16xf32> {
// CHECK:     %0 = stablehlo.multiply %arg0, %arg0 : tensor<8x16xf32>
// CHECK:     %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK:     %2 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<1.600000e+01> : tensor<8x1xf32>
// CHECK:     %3 = stablehlo.divide %2, %cst_0 : tensor<8x1xf32>
// CHECK:     %cst_1 = stablehlo.constant dense<1.000000e-06> : tensor<8x1xf32>
// CHECK:     %4 = stablehlo.add %3, %cst_1 : tensor<8x1xf32>
// CHECK:     %5 = stablehlo.rsqrt %4 : tensor<8x1xf32>
// CHECK:     %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x16xf32>
// CHECK:     %7 = stablehlo.multiply %arg0, %6 : tensor<8x16xf32>
// CHECK:     %8 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<16xf32>) -> tensor<8x16xf32>
// CHECK:     %9 = stablehlo.multiply %7, %8 : tensor<8x16xf32>
// CHECK:     return %9 : tensor<8x16xf32>
// CHECK:   }
// CHECK: }
