// RUN: fuse,dce
// Causal attention as the lowering writes it for `[B, S, H, D]` projections: the queries, keys
// and values are transposed into `[B, H, S, D]` for the composite and back inside it.
module {
  func.func public @main(%q: tensor<2x8x2x8xf32>, %k: tensor<2x8x2x8xf32>, %v: tensor<2x8x2x8xf32>) -> tensor<2x2x8x8xf32> {
    %19 = stablehlo.dot_general %q, %k, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3] : (tensor<2x8x2x8xf32>, tensor<2x8x2x8xf32>) -> tensor<2x2x8x8xf32>
    %cst_2 = stablehlo.constant dense<3.5355338e-01> : tensor<2x2x8x8xf32>
    %20 = stablehlo.multiply %19, %cst_2 : tensor<2x2x8x8xf32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<2x2x8x8xf32>
    %21 = stablehlo.iota dim = 0 : tensor<8x8xi32>
    %22 = stablehlo.iota dim = 1 : tensor<8x8xi32>
    %23 = stablehlo.compare  LE, %22, %21,  SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
    %24 = stablehlo.broadcast_in_dim %23, dims = [2, 3] : (tensor<8x8xi1>) -> tensor<2x2x8x8xi1>
    %25 = stablehlo.select %24, %20, %cst_3 : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
    %cst_4 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %26 = stablehlo.reduce(%25 init: %cst_4) applies stablehlo.maximum across dimensions = [3] : (tensor<2x2x8x8xf32>, tensor<f32>) -> tensor<2x2x8xf32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [0, 1, 2] : (tensor<2x2x8xf32>) -> tensor<2x2x8x8xf32>
    %28 = stablehlo.subtract %25, %27 : tensor<2x2x8x8xf32>
    %29 = stablehlo.exponential %28 : tensor<2x2x8x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %30 = stablehlo.reduce(%29 init: %cst) applies stablehlo.add across dimensions = [3] : (tensor<2x2x8x8xf32>, tensor<f32>) -> tensor<2x2x8xf32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [0, 1, 2] : (tensor<2x2x8xf32>) -> tensor<2x2x8x8xf32>
    %32 = stablehlo.divide %29, %31 : tensor<2x2x8x8xf32>
    %33 = stablehlo.dot_general %32, %v, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1] : (tensor<2x2x8x8xf32>, tensor<2x8x2x8xf32>) -> tensor<2x2x8x8xf32>
    return %33 : tensor<2x2x8x8xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x8x2x8xf32>, %arg1: tensor<2x8x2x8xf32>, %arg2: tensor<2x8x2x8xf32>) -> tensor<2x2x8x8xf32> {
// CHECK:     %0 = stablehlo.transpose %arg0, dims = [0, 2, 1, 3] : (tensor<2x8x2x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK:     %1 = stablehlo.transpose %arg1, dims = [0, 2, 1, 3] : (tensor<2x8x2x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK:     %2 = stablehlo.transpose %arg2, dims = [0, 2, 1, 3] : (tensor<2x8x2x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK:     %3 = stablehlo.composite "tpuc.scaled_dot_product_attention" %0, %1, %2 {composite_attributes = {scale = 3.5355338e-01 : f32, causal = true, heads = 2 : i64, kv_heads = 2 : i64, softmax_f32 = false}, decomposition = @tpuc_scaled_dot_product_attention_0, version = 1 : i32} : (tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK:     return %3 : tensor<2x2x8x8xf32>
// CHECK:   }
// CHECK:   func.func private @tpuc_scaled_dot_product_attention_0(%arg0: tensor<2x2x8x8xf32>, %arg1: tensor<2x2x8x8xf32>, %arg2: tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32> {
// CHECK:     %0 = stablehlo.transpose %arg0, dims = [0, 2, 1, 3] : (tensor<2x2x8x8xf32>) -> tensor<2x8x2x8xf32>
// CHECK:     %1 = stablehlo.transpose %arg1, dims = [0, 2, 1, 3] : (tensor<2x2x8x8xf32>) -> tensor<2x8x2x8xf32>
// CHECK:     %2 = stablehlo.transpose %arg2, dims = [0, 2, 1, 3] : (tensor<2x2x8x8xf32>) -> tensor<2x8x2x8xf32>
// CHECK:     %3 = stablehlo.dot_general %0, %1, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3] : (tensor<2x8x2x8xf32>, tensor<2x8x2x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK:     %cst = stablehlo.constant dense<3.5355338e-01> : tensor<2x2x8x8xf32>
// CHECK:     %4 = stablehlo.multiply %3, %cst : tensor<2x2x8x8xf32>
// CHECK:     %5 = stablehlo.iota dim = 1 : tensor<8x8xi32>
// CHECK:     %6 = stablehlo.iota dim = 0 : tensor<8x8xi32>
// CHECK:     %7 = stablehlo.compare  LE, %5, %6,  SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
// CHECK:     %8 = stablehlo.broadcast_in_dim %7, dims = [2, 3] : (tensor<8x8xi1>) -> tensor<2x2x8x8xi1>
// CHECK:     %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<2x2x8x8xf32>
// CHECK:     %9 = stablehlo.select %8, %4, %cst_0 : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
// CHECK:     %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:     %10 = stablehlo.reduce(%9 init: %cst_1) applies stablehlo.maximum across dimensions = [3] : (tensor<2x2x8x8xf32>, tensor<f32>) -> tensor<2x2x8xf32>
// CHECK:     %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1, 2] : (tensor<2x2x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK:     %12 = stablehlo.subtract %9, %11 : tensor<2x2x8x8xf32>
// CHECK:     %13 = stablehlo.exponential %12 : tensor<2x2x8x8xf32>
// CHECK:     %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %14 = stablehlo.reduce(%13 init: %cst_2) applies stablehlo.add across dimensions = [3] : (tensor<2x2x8x8xf32>, tensor<f32>) -> tensor<2x2x8xf32>
// CHECK:     %15 = stablehlo.broadcast_in_dim %14, dims = [0, 1, 2] : (tensor<2x2x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK:     %16 = stablehlo.divide %13, %15 : tensor<2x2x8x8xf32>
// CHECK:     %17 = stablehlo.dot_general %16, %2, batching_dims = [0, 1] x [0, 2], contracting_dims = [3] x [1] : (tensor<2x2x8x8xf32>, tensor<2x8x2x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK:     return %17 : tensor<2x2x8x8xf32>
// CHECK:   }
// CHECK: }
