// RUN: fuse,dce
// LayerNorm as the lowering writes it: rows through `batch_norm_training`, then weight and bias.
module {
  func.func public @main(%x: tensor<2x8x16xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<2x8x16xf32> {
    %40 = stablehlo.reshape %x : (tensor<2x8x16xf32>) -> tensor<1x16x16xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<16xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<16xf32>
    %41:3 = "stablehlo.batch_norm_training"(%40, %cst_5, %cst_6) <{epsilon = 1.000000e-05 : f32, feature_index = 1 : i64}> : (tensor<1x16x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<1x16x16xf32>, tensor<16xf32>, tensor<16xf32>)
    %42 = stablehlo.broadcast_in_dim %w, dims = [2] : (tensor<16xf32>) -> tensor<1x16x16xf32>
    %43 = stablehlo.multiply %41#0, %42 : tensor<1x16x16xf32>
    %44 = stablehlo.broadcast_in_dim %b, dims = [2] : (tensor<16xf32>) -> tensor<1x16x16xf32>
    %45 = stablehlo.add %43, %44 : tensor<1x16x16xf32>
    %46 = stablehlo.reshape %45 : (tensor<1x16x16xf32>) -> tensor<2x8x16xf32>
    return %46 : tensor<2x8x16xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x8x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16xf32>) -> tensor<2x8x16xf32> {
// CHECK:     %0 = stablehlo.composite "tpuc.layer_norm" %arg0, %arg1, %arg2 {composite_attributes = {epsilon = 1.000000e-05 : f32, axis = 2 : i64}, decomposition = @tpuc_layer_norm_0, version = 1 : i32} : (tensor<2x8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x8x16xf32>
// CHECK:     return %0 : tensor<2x8x16xf32>
// CHECK:   }
// CHECK:   func.func private @tpuc_layer_norm_0(%arg0: tensor<2x8x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16xf32>) -> tensor<2x8x16xf32> {
// CHECK:     %0 = stablehlo.reshape %arg0 : (tensor<2x8x16xf32>) -> tensor<1x16x16xf32>
// CHECK:     %cst = stablehlo.constant dense<1.000000e+00> : tensor<16xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<16xf32>
// CHECK:     %1:3 = "stablehlo.batch_norm_training"(%0, %cst, %cst_0) <{epsilon = 1.000000e-05 : f32, feature_index = 1 : i64}> : (tensor<1x16x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<1x16x16xf32>, tensor<16xf32>, tensor<16xf32>)
// CHECK:     %2 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<16xf32>) -> tensor<1x16x16xf32>
// CHECK:     %3 = stablehlo.multiply %1#0, %2 : tensor<1x16x16xf32>
// CHECK:     %4 = stablehlo.broadcast_in_dim %arg2, dims = [2] : (tensor<16xf32>) -> tensor<1x16x16xf32>
// CHECK:     %5 = stablehlo.add %3, %4 : tensor<1x16x16xf32>
// CHECK:     %6 = stablehlo.reshape %5 : (tensor<1x16x16xf32>) -> tensor<2x8x16xf32>
// CHECK:     return %6 : tensor<2x8x16xf32>
// CHECK:   }
// CHECK: }
