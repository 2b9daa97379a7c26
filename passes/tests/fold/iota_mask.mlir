// RUN: fold
// A causal mask computed from positions folds to one constant; the iota other users need stays.
module {
  func.func public @main(%arg0: tensor<4x8xf32>) -> (tensor<4x4xf32>, tensor<4x8xf32>) {
    %0 = stablehlo.iota dim = 0 : tensor<4xi64>
    %1 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<4xi64>) -> tensor<4x4xi64>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<4xi64>) -> tensor<4x4xi64>
    %3 = stablehlo.compare  LE, %1, %2,  SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<4x4xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<4x4xf32>
    %4 = stablehlo.select %3, %cst, %cst_0 : tensor<4x4xi1>, tensor<4x4xf32>
    %5 = "stablehlo.gather"(%arg0, %0) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 8>}> : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
    return %4, %5 : tensor<4x4xf32>, tensor<4x8xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4x8xf32>) -> (tensor<4x4xf32>, tensor<4x8xf32>) {
// CHECK:     %0 = stablehlo.iota dim = 0 : tensor<4xi64>
// CHECK:     %cst = stablehlo.constant dense<[[0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<4x4xf32>
// CHECK:     %1 = "stablehlo.gather"(%arg0, %0) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 8>}> : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<4x8xf32>
// CHECK:     return %cst, %1 : tensor<4x4xf32>, tensor<4x8xf32>
// CHECK:   }
// CHECK: }
