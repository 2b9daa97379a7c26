// RUN: canonicalize
// Attention as the core decomposition writes it: heads folded into one batch dimension by
// reshapes, transposes around a scaled operand. The contraction batches over both dimensions;
// the transposes stay, as the batch dimensions would not lead if they folded (the form
// libtpu's fused attention matches).
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
// CHECK:     %0 = stablehlo.transpose %arg0, dims = [0, 2, 1, 3] : (tensor<2x16x4x8xf32>) -> tensor<2x4x16x8xf32>
// CHECK:     %1 = stablehlo.transpose %arg1, dims = [0, 2, 3, 1] : (tensor<2x16x4x8xf32>) -> tensor<2x4x8x16xf32>
// CHECK:     %2 = stablehlo.dot_general %0, %1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<2x4x16x8xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x16x16xf32>
// CHECK:     %cst = stablehlo.constant dense<5.000000e-01> : tensor<2x4x16x16xf32>
// CHECK:     %3 = stablehlo.multiply %2, %cst : tensor<2x4x16x16xf32>
// CHECK:     return %3 : tensor<2x4x16x16xf32>
// CHECK:   }
// CHECK: }
