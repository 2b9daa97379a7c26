// RUN: fuse,dce
// ALiBi attention as BLOOM writes it (`baddbmm(alibi, q, kᵀ)` on `[B·H, L, S]` scores, then
// an additive mask): the bias, added in the `[B·H, L, S]` view, is the fourth operand, read
// in the scores' `[B, H, L, S]` shape (reshaped outside the composite and back inside it);
// the mask is the fifth. Version 2, bias = true.
module {
  func.func public @main(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>, %alibi: tensor<2x1x4xf32>, %mask: tensor<1x1x4x4xf32>) -> tensor<1x2x4x8xf32> {
    %0 = stablehlo.dot_general %q, %k, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x4xf32>
    %cst = stablehlo.constant dense<3.5355338e-01> : tensor<1x2x4x4xf32>
    %1 = stablehlo.multiply %0, %cst : tensor<1x2x4x4xf32>
    %2 = stablehlo.reshape %1 : (tensor<1x2x4x4xf32>) -> tensor<2x4x4xf32>
    %3 = stablehlo.broadcast_in_dim %alibi, dims = [0, 1, 2] : (tensor<2x1x4xf32>) -> tensor<2x4x4xf32>
    %4 = stablehlo.add %3, %2 : tensor<2x4x4xf32>
    %5 = stablehlo.reshape %4 : (tensor<2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %6 = stablehlo.broadcast_in_dim %mask, dims = [0, 1, 2, 3] : (tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32>
    %7 = stablehlo.add %5, %6 : tensor<1x2x4x4xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %8 = stablehlo.reduce(%7 init: %cst_0) applies stablehlo.maximum across dimensions = [3] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x2x4xf32>) -> tensor<1x2x4x4xf32>
    %10 = stablehlo.subtract %7, %9 : tensor<1x2x4x4xf32>
    %11 = stablehlo.exponential %10 : tensor<1x2x4x4xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.reduce(%11 init: %cst_1) applies stablehlo.add across dimensions = [3] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1, 2] : (tensor<1x2x4xf32>) -> tensor<1x2x4x4xf32>
    %14 = stablehlo.divide %11, %13 : tensor<1x2x4x4xf32>
    %15 = stablehlo.dot_general %14, %v, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
    return %15 : tensor<1x2x4x8xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<1x2x4x8xf32>, %arg1: tensor<1x2x4x8xf32>, %arg2: tensor<1x2x4x8xf32>, %arg3: tensor<2x1x4xf32>, %arg4: tensor<1x1x4x4xf32>) -> tensor<1x2x4x8xf32> {
// CHECK:     %0 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1, 2] : (tensor<2x1x4xf32>) -> tensor<2x4x4xf32>
// CHECK:     %1 = stablehlo.broadcast_in_dim %arg4, dims = [0, 1, 2, 3] : (tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK:     %2 = stablehlo.reshape %0 : (tensor<2x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK:     %3 = stablehlo.composite "tpuc.scaled_dot_product_attention" %arg0, %arg1, %arg2, %2, %1 {composite_attributes = {scale = 3.5355338e-01 : f32, causal = false, heads = 2 : i64, kv_heads = 2 : i64, softmax_f32 = false, bias = true}, decomposition = @tpuc_scaled_dot_product_attention_0, version = 2 : i32} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x8xf32>
// CHECK:     return %3 : tensor<1x2x4x8xf32>
// CHECK:   }
// CHECK:   func.func private @tpuc_scaled_dot_product_attention_0(%arg0: tensor<1x2x4x8xf32>, %arg1: tensor<1x2x4x8xf32>, %arg2: tensor<1x2x4x8xf32>, %arg3: tensor<1x2x4x4xf32>, %arg4: tensor<1x2x4x4xf32>) -> tensor<1x2x4x8xf32> {
// CHECK:     %0 = stablehlo.reshape %arg3 : (tensor<1x2x4x4xf32>) -> tensor<2x4x4xf32>
// CHECK:     %1 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x4xf32>
// CHECK:     %cst = stablehlo.constant dense<3.5355338e-01> : tensor<1x2x4x4xf32>
// CHECK:     %2 = stablehlo.multiply %1, %cst : tensor<1x2x4x4xf32>
// CHECK:     %3 = stablehlo.reshape %2 : (tensor<1x2x4x4xf32>) -> tensor<2x4x4xf32>
// CHECK:     %4 = stablehlo.add %0, %3 : tensor<2x4x4xf32>
// CHECK:     %5 = stablehlo.reshape %4 : (tensor<2x4x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK:     %6 = stablehlo.add %5, %arg4 : tensor<1x2x4x4xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:     %7 = stablehlo.reduce(%6 init: %cst_0) applies stablehlo.maximum across dimensions = [3] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
// CHECK:     %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<1x2x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK:     %9 = stablehlo.subtract %6, %8 : tensor<1x2x4x4xf32>
// CHECK:     %10 = stablehlo.exponential %9 : tensor<1x2x4x4xf32>
// CHECK:     %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %11 = stablehlo.reduce(%10 init: %cst_1) applies stablehlo.add across dimensions = [3] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
// CHECK:     %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2] : (tensor<1x2x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK:     %13 = stablehlo.divide %10, %12 : tensor<1x2x4x4xf32>
// CHECK:     %14 = stablehlo.dot_general %13, %arg2, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
// CHECK:     return %14 : tensor<1x2x4x8xf32>
// CHECK:   }
// CHECK: }
