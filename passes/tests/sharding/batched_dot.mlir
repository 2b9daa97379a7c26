// RUN: sharding-propagate
// Attention scores: batch and heads are batching factors shared by q, k and the scores.
module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["dp"=2, "tp"=2]>
  func.func public @main(%q: tensor<2x4x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}, {"tp"}, {}, {}]>}, %k: tensor<2x4x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{?}, {?}, {?}, {?}]>}) -> tensor<2x4x8x8xf32> {
    %0 = stablehlo.dot_general %q, %k, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x8xf32>
    return %0 : tensor<2x4x8x8xf32>
  }
}
// CHECK: module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
// CHECK:   sdy.mesh @mesh = <["dp"=2, "tp"=2]>
// CHECK:   func.func public @main(%arg0: tensor<2x4x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}, {"tp"}, {}, {}]>}, %arg1: tensor<2x4x8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}, {"tp"}, {}, {}]>}) -> (tensor<2x4x8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}, {"tp"}, {}, {}]>}) {
// CHECK:     %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"dp", ?}, {"tp", ?}, {?}, {?}]>]>} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x8xf32>
// CHECK:     return %0 : tensor<2x4x8x8xf32>
// CHECK:   }
// CHECK: }
