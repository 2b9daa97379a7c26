// RUN: fuse,dce
// The batch mean is used too: it would escape a LayerNorm composite, so nothing is fused.
module {
  func.func public @main(%x: tensor<2x8x16xf32>) -> (tensor<2x8x16xf32>, tensor<16xf32>) {
    %40 = stablehlo.reshape %x : (tensor<2x8x16xf32>) -> tensor<1x16x16xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<16xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<16xf32>
    %41:3 = "stablehlo.batch_norm_training"(%40, %cst_5, %cst_6) <{epsilon = 1.000000e-05 : f32, feature_index = 1 : i64}> : (tensor<1x16x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<1x16x16xf32>, tensor<16xf32>, tensor<16xf32>)
    %46 = stablehlo.reshape %41#0 : (tensor<1x16x16xf32>) -> tensor<2x8x16xf32>
    return %46, %41#1 : tensor<2x8x16xf32>, tensor<16xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x8x16xf32>) -> (tensor<2x8x16xf32>, tensor<16xf32>) {
// CHECK:     %0 = stablehlo.reshape %arg0 : (tensor<2x8x16xf32>) -> tensor<1x16x16xf32>
// CHECK:     %cst = stablehlo.constant dense<1.000000e+00> : tensor<16xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<16xf32>
// CHECK:     %1:3 = "stablehlo.batch_norm_training"(%0, %cst, %cst_0) <{epsilon = 1.000000e-05 : f32, feature_index = 1 : i64}> : (tensor<1x16x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<1x16x16xf32>, tensor<16xf32>, tensor<16xf32>)
// CHECK:     %2 = stablehlo.reshape %1#0 : (tensor<1x16x16xf32>) -> tensor<2x8x16xf32>
// CHECK:     return %2, %1#1 : tensor<2x8x16xf32>, tensor<16xf32>
// CHECK:   }
// CHECK: }
