// RUN: fuse,dce
// Attention of one head without batch dimensions (`[S, D]` products): the composite reads the
// operands as `[1, 1, S, D]`.
module {
  func.func public @main(%q: tensor<8x4xf32>, %k: tensor<8x4xf32>, %v: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %0 = stablehlo.dot_general %q, %k, contracting_dims = [1] x [1] : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<8x8xf32>
    %1 = stablehlo.multiply %cst, %0 : tensor<8x8xf32>
    %cst_m = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst_m) applies stablehlo.maximum across dimensions = [1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<8xf32>) -> tensor<8x8xf32>
    %4 = stablehlo.subtract %1, %3 : tensor<8x8xf32>
    %5 = stablehlo.exponential %4 : tensor<8x8xf32>
    %cst_z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.reduce(%5 init: %cst_z) applies stablehlo.add across dimensions = [1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<8xf32>) -> tensor<8x8xf32>
    %8 = stablehlo.divide %5, %7 : tensor<8x8xf32>
    %9 = stablehlo.dot_general %8, %v, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
    return %9 : tensor<8x4xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<8x4xf32>, %arg1: tensor<8x4xf32>, %arg2: tensor<8x4xf32>) -> tensor<8x4xf32> {
// CHECK:     %0 = stablehlo.reshape %arg0 : (tensor<8x4xf32>) -> tensor<1x1x8x4xf32>
// CHECK:     %1 = stablehlo.reshape %arg1 : (tensor<8x4xf32>) -> tensor<1x1x8x4xf32>
// CHECK:     %2 = stablehlo.reshape %arg2 : (tensor<8x4xf32>) -> tensor<1x1x8x4xf32>
// CHECK:     %3 = stablehlo.composite "tpuc.scaled_dot_product_attention" %0, %1, %2 {composite_attributes = {scale = 5.000000e-01 : f32, causal = false, heads = 1 : i64, kv_heads = 1 : i64, softmax_f32 = false}, decomposition = @tpuc_scaled_dot_product_attention_0, version = 1 : i32} : (tensor<1x1x8x4xf32>, tensor<1x1x8x4xf32>, tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32>
// CHECK:     %4 = stablehlo.reshape %3 : (tensor<1x1x8x4xf32>) -> tensor<8x4xf32>
// CHECK:     return %4 : tensor<8x4xf32>
// CHECK:   }
// CHECK:   func.func private @tpuc_scaled_dot_product_attention_0(%arg0: tensor<1x1x8x4xf32>, %arg1: tensor<1x1x8x4xf32>, %arg2: tensor<1x1x8x4xf32>) -> tensor<1x1x8x4xf32> {
// CHECK:     %0 = stablehlo.reshape %arg0 : (tensor<1x1x8x4xf32>) -> tensor<8x4xf32>
// CHECK:     %1 = stablehlo.reshape %arg1 : (tensor<1x1x8x4xf32>) -> tensor<8x4xf32>
// CHECK:     %2 = stablehlo.reshape %arg2 : (tensor<1x1x8x4xf32>) -> tensor<8x4xf32>
// CHECK:     %3 = stablehlo.dot_general %0, %1, contracting_dims = [1] x [1] : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x8xf32>
// CHECK:     %cst = stablehlo.constant dense<5.000000e-01> : tensor<8x8xf32>
// CHECK:     %4 = stablehlo.multiply %cst, %3 : tensor<8x8xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:     %5 = stablehlo.reduce(%4 init: %cst_0) applies stablehlo.maximum across dimensions = [1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK:     %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<8xf32>) -> tensor<8x8xf32>
// CHECK:     %7 = stablehlo.subtract %4, %6 : tensor<8x8xf32>
// CHECK:     %8 = stablehlo.exponential %7 : tensor<8x8xf32>
// CHECK:     %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %9 = stablehlo.reduce(%8 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK:     %10 = stablehlo.broadcast_in_dim %9, dims = [0] : (tensor<8xf32>) -> tensor<8x8xf32>
// CHECK:     %11 = stablehlo.divide %8, %10 : tensor<8x8xf32>
// CHECK:     %12 = stablehlo.dot_general %11, %2, contracting_dims = [1] x [0] : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK:     %13 = stablehlo.reshape %12 : (tensor<8x4xf32>) -> tensor<1x1x8x4xf32>
// CHECK:     return %13 : tensor<1x1x8x4xf32>
// CHECK:   }
// CHECK: }
