// RUN: canonicalize
// A transposed operand of dot_general is read in place through its dimension numbers, unless
// that would reorder the result's dimensions or move the operand's batch dimensions from the
// front: attention's values transposed to [batch, heads, keys, dim] stay transposed.
module {
  func.func public @main(%arg0: tensor<4x8xf32>, %arg1: tensor<16x8xf32>, %arg2: tensor<2x3x4xf32>, %arg3: tensor<2x8x4x16xf32>, %arg4: tensor<2x4x8x8xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<2x4x8x16xf32>) {
    %0 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %1 = stablehlo.dot_general %arg0, %0, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %2 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %3 = stablehlo.dot_general %2, %arg1, contracting_dims = [0] x [1] : (tensor<8x4xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
    %4 = stablehlo.transpose %arg3, dims = [0, 2, 1, 3] : (tensor<2x8x4x16xf32>) -> tensor<2x4x8x16xf32>
    %5 = stablehlo.dot_general %arg4, %4, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
    return %1, %3, %5 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<2x4x8x16xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4x8xf32>, %arg1: tensor<16x8xf32>, %arg2: tensor<2x3x4xf32>, %arg3: tensor<2x8x4x16xf32>, %arg4: tensor<2x4x8x8xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<2x4x8x16xf32>) {
// CHECK:     %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
// CHECK:     %1 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
// CHECK:     %2 = stablehlo.transpose %arg3, dims = [0, 2, 1, 3] : (tensor<2x8x4x16xf32>) -> tensor<2x4x8x16xf32>
// CHECK:     %3 = stablehlo.dot_general %arg4, %2, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
// CHECK:     return %0, %1, %3 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<2x4x8x16xf32>
// CHECK:   }
// CHECK: }
