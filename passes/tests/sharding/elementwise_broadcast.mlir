// RUN: sharding-propagate
// The batch split of %x flows through the elementwise chain and the broadcast bias; the bias
// argument is open, so it stays unsharded (the broadcast gives it no batch dimension).
module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["dp"=2]>
  func.func public @main(%x: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}, {}]>}, %b: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{?}]>}) -> tensor<4x8xf32> {
    %0 = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<8xf32>) -> tensor<4x8xf32>
    %1 = stablehlo.add %x, %0 : tensor<4x8xf32>
    %2 = stablehlo.tanh %1 : tensor<4x8xf32>
    return %2 : tensor<4x8xf32>
  }
}
// CHECK: module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
// CHECK:   sdy.mesh @mesh = <["dp"=2]>
// CHECK:   func.func public @main(%arg0: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}, {}]>}, %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) -> (tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}, {}]>}) {
// CHECK:     %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"dp", ?}, {?}]>]>} : (tensor<8xf32>) -> tensor<4x8xf32>
// CHECK:     %1 = stablehlo.add %arg0, %0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"dp", ?}, {?}]>]>} : tensor<4x8xf32>
// CHECK:     %2 = stablehlo.tanh %1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"dp", ?}, {?}]>]>} : tensor<4x8xf32>
// CHECK:     return %2 : tensor<4x8xf32>
// CHECK:   }
// CHECK: }
