// RUN: sharding-propagate
// An embedding lookup: the indices' batch flows to the result, the table's hidden split to
// the result's hidden dimension; a vocabulary split stays on the table.
module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["dp"=2, "tp"=2]>
  func.func public @main(%table: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"tp"}]>}, %ids: tensor<4x3xi64> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}, {}]>}) -> tensor<4x3x8xf32> {
    %0 = "stablehlo.gather"(%table, %ids) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 8>}> : (tensor<16x8xf32>, tensor<4x3xi64>) -> tensor<4x3x8xf32>
    return %0 : tensor<4x3x8xf32>
  }
}
// CHECK: module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
// CHECK:   sdy.mesh @mesh = <["dp"=2, "tp"=2]>
// CHECK:   func.func public @main(%arg0: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"tp"}]>}, %arg1: tensor<4x3xi64> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}, {}]>}) -> (tensor<4x3x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}, {}, {"tp"}]>}) {
// CHECK:     %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 8>}> {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"dp", ?}, {?}, {"tp", ?}]>]>} : (tensor<16x8xf32>, tensor<4x3xi64>) -> tensor<4x3x8xf32>
// CHECK:     return %0 : tensor<4x3x8xf32>
// CHECK:   }
// CHECK: }
