// RUN: fuse,dce
// Attention as JAX writes it without a batch dimension: `v·p` (the probabilities on the right),
// a division by `sqrt(D)`, a causal `jnp.where(mask, s, -1e9)` behind a call to a helper, which
// `fuse` inlines first. The composite's result is transposed back to `[heads, D, S]`.
module {
  func.func public @main(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
    %0 = stablehlo.dot_general %q, %k, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<2x8x8xf32>
    %1 = stablehlo.divide %0, %cst : tensor<2x8x8xf32>
    %i0 = stablehlo.iota dim = 0 : tensor<8x8xi32>
    %i1 = stablehlo.iota dim = 1 : tensor<8x8xi32>
    %c = stablehlo.compare  LE, %i1, %i0,  SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
    %mb = stablehlo.broadcast_in_dim %c, dims = [1, 2] : (tensor<8x8xi1>) -> tensor<1x8x8xi1>
    %fill = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %2 = call @_where(%mb, %1, %fill) : (tensor<1x8x8xi1>, tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8x8xf32>
    %cst_m = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %3 = stablehlo.reduce(%2 init: %cst_m) applies stablehlo.maximum across dimensions = [2] : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x8xf32>
    %5 = stablehlo.subtract %2, %4 : tensor<2x8x8xf32>
    %6 = stablehlo.exponential %5 : tensor<2x8x8xf32>
    %cst_z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_z) applies stablehlo.add across dimensions = [2] : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x8xf32>
    %9 = stablehlo.divide %6, %8 : tensor<2x8x8xf32>
    %10 = stablehlo.dot_general %v, %9, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<2x4x8xf32>, tensor<2x8x8xf32>) -> tensor<2x4x8xf32>
    return %10 : tensor<2x4x8xf32>
  }
  func.func private @_where(%m: tensor<1x8x8xi1>, %x: tensor<2x8x8xf32>, %y: tensor<f32>) -> tensor<2x8x8xf32> {
    %0 = stablehlo.broadcast_in_dim %m, dims = [0, 1, 2] : (tensor<1x8x8xi1>) -> tensor<2x8x8xi1>
    %1 = stablehlo.broadcast_in_dim %y, dims = [] : (tensor<f32>) -> tensor<2x8x8xf32>
    %2 = stablehlo.select %0, %x, %1 : tensor<2x8x8xi1>, tensor<2x8x8xf32>
    return %2 : tensor<2x8x8xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x4x8xf32>, %arg1: tensor<2x4x8xf32>, %arg2: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
// CHECK:     %0 = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
// CHECK:     %1 = stablehlo.reshape %0 : (tensor<2x8x4xf32>) -> tensor<1x2x8x4xf32>
// CHECK:     %2 = stablehlo.transpose %arg1, dims = [0, 2, 1] : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
// CHECK:     %3 = stablehlo.reshape %2 : (tensor<2x8x4xf32>) -> tensor<1x2x8x4xf32>
// CHECK:     %4 = stablehlo.transpose %arg2, dims = [0, 2, 1] : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
// CHECK:     %5 = stablehlo.reshape %4 : (tensor<2x8x4xf32>) -> tensor<1x2x8x4xf32>
// CHECK:     %6 = stablehlo.composite "tpuc.scaled_dot_product_attention" %1, %3, %5 {composite_attributes = {scale = 5.000000e-01 : f32, causal = true, heads = 2 : i64, kv_heads = 2 : i64, softmax_f32 = false}, decomposition = @tpuc_scaled_dot_product_attention_0, version = 1 : i32} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
// CHECK:     %7 = stablehlo.reshape %6 : (tensor<1x2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK:     %8 = stablehlo.transpose %7, dims = [0, 2, 1] : (tensor<2x8x4xf32>) -> tensor<2x4x8xf32>
// CHECK:     return %8 : tensor<2x4x8xf32>
// CHECK:   }
// CHECK:   func.func private @tpuc_scaled_dot_product_attention_0(%arg0: tensor<1x2x8x4xf32>, %arg1: tensor<1x2x8x4xf32>, %arg2: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> {
// CHECK:     %0 = stablehlo.reshape %arg0 : (tensor<1x2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK:     %1 = stablehlo.transpose %0, dims = [0, 2, 1] : (tensor<2x8x4xf32>) -> tensor<2x4x8xf32>
// CHECK:     %2 = stablehlo.reshape %arg1 : (tensor<1x2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK:     %3 = stablehlo.transpose %2, dims = [0, 2, 1] : (tensor<2x8x4xf32>) -> tensor<2x4x8xf32>
// CHECK:     %4 = stablehlo.reshape %arg2 : (tensor<1x2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK:     %5 = stablehlo.transpose %4, dims = [0, 2, 1] : (tensor<2x8x4xf32>) -> tensor<2x4x8xf32>
// CHECK:     %6 = stablehlo.dot_general %1, %3, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
// CHECK:     %cst = stablehlo.constant dense<2.000000e+00> : tensor<2x8x8xf32>
// CHECK:     %7 = stablehlo.divide %6, %cst : tensor<2x8x8xf32>
// CHECK:     %8 = stablehlo.iota dim = 1 : tensor<8x8xi32>
// CHECK:     %9 = stablehlo.iota dim = 0 : tensor<8x8xi32>
// CHECK:     %10 = stablehlo.compare  LE, %8, %9,  SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
// CHECK:     %11 = stablehlo.broadcast_in_dim %10, dims = [1, 2] : (tensor<8x8xi1>) -> tensor<1x8x8xi1>
// CHECK:     %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2] : (tensor<1x8x8xi1>) -> tensor<2x8x8xi1>
// CHECK:     %cst_0 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
// CHECK:     %13 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x8x8xf32>
// CHECK:     %14 = stablehlo.select %12, %7, %13 : tensor<2x8x8xi1>, tensor<2x8x8xf32>
// CHECK:     %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:     %15 = stablehlo.reduce(%14 init: %cst_1) applies stablehlo.maximum across dimensions = [2] : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8xf32>
// CHECK:     %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x8xf32>
// CHECK:     %17 = stablehlo.subtract %14, %16 : tensor<2x8x8xf32>
// CHECK:     %18 = stablehlo.exponential %17 : tensor<2x8x8xf32>
// CHECK:     %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %19 = stablehlo.reduce(%18 init: %cst_2) applies stablehlo.add across dimensions = [2] : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8xf32>
// CHECK:     %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x8xf32>
// CHECK:     %21 = stablehlo.divide %18, %20 : tensor<2x8x8xf32>
// CHECK:     %22 = stablehlo.dot_general %5, %21, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<2x4x8xf32>, tensor<2x8x8xf32>) -> tensor<2x4x8xf32>
// CHECK:     %23 = stablehlo.transpose %22, dims = [0, 2, 1] : (tensor<2x4x8xf32>) -> tensor<2x8x4xf32>
// CHECK:     %24 = stablehlo.reshape %23 : (tensor<2x8x4xf32>) -> tensor<1x2x8x4xf32>
// CHECK:     return %24 : tensor<1x2x8x4xf32>
// CHECK:   }
// CHECK: }
