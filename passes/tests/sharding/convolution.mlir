// RUN: sharding-propagate
// Convolution: the batch passes through, output features follow the kernel, spatial
// dimensions stay whole.
module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["dp"=2, "tp"=2]>
  func.func public @main(%x: tensor<4x3x8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}, {}, {}, {}]>}, %w: tensor<6x3x3x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"tp"}, {}, {}, {}]>}) -> tensor<4x6x6x6xf32> {
    %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<4x3x8x8xf32>, tensor<6x3x3x3xf32>) -> tensor<4x6x6x6xf32>
    return %0 : tensor<4x6x6x6xf32>
  }
}
// CHECK: module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
// CHECK:   sdy.mesh @mesh = <["dp"=2, "tp"=2]>
// CHECK:   func.func public @main(%arg0: tensor<4x3x8x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}, {}, {}, {}]>}, %arg1: tensor<6x3x3x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"tp"}, {}, {}, {}]>}) -> (tensor<4x6x6x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}, {"tp"}, {}, {}]>}) {
// CHECK:     %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"dp", ?}, {"tp", ?}, {?}, {?}]>]>} : (tensor<4x3x8x8xf32>, tensor<6x3x3x3xf32>) -> tensor<4x6x6x6xf32>
// CHECK:     return %0 : tensor<4x6x6x6xf32>
// CHECK:   }
// CHECK: }
