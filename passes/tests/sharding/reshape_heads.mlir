// RUN: sharding-propagate
// Reshape with compound factors: [2, 16, 64] -> [2, 16, 4, 16] carries "tp" (4) onto the
// heads; a split of 32 = 2 heads x 16 by 4 would cut a head, so it does not flow.
module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["tp"=4]>
  func.func public @main(%q: tensor<2x16x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"tp"}]>}, %k: tensor<2x16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"tp"}]>}) -> (tensor<2x4x16x16xf32>, tensor<2x16x2x16xf32>) {
    %0 = stablehlo.reshape %q : (tensor<2x16x64xf32>) -> tensor<2x16x4x16xf32>
    %1 = stablehlo.transpose %0, dims = [0, 2, 1, 3] : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
    %2 = stablehlo.reshape %k : (tensor<2x16x32xf32>) -> tensor<2x16x2x16xf32>
    return %1, %2 : tensor<2x4x16x16xf32>, tensor<2x16x2x16xf32>
  }
}
// CHECK: module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
// CHECK:   sdy.mesh @mesh = <["tp"=4]>
// CHECK:   func.func public @main(%arg0: tensor<2x16x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"tp"}]>}, %arg1: tensor<2x16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {"tp"}]>}) -> (tensor<2x4x16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"tp"}, {}, {}]>}, tensor<2x16x2x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}, {}, {}]>}) {
// CHECK:     %0 = stablehlo.reshape %arg0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{?}, {?}, {"tp", ?}, {?}]>]>} : (tensor<2x16x64xf32>) -> tensor<2x16x4x16xf32>
// CHECK:     %1 = stablehlo.transpose %0, dims = [0, 2, 1, 3] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{?}, {"tp", ?}, {?}, {?}]>]>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
// CHECK:     %2 = stablehlo.reshape %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{?}, {?}, {?}, {?}]>]>} : (tensor<2x16x32xf32>) -> tensor<2x16x2x16xf32>
// CHECK:     return %1, %2 : tensor<2x4x16x16xf32>, tensor<2x16x2x16xf32>
// CHECK:   }
// CHECK: }
