// RUN: flatten
// Embedding lookups of [batch, sequence] ids (implicit and explicit index vectors) gather
// flattened rows and reshape back; a gather that already has one batch dimension, or whose
// slices do not come last, stays.
module {
  func.func public @main(%arg0: tensor<64x16xf32>, %arg1: tensor<2x8xi64>, %arg2: tensor<2x8x1xi64>, %arg3: tensor<8xi64>, %arg4: tensor<16x64xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<8x16xf32>, tensor<2x16x8xf32>) {
    %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 16>}> : (tensor<64x16xf32>, tensor<2x8xi64>) -> tensor<2x8x16xf32>
    %1 = "stablehlo.gather"(%arg0, %arg2) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 16>}> : (tensor<64x16xf32>, tensor<2x8x1xi64>) -> tensor<2x8x16xf32>
    %2 = "stablehlo.gather"(%arg0, %arg3) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 16>}> : (tensor<64x16xf32>, tensor<8xi64>) -> tensor<8x16xf32>
    %3 = "stablehlo.gather"(%arg4, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 16, 1>}> : (tensor<16x64xf32>, tensor<2x8xi64>) -> tensor<2x16x8xf32>
    return %0, %1, %2, %3 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<8x16xf32>, tensor<2x16x8xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<64x16xf32>, %arg1: tensor<2x8xi64>, %arg2: tensor<2x8x1xi64>, %arg3: tensor<8xi64>, %arg4: tensor<16x64xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<8x16xf32>, tensor<2x16x8xf32>) {
// CHECK:     %0 = stablehlo.reshape %arg1 : (tensor<2x8xi64>) -> tensor<16xi64>
// CHECK:     %1 = "stablehlo.gather"(%arg0, %0) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 16>}> : (tensor<64x16xf32>, tensor<16xi64>) -> tensor<16x16xf32>
// CHECK:     %2 = stablehlo.reshape %1 : (tensor<16x16xf32>) -> tensor<2x8x16xf32>
// CHECK:     %3 = stablehlo.reshape %arg2 : (tensor<2x8x1xi64>) -> tensor<16x1xi64>
// CHECK:     %4 = "stablehlo.gather"(%arg0, %3) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 16>}> : (tensor<64x16xf32>, tensor<16x1xi64>) -> tensor<16x16xf32>
// CHECK:     %5 = stablehlo.reshape %4 : (tensor<16x16xf32>) -> tensor<2x8x16xf32>
// CHECK:     %6 = "stablehlo.gather"(%arg0, %arg3) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 16>}> : (tensor<64x16xf32>, tensor<8xi64>) -> tensor<8x16xf32>
// CHECK:     %7 = "stablehlo.gather"(%arg4, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 16, 1>}> : (tensor<16x64xf32>, tensor<2x8xi64>) -> tensor<2x16x8xf32>
// CHECK:     return %2, %5, %6, %7 : tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<8x16xf32>, tensor<2x16x8xf32>
// CHECK:   }
// CHECK: }
