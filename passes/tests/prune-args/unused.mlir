// RUN: prune-args
// Unused arguments of the entry point go, with their attributes.
module {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<i64>, %arg2: tensor<4xf32> {mhlo.sharding = "{replicated}"}) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg2 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32> {mhlo.sharding = "{replicated}"}) -> tensor<4xf32> {
// CHECK:     %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
// CHECK:     return %0 : tensor<4xf32>
// CHECK:   }
// CHECK: }
