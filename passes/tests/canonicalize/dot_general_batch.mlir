// RUN: canonicalize
// Attention as the core decomposition writes it: heads folded into one batch dimension by
// reshapes, transposes around a scaled operand. Batching over both dimensions lets the
// transposes fold into the contraction.
module {
  func.func public @main(%arg0: tensor<2x16x4x8xf32>, %arg1: tensor<2x16x4x8xf32>) -> tensor<2x4x16x16xf32> {
    %0 = stablehlo.transpose %arg0, dims = [0, 2, 1, 3] : (tensor<2x16x4x8xf32>) -> tensor<2x4x16x8xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<2x4x16x8xf32>
    %1 = stablehlo.multiply %0, %cst : tensor<2x4x16x8xf32>
    %2 = stablehlo.transpose %arg1, dims = [0, 2, 3, 1] : (tensor<2x16x4x8xf32>) -> tensor<2x4x8x16xf32>
    %3 = stablehlo.reshape %1 : (tensor<2x4x16x8xf32>) -> tensor<8x16x8xf32>
    %4 = stablehlo.reshape %2 : (tensor<2x4x8x16xf32>) -> tensor<8x8x16xf32>
    %5 = stablehlo.dot_general %3, %4, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<8x16x8xf32>, tensor<8x8x16xf32>) -> tensor<8x16x16xf32>
    %6 = stablehlo.reshape %5 : (tensor<8x16x16xf32>) -> tensor<2x4x16x16xf32>
    return %6 : tensor<2x4x16x16xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x16x4x8xf32>, %arg1: tensor<2x16x4x8xf32>) -> tensor<2x4x16x16xf32> {
// CHECK:     %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3] : (tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>) -> tensor<2x4x16x16xf32>
// CHECK:     %cst = stablehlo.constant dense<5.000000e-01> : tensor<2x4x16x16xf32>
// CHECK:     %1 = stablehlo.multiply %0, %cst : tensor<2x4x16x16xf32>
// CHECK:     return %1 : tensor<2x4x16x16xf32>
// CHECK:   }
// CHECK: }
