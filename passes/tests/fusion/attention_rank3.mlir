// RUN: fuse,dce
// Attention on rank-3 products as the core-ATen program of a batch of one lowers (ViT): `[heads,
// S, D]` dot products, the softmax on `[1, heads, S, S]` between reshapes. The composite reads
// the operands as `[1, heads, S, D]`; the decomposition reshapes them back.
module {
  func.func public @main(%q: tensor<8x2x4xf32>, %k: tensor<2x4x8xf32>, %v: tensor<8x2x4xf32>) -> tensor<2x8x4xf32> {
    %0 = stablehlo.dot_general %q, %k, batching_dims = [1] x [0], contracting_dims = [2] x [1] : (tensor<8x2x4xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<2x8x8xf32>
    %1 = stablehlo.multiply %0, %cst : tensor<2x8x8xf32>
    %2 = stablehlo.reshape %1 : (tensor<2x8x8xf32>) -> tensor<1x2x8x8xf32>
    %cst_m = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %3 = stablehlo.reduce(%2 init: %cst_m) applies stablehlo.maximum across dimensions = [3] : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<1x2x8xf32>) -> tensor<1x2x8x8xf32>
    %5 = stablehlo.subtract %2, %4 : tensor<1x2x8x8xf32>
    %6 = stablehlo.exponential %5 : tensor<1x2x8x8xf32>
    %cst_z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_z) applies stablehlo.add across dimensions = [3] : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<1x2x8xf32>) -> tensor<1x2x8x8xf32>
    %9 = stablehlo.divide %6, %8 : tensor<1x2x8x8xf32>
    %10 = stablehlo.reshape %9 : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
    %11 = stablehlo.dot_general %10, %v, batching_dims = [0] x [1], contracting_dims = [2] x [0] : (tensor<2x8x8xf32>, tensor<8x2x4xf32>) -> tensor<2x8x4xf32>
    return %11 : tensor<2x8x4xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<8x2x4xf32>, %arg1: tensor<2x4x8xf32>, %arg2: tensor<8x2x4xf32>) -> tensor<2x8x4xf32> {
// CHECK:     %0 = stablehlo.transpose %arg0, dims = [1, 0, 2] : (tensor<8x2x4xf32>) -> tensor<2x8x4xf32>
// CHECK:     %1 = stablehlo.reshape %0 : (tensor<2x8x4xf32>) -> tensor<1x2x8x4xf32>
// CHECK:     %2 = stablehlo.transpose %arg1, dims = [0, 2, 1] : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
// CHECK:     %3 = stablehlo.reshape %2 : (tensor<2x8x4xf32>) -> tensor<1x2x8x4xf32>
// CHECK:     %4 = stablehlo.transpose %arg2, dims = [1, 0, 2] : (tensor<8x2x4xf32>) -> tensor<2x8x4xf32>
// CHECK:     %5 = stablehlo.reshape %4 : (tensor<2x8x4xf32>) -> tensor<1x2x8x4xf32>
// CHECK:     %6 = stablehlo.composite "tpuc.scaled_dot_product_attention" %1, %3, %5 {composite_attributes = {scale = 5.000000e-01 : f32, causal = false, heads = 2 : i64, kv_heads = 2 : i64, softmax_f32 = false}, decomposition = @tpuc_scaled_dot_product_attention_0, version = 1 : i32} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
// CHECK:     %7 = stablehlo.reshape %6 : (tensor<1x2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK:     return %7 : tensor<2x8x4xf32>
// CHECK:   }
// CHECK:   func.func private @tpuc_scaled_dot_product_attention_0(%arg0: tensor<1x2x8x4xf32>, %arg1: tensor<1x2x8x4xf32>, %arg2: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
// CHECK:     %0 = stablehlo.reshape %arg0 : (tensor<1x2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK:     %1 = stablehlo.transpose %0, dims = [1, 0, 2] : (tensor<2x8x4xf32>) -> tensor<8x2x4xf32>
// CHECK:     %2 = stablehlo.reshape %arg1 : (tensor<1x2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK:     %3 = stablehlo.transpose %2, dims = [0, 2, 1] : (tensor<2x8x4xf32>) -> tensor<2x4x8xf32>
// CHECK:     %4 = stablehlo.reshape %arg2 : (tensor<1x2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK:     %5 = stablehlo.transpose %4, dims = [1, 0, 2] : (tensor<2x8x4xf32>) -> tensor<8x2x4xf32>
// CHECK:     %6 = stablehlo.dot_general %1, %3, batching_dims = [1] x [0], contracting_dims = [2] x [1] : (tensor<8x2x4xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
// CHECK:     %cst = stablehlo.constant dense<5.000000e-01> : tensor<2x8x8xf32>
// CHECK:     %7 = stablehlo.multiply %6, %cst : tensor<2x8x8xf32>
// CHECK:     %8 = stablehlo.reshape %7 : (tensor<2x8x8xf32>) -> tensor<1x2x8x8xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:     %9 = stablehlo.reduce(%8 init: %cst_0) applies stablehlo.maximum across dimensions = [3] : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8xf32>
// CHECK:     %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2] : (tensor<1x2x8xf32>) -> tensor<1x2x8x8xf32>
// CHECK:     %11 = stablehlo.subtract %8, %10 : tensor<1x2x8x8xf32>
// CHECK:     %12 = stablehlo.exponential %11 : tensor<1x2x8x8xf32>
// CHECK:     %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %13 = stablehlo.reduce(%12 init: %cst_1) applies stablehlo.add across dimensions = [3] : (tensor<1x2x8x8xf32>, tensor<f32>) -> tensor<1x2x8xf32>
// CHECK:     %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1, 2] : (tensor<1x2x8xf32>) -> tensor<1x2x8x8xf32>
// CHECK:     %15 = stablehlo.divide %12, %14 : tensor<1x2x8x8xf32>
// CHECK:     %16 = stablehlo.reshape %15 : (tensor<1x2x8x8xf32>) -> tensor<2x8x8xf32>
// CHECK:     %17 = stablehlo.dot_general %16, %5, batching_dims = [0] x [1], contracting_dims = [2] x [0] : (tensor<2x8x8xf32>, tensor<8x2x4xf32>) -> tensor<2x8x4xf32>
// CHECK:     %18 = stablehlo.reshape %17 : (tensor<2x8x4xf32>) -> tensor<1x2x8x4xf32>
// CHECK:     return %18 : tensor<1x2x8x4xf32>
// CHECK:   }
// CHECK: }
