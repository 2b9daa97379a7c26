// RUN: sharding-propagate
// Control flow is left to XLA: nothing propagates through a while loop, and it carries no
// sharding of its own.
module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["dp"=2]>
  func.func public @main(%x: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}]>}) -> tensor<4xf32> {
    %0 = stablehlo.while(%iter = %x) : tensor<4xf32>
     cond {
      %c = stablehlo.constant dense<true> : tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %n = stablehlo.negate %iter : tensor<4xf32>
      stablehlo.return %n : tensor<4xf32>
    }
    %1 = stablehlo.abs %0 : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
// CHECK: module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
// CHECK:   sdy.mesh @mesh = <["dp"=2]>
// CHECK:   func.func public @main(%arg0: tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"dp"}]>}) -> (tensor<4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}) {
// CHECK:     %0 = stablehlo.while(%iterArg = %arg0) : tensor<4xf32>
// CHECK:     cond {
// CHECK:       %c = stablehlo.constant dense<true> : tensor<i1>
// CHECK:       stablehlo.return %c : tensor<i1>
// CHECK:     } do {
// CHECK:       %2 = stablehlo.negate %iterArg : tensor<4xf32>
// CHECK:       stablehlo.return %2 : tensor<4xf32>
// CHECK:     }
// CHECK:     %1 = stablehlo.abs %0 {sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{?}]>]>} : tensor<4xf32>
// CHECK:     return %1 : tensor<4xf32>
// CHECK:   }
// CHECK: }
