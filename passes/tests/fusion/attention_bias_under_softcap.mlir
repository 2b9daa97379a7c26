// RUN: fuse,dce
// Refused: the bias is added before the soft cap (`tanh((s + b) / 50) · 50`), which the
// composite cannot express (its bias follows the cap); only the softmax is fused.
module {
  func.func public @main(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>, %bias: tensor<1x2x4x4xf32>) -> tensor<1x2x4x8xf32> {
    %0 = stablehlo.dot_general %q, %k, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x4xf32>
    %cst = stablehlo.constant dense<3.5355338e-01> : tensor<1x2x4x4xf32>
    %1 = stablehlo.multiply %0, %cst : tensor<1x2x4x4xf32>
    %2 = stablehlo.add %1, %bias : tensor<1x2x4x4xf32>
    %cap = stablehlo.constant dense<5.000000e+01> : tensor<1x2x4x4xf32>
    %3 = stablehlo.divide %2, %cap : tensor<1x2x4x4xf32>
    %4 = stablehlo.tanh %3 : tensor<1x2x4x4xf32>
    %5 = stablehlo.multiply %4, %cap : tensor<1x2x4x4xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %6 = stablehlo.reduce(%5 init: %cst_0) applies stablehlo.maximum across dimensions = [3] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1, 2] : (tensor<1x2x4xf32>) -> tensor<1x2x4x4xf32>
    %8 = stablehlo.subtract %5, %7 : tensor<1x2x4x4xf32>
    %9 = stablehlo.exponential %8 : tensor<1x2x4x4xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst_1) applies stablehlo.add across dimensions = [3] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1, 2] : (tensor<1x2x4xf32>) -> tensor<1x2x4x4xf32>
    %12 = stablehlo.divide %9, %11 : tensor<1x2x4x4xf32>
    %13 = stablehlo.dot_general %12, %v, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
    return %13 : tensor<1x2x4x8xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<1x2x4x8xf32>, %arg1: tensor<1x2x4x8xf32>, %arg2: tensor<1x2x4x8xf32>, %arg3: tensor<1x2x4x4xf32>) -> tensor<1x2x4x8xf32> {
// CHECK:     %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x4xf32>
// CHECK:     %cst = stablehlo.constant dense<3.5355338e-01> : tensor<1x2x4x4xf32>
// CHECK:     %1 = stablehlo.multiply %0, %cst : tensor<1x2x4x4xf32>
// CHECK:     %2 = stablehlo.add %1, %arg3 : tensor<1x2x4x4xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<5.000000e+01> : tensor<1x2x4x4xf32>
// CHECK:     %3 = stablehlo.divide %2, %cst_0 : tensor<1x2x4x4xf32>
// CHECK:     %4 = stablehlo.tanh %3 : tensor<1x2x4x4xf32>
// CHECK:     %5 = stablehlo.multiply %4, %cst_0 : tensor<1x2x4x4xf32>
// CHECK:     %6 = stablehlo.composite "odml.softmax" %5 {composite_attributes = {axis = 3 : i64}, decomposition = @odml_softmax_0, version = 1 : i32} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK:     %7 = stablehlo.dot_general %6, %arg2, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
// CHECK:     return %7 : tensor<1x2x4x8xf32>
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
