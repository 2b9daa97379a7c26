// RUN: sharding-propagate
// Megatron MLP: a column-split weight shards the hidden features, the row-split weight's
// contracting dimension meets them (a reduction factor), and the output is unsplit.
module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["dp"=2, "tp"=2]>
  func.func public @main(%x: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}, {}]>}, %up: tensor<32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"tp"}, {}]>}, %down: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"tp"}]>}) -> tensor<8x16xf32> {
    %0 = stablehlo.dot_general %x, %up, contracting_dims = [1] x [1] : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
    %1 = stablehlo.logistic %0 : tensor<8x32xf32>
    %2 = stablehlo.dot_general %1, %down, contracting_dims = [1] x [1] : (tensor<8x32xf32>, tensor<16x32xf32>) -> tensor<8x16xf32>
    return %2 : tensor<8x16xf32>
  }
}
// CHECK: module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
// CHECK:   sdy.mesh @mesh = <["dp"=2, "tp"=2]>
// CHECK:   func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}, {}]>}, %arg1: tensor<32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"tp"}, {}]>}, %arg2: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"tp"}]>}) -> (tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}, {}]>}) {
// CHECK:     %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"dp", ?}, {"tp", ?}]>]>} : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
// CHECK:     %1 = stablehlo.logistic %0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"dp", ?}, {"tp", ?}]>]>} : tensor<8x32xf32>
// CHECK:     %2 = stablehlo.dot_general %1, %arg2, contracting_dims = [1] x [1] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"dp", ?}, {?}]>]>} : (tensor<8x32xf32>, tensor<16x32xf32>) -> tensor<8x16xf32>
// CHECK:     return %2 : tensor<8x16xf32>
// CHECK:   }
// CHECK: }
