// RUN: fuse,dce
// LayerNorm on rows already `[1, R, D]` (batch 1): no reshapes around `batch_norm_training`.
module {
  func.func public @main(%x: tensor<1x8x32xf32>, %w: tensor<32xf32>, %b: tensor<32xf32>) -> tensor<1x8x32xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<8xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<8xf32>
    %46:3 = "stablehlo.batch_norm_training"(%x, %cst, %cst_8) <{epsilon = 1.000000e-05 : f32, feature_index = 1 : i64}> : (tensor<1x8x32xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<1x8x32xf32>, tensor<8xf32>, tensor<8xf32>)
    %47 = stablehlo.broadcast_in_dim %w, dims = [2] : (tensor<32xf32>) -> tensor<1x8x32xf32>
    %48 = stablehlo.multiply %46#0, %47 : tensor<1x8x32xf32>
    %49 = stablehlo.broadcast_in_dim %b, dims = [2] : (tensor<32xf32>) -> tensor<1x8x32xf32>
    %50 = stablehlo.add %48, %49 : tensor<1x8x32xf32>
    return %50 : tensor<1x8x32xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<1x8x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32xf32>) -> tensor<1x8x32xf32> {
// CHECK:     %0 = stablehlo.composite "tpuc.layer_norm" %arg0, %arg1, %arg2 {composite_attributes = {epsilon = 1.000000e-05 : f32, axis = 2 : i64}, decomposition = @tpuc_layer_norm_0, version = 1 : i32} : (tensor<1x8x32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<1x8x32xf32>
// CHECK:     return %0 : tensor<1x8x32xf32>
// CHECK:   }
// CHECK:   func.func private @tpuc_layer_norm_0(%arg0: tensor<1x8x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32xf32>) -> tensor<1x8x32xf32> {
// CHECK:     %cst = stablehlo.constant dense<1.000000e+00> : tensor<8xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<8xf32>
// CHECK:     %0:3 = "stablehlo.batch_norm_training"(%arg0, %cst, %cst_0) <{epsilon = 1.000000e-05 : f32, feature_index = 1 : i64}> : (tensor<1x8x32xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<1x8x32xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK:     %1 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<32xf32>) -> tensor<1x8x32xf32>
// CHECK:     %2 = stablehlo.multiply %0#0, %1 : tensor<1x8x32xf32>
// CHECK:     %3 = stablehlo.broadcast_in_dim %arg2, dims = [2] : (tensor<32xf32>) -> tensor<1x8x32xf32>
// CHECK:     %4 = stablehlo.add %2, %3 : tensor<1x8x32xf32>
// CHECK:     return %4 : tensor<1x8x32xf32>
// CHECK:   }
// CHECK: }
