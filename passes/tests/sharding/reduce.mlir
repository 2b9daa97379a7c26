// RUN: sharding-propagate
// A reduction keeps the batch split; the reduced dimension's sharding does not reach the result.
module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["dp"=2, "tp"=2]>
  func.func public @main(%x: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}, {"tp"}]>}) -> tensor<4xf32> {
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
// CHECK: module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
// CHECK:   sdy.mesh @mesh = <["dp"=2, "tp"=2]>
// CHECK:   func.func public @main(%arg0: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}, {"tp"}]>}) -> (tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}]>}) {
// CHECK:     %cst = stablehlo.constant {sdy.sharding = #sdy.sharding_per_value<[<@mesh, []>]>} dense<0.000000e+00> : tensor<f32>
// CHECK:     %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"dp", ?}]>]>} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK:     return %0 : tensor<4xf32>
// CHECK:   }
// CHECK: }
