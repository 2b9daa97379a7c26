// RUN: fuse,dce
// Refused: the softmax runs over the query axis, not the keys; only the softmax is fused.
module {
  func.func public @main(%q: tensor<8x2x4xf32>, %k: tensor<2x4x8xf32>, %v: tensor<8x2x4xf32>) -> tensor<2x8x4xf32> {
    %0 = stablehlo.dot_general %q, %k, batching_dims = [1] x [0], contracting_dims = [2] x [1] : (tensor<8x2x4xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<2x8x8xf32>
    %1 = stablehlo.multiply %0, %cst : tensor<2x8x8xf32>
    %2 = stablehlo.reshape %1 : (tensor<2x8x8xf32>) -> tensor<1x2x8x8xf32>
    %cst_m = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %3 = stablehlo.reduce(%2 init: %cst_m) applies stablehlo.maximum across dimensions = [2] : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 3] : (tensor<1x2x8xf32>) -> tensor<1x2x8x8xf32>
    %5 = stablehlo.subtract %2, %4 : tensor<1x2x8x8xf32>
    %6 = stablehlo.exponential %5 : tensor<1x2x8x8xf32>
    %cst_z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_z) applies stablehlo.add across dimensions = [2] : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 3] : (tensor<1x2x8xf32>) -> tensor<1x2x8x8xf32>
    %9 = stablehlo.divide %6, %8 : tensor<1x2x8x8xf32>
    %10 = stablehlo.reshape %9 : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
    %11 = stablehlo.dot_general %10, %v, batching_dims = [0] x [1], contracting_dims = [2] x [0] : (tensor<2x8x8xf32>, tensor<8x2x4xf32>) -> tensor<2x8x4xf32>
    return %11 : tensor<2x8x4xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<8x2x4xf32>, %arg1: tensor<2x4x8xf32>, %arg2: tensor<8x2x4xf32>) -> tensor<2x8x4xf32> {
// CHECK:     %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [1] x [0], contracting_dims = [2] x [1] : (tensor<8x2x4xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
// CHECK:     %cst = stablehlo.constant dense<5.000000e-01> : tensor<2x8x8xf32>
// CHECK:     %1 = stablehlo.multiply %0, %cst : tensor<2x8x8xf32>
// CHECK:     %2 = stablehlo.reshape %1 : (tensor<2x8x8xf32>) -> tensor<1x2x8x8xf32>
// CHECK:     %3 = stablehlo.composite "odml.softmax" %2 {composite_attributes = {axis = 2 : i64}, decomposition = @odml_softmax_0, version = 1 : i32} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
// CHECK:     %4 = stablehlo.reshape %3 : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
// CHECK:     %5 = stablehlo.dot_general %4, %arg2, batching_dims = [0] x [1], contracting_dims = [2] x [0] : (tensor<2x8x8xf32>, tensor<8x2x4xf32>) -> tensor<2x8x4xf32>
// CHECK:     return %5 : tensor<2x8x4xf32>
// CHECK:   }
// CHECK:   func.func private @odml_softmax_0(%arg0: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
// CHECK:     %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:     %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [2] : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8xf32>
// CHECK:     %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1, 3] : (tensor<1x2x8xf32>) -> tensor<1x2x8x8xf32>
// CHECK:     %2 = stablehlo.subtract %arg0, %1 : tensor<1x2x8x8xf32>
// CHECK:     %3 = stablehlo.exponential %2 : tensor<1x2x8x8xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [2] : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8xf32>
// CHECK:     %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1, 3] : (tensor<1x2x8xf32>) -> tensor<1x2x8x8xf32>
// CHECK:     %6 = stablehlo.divide %3, %5 : tensor<1x2x8x8xf32>
// CHECK:     return %6 : tensor<1x2x8x8xf32>
// CHECK:   }
// CHECK: }
