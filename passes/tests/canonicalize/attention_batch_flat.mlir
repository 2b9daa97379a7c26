// RUN: flatten
// Attention batching over [batch, heads] contracts with those dimensions flattened into one,
// and the result is reshaped back; a product torch's decomposition already flattened stays so.
// A product with a transposed operand keeps its batch dimensions: flattening would copy it.
module {
  func.func public @main(%arg0: tensor<2x4x16x8xf32>, %arg1: tensor<2x4x16x8xf32>, %arg2: tensor<8x16x8xf32>, %arg3: tensor<8x8x16xf32>, %arg4: tensor<2x16x4x8xf32>) -> (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) {
    %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x16xf32>
    %1 = stablehlo.dot_general %arg2, %arg3, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<8x16x8xf32>, tensor<8x8x16xf32>) -> tensor<8x16x16xf32>
    %2 = stablehlo.reshape %1 : (tensor<8x16x16xf32>) -> tensor<2x4x16x16xf32>
    %3 = stablehlo.transpose %arg4, dims = [0, 2, 1, 3] : (tensor<2x16x4x8xf32>) -> tensor<2x4x16x8xf32>
    %4 = stablehlo.dot_general %arg0, %3, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x16xf32>
    return %0, %2, %4 : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x4x16x8xf32>, %arg1: tensor<2x4x16x8xf32>, %arg2: tensor<8x16x8xf32>, %arg3: tensor<8x8x16xf32>, %arg4: tensor<2x16x4x8xf32>) -> (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) {
// CHECK:     %0 = stablehlo.reshape %arg0 : (tensor<2x4x16x8xf32>) -> tensor<8x16x8xf32>
// CHECK:     %1 = stablehlo.reshape %arg1 : (tensor<2x4x16x8xf32>) -> tensor<8x16x8xf32>
// CHECK:     %2 = stablehlo.dot_general %0, %1, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<8x16x8xf32>, tensor<8x16x8xf32>) -> tensor<8x16x16xf32>
// CHECK:     %3 = stablehlo.reshape %2 : (tensor<8x16x16xf32>) -> tensor<2x4x16x16xf32>
// CHECK:     %4 = stablehlo.dot_general %arg2, %arg3, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<8x16x8xf32>, tensor<8x8x16xf32>) -> tensor<8x16x16xf32>
// CHECK:     %5 = stablehlo.reshape %4 : (tensor<8x16x16xf32>) -> tensor<2x4x16x16xf32>
// CHECK:     %6 = stablehlo.transpose %arg4, dims = [0, 2, 1, 3] : (tensor<2x16x4x8xf32>) -> tensor<2x4x16x8xf32>
// CHECK:     %7 = stablehlo.dot_general %arg0, %6, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x16xf32>
// CHECK:     return %3, %5, %7 : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>
// CHECK:   }
// CHECK: }
