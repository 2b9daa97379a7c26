// RUN: fuse,dce
// The attention probabilities are returned as well (`output_attentions`): they would escape an
// attention composite, so only the softmax is outlined.
module {
  func.func public @main(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x4xf32>) {
    %0 = stablehlo.dot_general %q, %k, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x4xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %4 = stablehlo.reduce(%0 init: %cst_1) applies stablehlo.maximum across dimensions = [3] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1, 2] : (tensor<1x2x4xf32>) -> tensor<1x2x4x4xf32>
    %6 = stablehlo.subtract %0, %5 : tensor<1x2x4x4xf32>
    %7 = stablehlo.exponential %6 : tensor<1x2x4x4xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.reduce(%7 init: %cst_2) applies stablehlo.add across dimensions = [3] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x2x4xf32>) -> tensor<1x2x4x4xf32>
    %10 = stablehlo.divide %7, %9 : tensor<1x2x4x4xf32>
    %12 = stablehlo.dot_general %10, %v, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
    return %12, %10 : tensor<1x2x4x8xf32>, tensor<1x2x4x4xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<1x2x4x8xf32>, %arg1: tensor<1x2x4x8xf32>, %arg2: tensor<1x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x4xf32>) {
// CHECK:     %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x4xf32>
// CHECK:     %1 = stablehlo.composite "odml.softmax" %0 {composite_attributes = {axis = 3 : i64}, decomposition = @odml_softmax_0, version = 1 : i32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK:     %2 = stablehlo.dot_general %1, %arg2, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
// CHECK:     return %2, %1 : tensor<1x2x4x8xf32>, tensor<1x2x4x4xf32>
// CHECK:   }
// CHECK:   func.func private @odml_softmax_0(%arg0: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
// CHECK:     %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:     %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [3] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
// CHECK:     %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1, 2] : (tensor<1x2x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK:     %2 = stablehlo.subtract %arg0, %1 : tensor<1x2x4x4xf32>
// CHECK:     %3 = stablehlo.exponential %2 : tensor<1x2x4x4xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [3] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
// CHECK:     %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1, 2] : (tensor<1x2x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK:     %6 = stablehlo.divide %3, %5 : tensor<1x2x4x4xf32>
// CHECK:     return %6 : tensor<1x2x4x4xf32>
// CHECK:   }
// CHECK: }
