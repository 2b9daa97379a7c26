// RUN: fuse,dce
// bf16 attention with a boolean mask operand and the softmax upcast to f32 (as Hugging Face's
// eager attention writes it): softmax_f32 = true, the mask is the fourth operand.
module {
  func.func public @main(%q: tensor<1x2x4x8xbf16>, %k: tensor<1x2x4x8xbf16>, %v: tensor<1x2x4x8xbf16>, %mask: tensor<1x2x4x4xi1>) -> tensor<1x2x4x8xbf16> {
    %0 = stablehlo.dot_general %q, %k, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>) -> tensor<1x2x4x4xbf16>
    %cst = stablehlo.constant dense<3.535160e-01> : tensor<1x2x4x4xbf16>
    %1 = stablehlo.multiply %0, %cst : tensor<1x2x4x4xbf16>
    %cst_0 = stablehlo.constant dense<0xFF80> : tensor<1x2x4x4xbf16>
    %2 = stablehlo.select %mask, %1, %cst_0 : tensor<1x2x4x4xi1>, tensor<1x2x4x4xbf16>
    %3 = stablehlo.convert %2 : (tensor<1x2x4x4xbf16>) -> tensor<1x2x4x4xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_1) applies stablehlo.maximum across dimensions = [3] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1, 2] : (tensor<1x2x4xf32>) -> tensor<1x2x4x4xf32>
    %6 = stablehlo.subtract %3, %5 : tensor<1x2x4x4xf32>
    %7 = stablehlo.exponential %6 : tensor<1x2x4x4xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.reduce(%7 init: %cst_2) applies stablehlo.add across dimensions = [3] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x2x4xf32>) -> tensor<1x2x4x4xf32>
    %10 = stablehlo.divide %7, %9 : tensor<1x2x4x4xf32>
    %11 = stablehlo.convert %10 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xbf16>
    %12 = stablehlo.dot_general %11, %v, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<1x2x4x4xbf16>, tensor<1x2x4x8xbf16>) -> tensor<1x2x4x8xbf16>
    return %12 : tensor<1x2x4x8xbf16>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<1x2x4x8xbf16>, %arg1: tensor<1x2x4x8xbf16>, %arg2: tensor<1x2x4x8xbf16>, %arg3: tensor<1x2x4x4xi1>) -> tensor<1x2x4x8xbf16> {
// CHECK:     %0 = stablehlo.composite "tpuc.scaled_dot_product_attention" %arg0, %arg1, %arg2, %arg3 {composite_attributes = {scale = 3.5351563e-01 : f32, causal = false, heads = 2 : i64, kv_heads = 2 : i64, softmax_f32 = true}, decomposition = @tpuc_scaled_dot_product_attention_0, version = 1 : i32} : (tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>, tensor<1x2x4x4xi1>) -> tensor<1x2x4x8xbf16>
// CHECK:     return %0 : tensor<1x2x4x8xbf16>
// CHECK:   }
// CHECK:   func.func private @tpuc_scaled_dot_product_attention_0(%arg0: tensor<1x2x4x8xbf16>, %arg1: tensor<1x2x4x8xbf16>, %arg2: tensor<1x2x4x8xbf16>, %arg3: tensor<1x2x4x4xi1>) -> tensor<1x2x4x8xbf16> {
// CHECK:     %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>) -> tensor<1x2x4x4xbf16>
// CHECK:     %cst = stablehlo.constant dense<3.535156e-01> : tensor<1x2x4x4xbf16>
// CHECK:     %1 = stablehlo.multiply %0, %cst : tensor<1x2x4x4xbf16>
// CHECK:     %cst_0 = stablehlo.constant dense<0xFF80> : tensor<1x2x4x4xbf16>
// CHECK:     %2 = stablehlo.select %arg3, %1, %cst_0 : tensor<1x2x4x4xi1>, tensor<1x2x4x4xbf16>
// CHECK:     %3 = stablehlo.convert %2 : (tensor<1x2x4x4xbf16>) -> tensor<1x2x4x4xf32>
// CHECK:     %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:     %4 = stablehlo.reduce(%3 init: %cst_1) applies stablehlo.maximum across dimensions = [3] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
// CHECK:     %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1, 2] : (tensor<1x2x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK:     %6 = stablehlo.subtract %3, %5 : tensor<1x2x4x4xf32>
// CHECK:     %7 = stablehlo.exponential %6 : tensor<1x2x4x4xf32>
// CHECK:     %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %8 = stablehlo.reduce(%7 init: %cst_2) applies stablehlo.add across dimensions = [3] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4xf32>
// CHECK:     %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x2x4xf32>) -> tensor<1x2x4x4xf32>
// CHECK:     %10 = stablehlo.divide %7, %9 : tensor<1x2x4x4xf32>
// CHECK:     %11 = stablehlo.convert %10 : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xbf16>
// CHECK:     %12 = stablehlo.dot_general %11, %arg2, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<1x2x4x4xbf16>, tensor<1x2x4x8xbf16>) -> tensor<1x2x4x8xbf16>
// CHECK:     return %12 : tensor<1x2x4x8xbf16>
// CHECK:   }
// CHECK: }
