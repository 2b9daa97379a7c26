// RUN: canonicalize
// A per-feature bias added before batch_norm_inference moves into its mean.
module {
  func.func public @main(%arg0: tensor<2x8x4x4xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8xf32>, %arg3: tensor<8xf32>, %arg4: tensor<8xf32>, %arg5: tensor<8xf32>) -> tensor<2x8x4x4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<8xf32>) -> tensor<2x8x4x4xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<2x8x4x4xf32>
    %2 = "stablehlo.batch_norm_inference"(%1, %arg2, %arg3, %arg4, %arg5) <{epsilon = 1.000000e-05 : f32, feature_index = 1 : i64}> : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
    return %2 : tensor<2x8x4x4xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x8x4x4xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8xf32>, %arg3: tensor<8xf32>, %arg4: tensor<8xf32>, %arg5: tensor<8xf32>) -> tensor<2x8x4x4xf32> {
// CHECK:     %0 = stablehlo.subtract %arg4, %arg1 : tensor<8xf32>
// CHECK:     %1 = "stablehlo.batch_norm_inference"(%arg0, %arg2, %arg3, %0, %arg5) <{epsilon = 1.000000e-05 : f32, feature_index = 1 : i64}> : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8x4x4xf32>
// CHECK:     return %1 : tensor<2x8x4x4xf32>
// CHECK:   }
// CHECK: }
