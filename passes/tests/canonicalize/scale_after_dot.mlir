// RUN: canonicalize
// Scales by constants move past the contraction and combine: queries and keys each scaled by
// 1/sqrt(sqrt(d)), as the core decomposition of attention writes it, become one scale of the
// scores; a repeated (grouped-query) key batches after one regrouping reshape.
module {
  func.func public @main(%arg0: tensor<2x4x16x8xf32>, %arg1: tensor<2x2x16x8xf32>) -> tensor<2x4x16x16xf32> {
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<2x4x16x8xf32>
    %0 = stablehlo.multiply %arg0, %cst : tensor<2x4x16x8xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1, 3, 4] : (tensor<2x2x16x8xf32>) -> tensor<2x2x2x16x8xf32>
    %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<2x2x2x16x8xf32>
    %2 = stablehlo.multiply %1, %cst_0 : tensor<2x2x2x16x8xf32>
    %3 = stablehlo.reshape %0 : (tensor<2x4x16x8xf32>) -> tensor<8x16x8xf32>
    %4 = stablehlo.reshape %2 : (tensor<2x2x2x16x8xf32>) -> tensor<8x16x8xf32>
    %5 = stablehlo.dot_general %3, %4, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<8x16x8xf32>, tensor<8x16x8xf32>) -> tensor<8x16x16xf32>
    %6 = stablehlo.reshape %5 : (tensor<8x16x16xf32>) -> tensor<2x4x16x16xf32>
    return %6 : tensor<2x4x16x16xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x4x16x8xf32>, %arg1: tensor<2x2x16x8xf32>) -> tensor<2x4x16x16xf32> {
// CHECK:     %0 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1, 3, 4] : (tensor<2x2x16x8xf32>) -> tensor<2x2x2x16x8xf32>
// CHECK:     %1 = stablehlo.reshape %0 : (tensor<2x2x2x16x8xf32>) -> tensor<2x4x16x8xf32>
// CHECK:     %2 = stablehlo.dot_general %arg0, %1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x16xf32>
// CHECK:     %cst = stablehlo.constant dense<2.500000e-01> : tensor<2x4x16x16xf32>
// CHECK:     %3 = stablehlo.multiply %2, %cst : tensor<2x4x16x16xf32>
// CHECK:     return %3 : tensor<2x4x16x16xf32>
// CHECK:   }
// CHECK: }
