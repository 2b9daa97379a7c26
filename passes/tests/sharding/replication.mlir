// RUN: sharding-propagate
// Sliced, padded, concatenated and sorted dimensions need replication; the others pass.
module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%a: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) -> (tensor<4x4xf32>, tensor<4x10xf32>, tensor<4x16xf32>, tensor<4x8xf32>) {
    %0 = stablehlo.slice %a [0:4, 0:4] : (tensor<4x8xf32>) -> tensor<4x4xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.pad %a, %zero, low = [0, 1], high = [0, 1], interior = [0, 0] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x10xf32>
    %2 = stablehlo.concatenate %a, %a, dim = 1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
    %3 = "stablehlo.sort"(%a) <{dimension = 1 : i64, is_stable = false}> ({
    ^bb0(%l: tensor<f32>, %r: tensor<f32>):
      %c = stablehlo.compare  LT, %l, %r : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %0, %1, %2, %3 : tensor<4x4xf32>, tensor<4x10xf32>, tensor<4x16xf32>, tensor<4x8xf32>
  }
}
// CHECK: module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
// CHECK:   sdy.mesh @mesh = <["x"=2, "y"=2]>
// CHECK:   func.func public @main(%arg0: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) -> (tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, tensor<4x10xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, tensor<4x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
// CHECK:     %0 = stablehlo.slice %arg0 [0:4, 0:4] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x", ?}, {?}]>]>} : (tensor<4x8xf32>) -> tensor<4x4xf32>
// CHECK:     %cst = stablehlo.constant {sdy.sharding = #sdy.sharding_per_value<[<@mesh, []>]>} dense<0.000000e+00> : tensor<f32>
// CHECK:     %1 = stablehlo.pad %arg0, %cst, low = [0, 1], high = [0, 1], interior = [0, 0] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x", ?}, {?}]>]>} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4x10xf32>
// CHECK:     %2 = stablehlo.concatenate %arg0, %arg0, dim = 1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x", ?}, {?}]>]>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
// CHECK:     %3 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = false}> ({
// CHECK:     ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
// CHECK:       %4 = stablehlo.compare  LT, %arg1, %arg2 : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK:       stablehlo.return %4 : tensor<i1>
// CHECK:     }) {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x", ?}, {?}]>]>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK:     return %0, %1, %2, %3 : tensor<4x4xf32>, tensor<4x10xf32>, tensor<4x16xf32>, tensor<4x8xf32>
// CHECK:   }
// CHECK: }
