// RUN: fuse,dce
// Grouped-query attention (Llama-style, 4 heads over 2 kv heads): the keys and values enter
// the composite before their heads are repeated; kv_heads = 2.
module {
  func.func public @main(%arg0: tensor<2x4x16x16xf32>, %arg1: tensor<2x2x16x16xf32>, %arg2: tensor<2x2x16x16xf32>) -> tensor<2x4x16x16xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1, 3, 4] : (tensor<2x2x16x16xf32>) -> tensor<2x2x2x16x16xf32>
    %1 = stablehlo.reshape %0 : (tensor<2x2x2x16x16xf32>) -> tensor<2x4x16x16xf32>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1, 3, 4] : (tensor<2x2x16x16xf32>) -> tensor<2x2x2x16x16xf32>
    %3 = stablehlo.reshape %2 : (tensor<2x2x2x16x16xf32>) -> tensor<2x4x16x16xf32>
    %4 = stablehlo.dot_general %arg0, %1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
    %cst = stablehlo.constant dense<2.500000e-01> : tensor<2x4x16x16xf32>
    %5 = stablehlo.multiply %4, %cst : tensor<2x4x16x16xf32>
    %6 = stablehlo.iota dim = 0 : tensor<16xi64>
    %7 = stablehlo.broadcast_in_dim %6, dims = [1] : (tensor<16xi64>) -> tensor<16x16xi64>
    %8 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<16xi64>) -> tensor<16x16xi64>
    %9 = stablehlo.compare  LE, %7, %8,  SIGNED : (tensor<16x16xi64>, tensor<16x16xi64>) -> tensor<16x16xi1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [2, 3] : (tensor<16x16xi1>) -> tensor<2x4x16x16xi1>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<2x4x16x16xf32>
    %11 = stablehlo.select %10, %5, %cst_0 : tensor<2x4x16x16xi1>, tensor<2x4x16x16xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %12 = stablehlo.reduce(%11 init: %cst_1) applies stablehlo.maximum across dimensions = [3] : (tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1, 2] : (tensor<2x4x16xf32>) -> tensor<2x4x16x16xf32>
    %14 = stablehlo.subtract %11, %13 : tensor<2x4x16x16xf32>
    %15 = stablehlo.exponential %14 : tensor<2x4x16x16xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.reduce(%15 init: %cst_2) applies stablehlo.add across dimensions = [3] : (tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1, 2] : (tensor<2x4x16xf32>) -> tensor<2x4x16x16xf32>
    %18 = stablehlo.divide %15, %17 : tensor<2x4x16x16xf32>
    %19 = stablehlo.dot_general %18, %3, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
    return %19 : tensor<2x4x16x16xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x4x16x16xf32>, %arg1: tensor<2x2x16x16xf32>, %arg2: tensor<2x2x16x16xf32>) -> tensor<2x4x16x16xf32> {
// CHECK:     %0 = stablehlo.composite "tpuc.scaled_dot_product_attention" %arg0, %arg1, %arg2 {composite_attributes = {scale = 2.500000e-01 : f32, causal = true, heads = 4 : i64, kv_heads = 2 : i64, softmax_f32 = false}, decomposition = @tpuc_scaled_dot_product_attention_0, version = 1 : i32} : (tensor<2x4x16x16xf32>, tensor<2x2x16x16xf32>, tensor<2x2x16x16xf32>) -> tensor<2x4x16x16xf32>
// CHECK:     return %0 : tensor<2x4x16x16xf32>
// CHECK:   }
// CHECK:   func.func private @tpuc_scaled_dot_product_attention_0(%arg0: tensor<2x4x16x16xf32>, %arg1: tensor<2x2x16x16xf32>, %arg2: tensor<2x2x16x16xf32>) -> tensor<2x4x16x16xf32> {
// CHECK:     %0 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1, 3, 4] : (tensor<2x2x16x16xf32>) -> tensor<2x2x2x16x16xf32>
// CHECK:     %1 = stablehlo.reshape %0 : (tensor<2x2x2x16x16xf32>) -> tensor<2x4x16x16xf32>
// CHECK:     %2 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1, 3, 4] : (tensor<2x2x16x16xf32>) -> tensor<2x2x2x16x16xf32>
// CHECK:     %3 = stablehlo.reshape %2 : (tensor<2x2x2x16x16xf32>) -> tensor<2x4x16x16xf32>
// CHECK:     %4 = stablehlo.dot_general %arg0, %1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
// CHECK:     %cst = stablehlo.constant dense<2.500000e-01> : tensor<2x4x16x16xf32>
// CHECK:     %5 = stablehlo.multiply %4, %cst : tensor<2x4x16x16xf32>
// CHECK:     %6 = stablehlo.iota dim = 0 : tensor<16xi64>
// CHECK:     %7 = stablehlo.broadcast_in_dim %6, dims = [1] : (tensor<16xi64>) -> tensor<16x16xi64>
// CHECK:     %8 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<16xi64>) -> tensor<16x16xi64>
// CHECK:     %9 = stablehlo.compare  LE, %7, %8,  SIGNED : (tensor<16x16xi64>, tensor<16x16xi64>) -> tensor<16x16xi1>
// CHECK:     %10 = stablehlo.broadcast_in_dim %9, dims = [2, 3] : (tensor<16x16xi1>) -> tensor<2x4x16x16xi1>
// CHECK:     %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<2x4x16x16xf32>
// CHECK:     %11 = stablehlo.select %10, %5, %cst_0 : tensor<2x4x16x16xi1>, tensor<2x4x16x16xf32>
// CHECK:     %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:     %12 = stablehlo.reduce(%11 init: %cst_1) applies stablehlo.maximum across dimensions = [3] : (tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16xf32>
// CHECK:     %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1, 2] : (tensor<2x4x16xf32>) -> tensor<2x4x16x16xf32>
// CHECK:     %14 = stablehlo.subtract %11, %13 : tensor<2x4x16x16xf32>
// CHECK:     %15 = stablehlo.exponential %14 : tensor<2x4x16x16xf32>
// CHECK:     %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %16 = stablehlo.reduce(%15 init: %cst_2) applies stablehlo.add across dimensions = [3] : (tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16xf32>
// CHECK:     %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1, 2] : (tensor<2x4x16xf32>) -> tensor<2x4x16x16xf32>
// CHECK:     %18 = stablehlo.divide %15, %17 : tensor<2x4x16x16xf32>
// CHECK:     %19 = stablehlo.dot_general %18, %3, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
// CHECK:     return %19 : tensor<2x4x16x16xf32>
// CHECK:   }
// CHECK: }
