// RUN: canonicalize
// A linear layer on flattened rows, as the core decomposition writes it (view, mm, bias, view),
// stays on flattened rows: libtpu reads fewer bytes for the matrix product than for a product
// of the unflattened input (and a linear on unflattened rows, as the training dialect writes
// it, is flattened).
module {
  func.func public @main(%arg0: tensor<2x16x64xf32>, %arg1: tensor<192x64xf32>, %arg2: tensor<192xf32>, %arg3: tensor<4x4x6xf32>, %arg4: tensor<12x6xf32>, %arg5: tensor<2x8x6xf32>) -> (tensor<2x16x192xf32>, tensor<4x4x12xf32>, tensor<2x8x12xf32>) {
    %0 = stablehlo.reshape %arg0 : (tensor<2x16x64xf32>) -> tensor<32x64xf32>
    %1 = stablehlo.dot_general %0, %arg1, contracting_dims = [1] x [1] : (tensor<32x64xf32>, tensor<192x64xf32>) -> tensor<32x192xf32>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<192xf32>) -> tensor<32x192xf32>
    %3 = stablehlo.add %1, %2 : tensor<32x192xf32>
    %4 = stablehlo.reshape %3 : (tensor<32x192xf32>) -> tensor<2x16x192xf32>
    %5 = stablehlo.reshape %arg3 : (tensor<4x4x6xf32>) -> tensor<16x6xf32>
    %6 = stablehlo.dot_general %5, %arg4, contracting_dims = [1] x [1] : (tensor<16x6xf32>, tensor<12x6xf32>) -> tensor<16x12xf32>
    %7 = stablehlo.reshape %6 : (tensor<16x12xf32>) -> tensor<4x4x12xf32>
    %8 = stablehlo.dot_general %arg5, %arg4, contracting_dims = [2] x [1] : (tensor<2x8x6xf32>, tensor<12x6xf32>) -> tensor<2x8x12xf32>
    return %4, %7, %8 : tensor<2x16x192xf32>, tensor<4x4x12xf32>, tensor<2x8x12xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x16x64xf32>, %arg1: tensor<192x64xf32>, %arg2: tensor<192xf32>, %arg3: tensor<4x4x6xf32>, %arg4: tensor<12x6xf32>, %arg5: tensor<2x8x6xf32>) -> (tensor<2x16x192xf32>, tensor<4x4x12xf32>, tensor<2x8x12xf32>) {
// CHECK:     %0 = stablehlo.reshape %arg0 : (tensor<2x16x64xf32>) -> tensor<32x64xf32>
// CHECK:     %1 = stablehlo.dot_general %0, %arg1, contracting_dims = [1] x [1] : (tensor<32x64xf32>, tensor<192x64xf32>) -> tensor<32x192xf32>
// CHECK:     %2 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<192xf32>) -> tensor<32x192xf32>
// CHECK:     %3 = stablehlo.add %1, %2 : tensor<32x192xf32>
// CHECK:     %4 = stablehlo.reshape %3 : (tensor<32x192xf32>) -> tensor<2x16x192xf32>
// CHECK:     %5 = stablehlo.reshape %arg3 : (tensor<4x4x6xf32>) -> tensor<16x6xf32>
// CHECK:     %6 = stablehlo.dot_general %5, %arg4, contracting_dims = [1] x [1] : (tensor<16x6xf32>, tensor<12x6xf32>) -> tensor<16x12xf32>
// CHECK:     %7 = stablehlo.reshape %6 : (tensor<16x12xf32>) -> tensor<4x4x12xf32>
// CHECK:     %8 = stablehlo.reshape %arg5 : (tensor<2x8x6xf32>) -> tensor<16x6xf32>
// CHECK:     %9 = stablehlo.dot_general %8, %arg4, contracting_dims = [1] x [1] : (tensor<16x6xf32>, tensor<12x6xf32>) -> tensor<16x12xf32>
// CHECK:     %10 = stablehlo.reshape %9 : (tensor<16x12xf32>) -> tensor<2x8x12xf32>
// CHECK:     return %4, %7, %10 : tensor<2x16x192xf32>, tensor<4x4x12xf32>, tensor<2x8x12xf32>
// CHECK:   }
// CHECK: }
