// RUN: fuse,dce
// Soft-capped causal attention (`tanh(s / 30) · 30` under the causal mask): version 2,
// bias = false, attn_logits_soft_cap = 30.0, three operands. (At the shape of the shipped decoder
// kernel, which passes/tests/kernel_declarations.rs shows does not serve it.)
module {
  func.func public @main(%q: tensor<2x2x8x8xf32>, %k: tensor<2x2x8x8xf32>, %v: tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32> {
    %0 = stablehlo.dot_general %q, %k, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
    %cst = stablehlo.constant dense<3.5355338e-01> : tensor<2x2x8x8xf32>
    %1 = stablehlo.multiply %0, %cst : tensor<2x2x8x8xf32>
    %cap = stablehlo.constant dense<3.000000e+01> : tensor<2x2x8x8xf32>
    %2 = stablehlo.divide %1, %cap : tensor<2x2x8x8xf32>
    %3 = stablehlo.tanh %2 : tensor<2x2x8x8xf32>
    %s = stablehlo.multiply %3, %cap : tensor<2x2x8x8xf32>
    %rows = stablehlo.iota dim = 0 : tensor<8x8xi32>
    %cols = stablehlo.iota dim = 1 : tensor<8x8xi32>
    %keep = stablehlo.compare  LE, %cols, %rows,  SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
    %keepb = stablehlo.broadcast_in_dim %keep, dims = [2, 3] : (tensor<8x8xi1>) -> tensor<2x2x8x8xi1>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<2x2x8x8xf32>
    %m = stablehlo.select %keepb, %s, %ninf : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
    %minit = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %max = stablehlo.reduce(%m init: %minit) applies stablehlo.maximum across dimensions = [3] : (tensor<2x2x8x8xf32>, tensor<f32>) -> tensor<2x2x8xf32>
    %maxb = stablehlo.broadcast_in_dim %max, dims = [0, 1, 2] : (tensor<2x2x8xf32>) -> tensor<2x2x8x8xf32>
    %shifted = stablehlo.subtract %m, %maxb : tensor<2x2x8x8xf32>
    %e = stablehlo.exponential %shifted : tensor<2x2x8x8xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [3] : (tensor<2x2x8x8xf32>, tensor<f32>) -> tensor<2x2x8xf32>
    %sumb = stablehlo.broadcast_in_dim %sum, dims = [0, 1, 2] : (tensor<2x2x8xf32>) -> tensor<2x2x8x8xf32>
    %p = stablehlo.divide %e, %sumb : tensor<2x2x8x8xf32>
    %o = stablehlo.dot_general %p, %v, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
    return %o : tensor<2x2x8x8xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x2x8x8xf32>, %arg1: tensor<2x2x8x8xf32>, %arg2: tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32> {
// CHECK:     %0 = stablehlo.composite "tpuc.scaled_dot_product_attention" %arg0, %arg1, %arg2 {composite_attributes = {scale = 3.5355338e-01 : f32, causal = true, heads = 2 : i64, kv_heads = 2 : i64, softmax_f32 = false, bias = false, attn_logits_soft_cap = 3.000000e+01 : f32}, decomposition = @tpuc_scaled_dot_product_attention_0, version = 2 : i32} : (tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK:     return %0 : tensor<2x2x8x8xf32>
// CHECK:   }
// CHECK:   func.func private @tpuc_scaled_dot_product_attention_0(%arg0: tensor<2x2x8x8xf32>, %arg1: tensor<2x2x8x8xf32>, %arg2: tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32> {
// CHECK:     %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK:     %cst = stablehlo.constant dense<3.5355338e-01> : tensor<2x2x8x8xf32>
// CHECK:     %1 = stablehlo.multiply %0, %cst : tensor<2x2x8x8xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<3.000000e+01> : tensor<2x2x8x8xf32>
// CHECK:     %2 = stablehlo.divide %1, %cst_0 : tensor<2x2x8x8xf32>
// CHECK:     %3 = stablehlo.tanh %2 : tensor<2x2x8x8xf32>
// CHECK:     %4 = stablehlo.multiply %3, %cst_0 : tensor<2x2x8x8xf32>
// CHECK:     %5 = stablehlo.iota dim = 1 : tensor<8x8xi32>
// CHECK:     %6 = stablehlo.iota dim = 0 : tensor<8x8xi32>
// CHECK:     %7 = stablehlo.compare  LE, %5, %6,  SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
// CHECK:     %8 = stablehlo.broadcast_in_dim %7, dims = [2, 3] : (tensor<8x8xi1>) -> tensor<2x2x8x8xi1>
// CHECK:     %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<2x2x8x8xf32>
// CHECK:     %9 = stablehlo.select %8, %4, %cst_1 : tensor<2x2x8x8xi1>, tensor<2x2x8x8xf32>
// CHECK:     %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:     %10 = stablehlo.reduce(%9 init: %cst_2) applies stablehlo.maximum across dimensions = [3] : (tensor<2x2x8x8xf32>, tensor<f32>) -> tensor<2x2x8xf32>
// CHECK:     %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1, 2] : (tensor<2x2x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK:     %12 = stablehlo.subtract %9, %11 : tensor<2x2x8x8xf32>
// CHECK:     %13 = stablehlo.exponential %12 : tensor<2x2x8x8xf32>
// CHECK:     %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %14 = stablehlo.reduce(%13 init: %cst_3) applies stablehlo.add across dimensions = [3] : (tensor<2x2x8x8xf32>, tensor<f32>) -> tensor<2x2x8xf32>
// CHECK:     %15 = stablehlo.broadcast_in_dim %14, dims = [0, 1, 2] : (tensor<2x2x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK:     %16 = stablehlo.divide %13, %15 : tensor<2x2x8x8xf32>
// CHECK:     %17 = stablehlo.dot_general %16, %arg2, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) -> tensor<2x2x8x8xf32>
// CHECK:     return %17 : tensor<2x2x8x8xf32>
// CHECK:   }
// CHECK: }
