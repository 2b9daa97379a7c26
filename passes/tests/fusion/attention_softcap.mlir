// RUN: fuse,dce
// Soft-capped attention as Gemma 2's eager attention writes it in bf16: the scaled scores
// capped by `tanh(s / 50) · 50` (here `50 · tanh(s / 50)`), an additive mask, the softmax
// upcast to f32. Version 2: bias = false, attn_logits_soft_cap = 50.0; the mask is the fourth
// operand.
module {
  func.func public @main(%q: tensor<1x2x4x8xbf16>, %k: tensor<1x2x4x8xbf16>, %v: tensor<1x2x4x8xbf16>, %mask: tensor<1x2x4x4xbf16>) -> tensor<1x2x4x8xbf16> {
    %0 = stablehlo.dot_general %q, %k, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>) -> tensor<1x2x4x4xbf16>
    %cst = stablehlo.constant dense<3.535160e-01> : tensor<1x2x4x4xbf16>
    %1 = stablehlo.multiply %0, %cst : tensor<1x2x4x4xbf16>
    %cap = stablehlo.constant dense<5.000000e+01> : tensor<1x2x4x4xbf16>
    %2 = stablehlo.divide %1, %cap : tensor<1x2x4x4xbf16>
    %3 = stablehlo.tanh %2 : tensor<1x2x4x4xbf16>
    %4 = stablehlo.multiply %cap, %3 : tensor<1x2x4x4xbf16>
    %5 = stablehlo.add %4, %mask : tensor<1x2x4x4xbf16>
    %6 = stablehlo.convert %5 : (tensor<1x2x4x4xbf16>) -> tensor<1x2x4x4xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_0) applies stablehlo.maximum across dimensions = [3] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<1x2x4xf32>) -> tensor<1x2x4x4xf32>
    %9 = stablehlo.subtract %6, %8 : tensor<1x2x4x4xf32>
    %10 = stablehlo.exponential %9 : tensor<1x2x4x4xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%10 init: %cst_1) applies stablehlo.add across dimensions = [3] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2] : (tensor<1x2x4xf32>) -> tensor<1x2x4x4xf32>
    %13 = stablehlo.divide %10, %12 : tensor<1x2x4x4xf32>
    %14 = stablehlo.convert %13 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xbf16>
    %15 = stablehlo.dot_general %14, %v, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<1x2x4x4xbf16>, tensor<1x2x4x8xbf16>) -> tensor<1x2x4x8xbf16>
    return %15 : tensor<1x2x4x8xbf16>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<1x2x4x8xbf16>, %arg1: tensor<1x2x4x8xbf16>, %arg2: tensor<1x2x4x8xbf16>, %arg3: tensor<1x2x4x4xbf16>) -> tensor<1x2x4x8xbf16> {
// CHECK:     %0 = stablehlo.composite "tpuc.scaled_dot_product_attention" %arg0, %arg1, %arg2, %arg3 {composite_attributes = {scale = 3.5351563e-01 : f32, causal = false, heads = 2 : i64, kv_heads = 2 : i64, softmax_f32 = true, bias = false, attn_logits_soft_cap = 5.000000e+01 : f32}, decomposition = @tpuc_scaled_dot_product_attention_0, version = 2 : i32} : (tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>, tensor<1x2x4x4xbf16>) -> tensor<1x2x4x8xbf16>
// CHECK:     return %0 : tensor<1x2x4x8xbf16>
// CHECK:   }
// CHECK:   func.func private @tpuc_scaled_dot_product_attention_0(%arg0: tensor<1x2x4x8xbf16>, %arg1: tensor<1x2x4x8xbf16>, %arg2: tensor<1x2x4x8xbf16>, %arg3: tensor<1x2x4x4xbf16>) -> tensor<1x2x4x8xbf16> {
// CHECK:     %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>) -> tensor<1x2x4x4xbf16>
// CHECK:     %cst = stablehlo.constant dense<3.535156e-01> : tensor<1x2x4x4xbf16>
// CHECK:     %1 = stablehlo.multiply %0, %cst : tensor<1x2x4x4xbf16>
// CHECK:     %cst_0 = stablehlo.constant dense<5.000000e+01> : tensor<1x2x4x4xbf16>
// CHECK:     %2 = stablehlo.divide %1, %cst_0 : tensor<1x2x4x4xbf16>
// CHECK:     %3 = stablehlo.tanh %2 : tensor<1x2x4x4xbf16>
// CHECK:     %4 = stablehlo.multiply %cst_0, %3 : tensor<1x2x4x4xbf16>
// CHECK:     %5 = stablehlo.add %4, %arg3 : tensor<1x2x4x4xbf16>
// CHECK:     %6 = stablehlo.convert %5 : (tensor<1x2x4x4xbf16>) -> tensor<1x2x4x4xf32>
// CHECK:     %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:     %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.maximum across dimensions = [3] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
// CHECK:     %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<1x2x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK:     %9 = stablehlo.subtract %6, %8 : tensor<1x2x4x4xf32>
// CHECK:     %10 = stablehlo.exponential %9 : tensor<1x2x4x4xf32>
// CHECK:     %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %11 = stablehlo.reduce(%10 init: %cst_2) applies stablehlo.add across dimensions = [3] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
// CHECK:     %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2] : (tensor<1x2x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK:     %13 = stablehlo.divide %10, %12 : tensor<1x2x4x4xf32>
// CHECK:     %14 = stablehlo.convert %13 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xbf16>
// CHECK:     %15 = stablehlo.dot_general %14, %arg2, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<1x2x4x4xbf16>, tensor<1x2x4x8xbf16>) -> tensor<1x2x4x8xbf16>
// CHECK:     return %15 : tensor<1x2x4x8xbf16>
// CHECK:   }
// CHECK: }
