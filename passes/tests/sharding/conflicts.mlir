// RUN: sharding-propagate
// Conflicts: a user's (closed) sharding beats a propagated one; two users that disagree
// keep what they share (here nothing); an open argument dimension keeps its axes and only
// gains more. The contraction takes "x" from its settled lhs and "y" from its rhs.
module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func public @main(%a: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %b: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y", ?}, {?}]>}, %c: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}, %w: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x4xf32>) {
    %0 = stablehlo.add %a, %b : tensor<4x8xf32>
    %1 = stablehlo.add %a, %c : tensor<4x8xf32>
    %2 = stablehlo.dot_general %0, %w, contracting_dims = [1] x [1] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
    return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x4xf32>
  }
}
// CHECK: module attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
// CHECK:   sdy.mesh @mesh = <["x"=2, "y"=2]>
// CHECK:   func.func public @main(%arg0: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}, %arg2: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}, %arg3: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}) -> (tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<4x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) {
// CHECK:     %0 = stablehlo.add %arg0, %arg1 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x", ?}, {?}]>]>} : tensor<4x8xf32>
// CHECK:     %1 = stablehlo.add %arg0, %arg2 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{?}, {?}]>]>} : tensor<4x8xf32>
// CHECK:     %2 = stablehlo.dot_general %0, %arg3, contracting_dims = [1] x [1] {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x", ?}, {"y", ?}]>]>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
// CHECK:     return %0, %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x4xf32>
// CHECK:   }
// CHECK: }
