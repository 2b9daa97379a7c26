// RUN: fuse,dce
// Attention as the core-ATen decomposition lowers: an additive causal mask built from iotas
// (`select(j <= i, 0, -inf)`) and `_safe_softmax` (fully masked rows give zeros).
module {
  func.func public @main(%q: tensor<2x2x8x8xf32>, %k: tensor<2x2x8x8xf32>, %v: tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32> {
    %18 = stablehlo.iota dim = 0 : tensor<8xi64>
    %19 = stablehlo.broadcast_in_dim %18, dims = [1] : (tensor<8xi64>) -> tensor<8x8xi64>
    %20 = stablehlo.broadcast_in_dim %18, dims = [0] : (tensor<8xi64>) -> tensor<8x8xi64>
    %21 = stablehlo.compare  LE, %19, %20,  SIGNED : (tensor<8x8xi64>, tensor<8x8xi64>) -> tensor<8x8xi1>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<8x8xf32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<8x8xf32>
    %22 = stablehlo.select %21, %cst_2, %cst_3 : tensor<8x8xi1>, tensor<8x8xf32>
    %24 = stablehlo.dot_general %q, %k, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
    %cst_4 = stablehlo.constant dense<3.5355335e-01> : tensor<2x2x8x8xf32>
    %25 = stablehlo.multiply %24, %cst_4 : tensor<2x2x8x8xf32>
    %26 = stablehlo.broadcast_in_dim %22, dims = [2, 3] : (tensor<8x8xf32>) -> tensor<2x2x8x8xf32>
    %27 = stablehlo.add %25, %26 : tensor<2x2x8x8xf32>
    %cst_5 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %28 = stablehlo.reduce(%27 init: %cst_5) applies stablehlo.maximum across dimensions = [3] : (tensor<2x2x8x8xf32>, tensor<f32>) -> tensor<2x2x8xf32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0, 1, 2] : (tensor<2x2x8xf32>) -> tensor<2x2x8x8xf32>
    %30 = stablehlo.subtract %27, %29 : tensor<2x2x8x8xf32>
    %31 = stablehlo.exponential %30 : tensor<2x2x8x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %32 = stablehlo.reduce(%31 init: %cst) applies stablehlo.add across dimensions = [3] : (tensor<2x2x8x8xf32>, tensor<f32>) -> tensor<2x2x8xf32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [0, 1, 2] : (tensor<2x2x8xf32>) -> tensor<2x2x8x8xf32>
    %34 = stablehlo.divide %31, %33 : tensor<2x2x8x8xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<2x2x8x8xf32>
    %35 = stablehlo.compare  EQ, %27, %cst_6,  FLOAT : (tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xi1>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %36 = stablehlo.reduce(%35 init: %c) applies stablehlo.and across dimensions = [3] : (tensor<2x2x8x8xi1>, tensor<i1>) -> tensor<2x2x8xi1>
    %37 = stablehlo.reshape %36 : (tensor<2x2x8xi1>) -> tensor<2x2x8x1xi1>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<2x2x8x8xf32>
    %38 = stablehlo.broadcast_in_dim %37, dims = [0, 1, 2, 3] : (tensor<2x2x8x1xi1>) -> tensor<2x2x8x8xi1>
    %39 = stablehlo.select %38, %cst_7, %34 : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
    %40 = stablehlo.dot_general %39, %v, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
    return %40 : tensor<2x2x8x8xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x2x8x8xf32>, %arg1: tensor<2x2x8x8xf32>, %arg2: tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32> {
// CHECK:     %0 = stablehlo.composite "tpuc.scaled_dot_product_attention" %arg0, %arg1, %arg2 {composite_attributes = {scale = 3.5355335e-01 : f32, causal = true, heads = 2 : i64, kv_heads = 2 : i64, softmax_f32 = false}, decomposition = @tpuc_scaled_dot_product_attention_0, version = 1 : i32} : (tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK:     return %0 : tensor<2x2x8x8xf32>
// CHECK:   }
// CHECK:   func.func private @tpuc_scaled_dot_product_attention_0(%arg0: tensor<2x2x8x8xf32>, %arg1: tensor<2x2x8x8xf32>, %arg2: tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32> {
// CHECK:     %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK:     %cst = stablehlo.constant dense<3.5355335e-01> : tensor<2x2x8x8xf32>
// CHECK:     %1 = stablehlo.multiply %0, %cst : tensor<2x2x8x8xf32>
// CHECK:     %2 = stablehlo.iota dim = 0 : tensor<8xi64>
// CHECK:     %3 = stablehlo.broadcast_in_dim %2, dims = [1] : (tensor<8xi64>) -> tensor<8x8xi64>
// CHECK:     %4 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<8xi64>) -> tensor<8x8xi64>
// CHECK:     %5 = stablehlo.compare  LE, %3, %4,  SIGNED : (tensor<8x8xi64>, tensor<8x8xi64>) -> tensor<8x8xi1>
// CHECK:     %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<8x8xf32>
// CHECK:     %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<8x8xf32>
// CHECK:     %6 = stablehlo.select %5, %cst_0, %cst_1 : tensor<8x8xi1>, tensor<8x8xf32>
// CHECK:     %7 = stablehlo.broadcast_in_dim %6, dims = [2, 3] : (tensor<8x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK:     %8 = stablehlo.add %1, %7 : tensor<2x2x8x8xf32>
// CHECK:     %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:     %9 = stablehlo.reduce(%8 init: %cst_2) applies stablehlo.maximum across dimensions = [3] : (tensor<2x2x8x8xf32>, tensor<f32>) -> tensor<2x2x8xf32>
// CHECK:     %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2] : (tensor<2x2x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK:     %11 = stablehlo.subtract %8, %10 : tensor<2x2x8x8xf32>
// CHECK:     %12 = stablehlo.exponential %11 : tensor<2x2x8x8xf32>
// CHECK:     %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %13 = stablehlo.reduce(%12 init: %cst_3) applies stablehlo.add across dimensions = [3] : (tensor<2x2x8x8xf32>, tensor<f32>) -> tensor<2x2x8xf32>
// CHECK:     %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1, 2] : (tensor<2x2x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK:     %15 = stablehlo.divide %12, %14 : tensor<2x2x8x8xf32>
// CHECK:     %cst_4 = stablehlo.constant dense<0xFF800000> : tensor<2x2x8x8xf32>
// CHECK:     %16 = stablehlo.compare  EQ, %8, %cst_4,  FLOAT : (tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xi1>
// CHECK:     %c = stablehlo.constant dense<true> : tensor<i1>
// CHECK:     %17 = stablehlo.reduce(%16 init: %c) applies stablehlo.and across dimensions = [3] : (tensor<2x2x8x8xi1>, tensor<i1>) -> tensor<2x2x8xi1>
// CHECK:     %18 = stablehlo.reshape %17 : (tensor<2x2x8xi1>) -> tensor<2x2x8x1xi1>
// CHECK:     %19 = stablehlo.broadcast_in_dim %18, dims = [0, 1, 2, 3] : (tensor<2x2x8x1xi1>) -> tensor<2x2x8x8xi1>
// CHECK:     %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<2x2x8x8xf32>
// CHECK:     %20 = stablehlo.select %19, %cst_5, %15 : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
// CHECK:     %21 = stablehlo.dot_general %20, %arg2, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK:     return %21 : tensor<2x2x8x8xf32>
// CHECK:   }
// CHECK: }
