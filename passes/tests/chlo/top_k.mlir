// RUN: chlo-legalize
// top_k: a stable descending sort of (values, positions) on the last dimension, sliced to k.
module {
  func.func public @main(%arg0: tensor<2x5xf32>, %arg1: tensor<6xi32>) -> (tensor<2x2xf32>, tensor<2x2xi32>, tensor<3xi32>, tensor<3xi32>) {
    %values, %indices = chlo.top_k(%arg0, k = 2) : tensor<2x5xf32> -> (tensor<2x2xf32>, tensor<2x2xi32>)
    %values_0, %indices_1 = chlo.top_k(%arg1, k = 3) : tensor<6xi32> -> (tensor<3xi32>, tensor<3xi32>)
    return %values, %indices, %values_0, %indices_1 : tensor<2x2xf32>, tensor<2x2xi32>, tensor<3xi32>, tensor<3xi32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x5xf32>, %arg1: tensor<6xi32>) -> (tensor<2x2xf32>, tensor<2x2xi32>, tensor<3xi32>, tensor<3xi32>) {
// CHECK:     %0 = stablehlo.iota dim = 1 : tensor<2x5xi32>
// CHECK:     %1:2 = "stablehlo.sort"(%arg0, %0) <{dimension = 1 : i64, is_stable = true}> ({
// CHECK:     ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>, %arg4: tensor<i32>, %arg5: tensor<i32>):
// CHECK:       %8 = stablehlo.compare  GT, %arg2, %arg3,  TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK:       stablehlo.return %8 : tensor<i1>
// CHECK:     }) : (tensor<2x5xf32>, tensor<2x5xi32>) -> (tensor<2x5xf32>, tensor<2x5xi32>)
// CHECK:     %2 = stablehlo.slice %1#0 [0:2, 0:2] : (tensor<2x5xf32>) -> tensor<2x2xf32>
// CHECK:     %3 = stablehlo.slice %1#1 [0:2, 0:2] : (tensor<2x5xi32>) -> tensor<2x2xi32>
// CHECK:     %4 = stablehlo.iota dim = 0 : tensor<6xi32>
// CHECK:     %5:2 = "stablehlo.sort"(%arg1, %4) <{dimension = 0 : i64, is_stable = true}> ({
// CHECK:     ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>, %arg4: tensor<i32>, %arg5: tensor<i32>):
// CHECK:       %8 = stablehlo.compare  GT, %arg2, %arg3,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK:       stablehlo.return %8 : tensor<i1>
// CHECK:     }) : (tensor<6xi32>, tensor<6xi32>) -> (tensor<6xi32>, tensor<6xi32>)
// CHECK:     %6 = stablehlo.slice %5#0 [0:3] : (tensor<6xi32>) -> tensor<3xi32>
// CHECK:     %7 = stablehlo.slice %5#1 [0:3] : (tensor<6xi32>) -> tensor<3xi32>
// CHECK:     return %2, %3, %6, %7 : tensor<2x2xf32>, tensor<2x2xi32>, tensor<3xi32>, tensor<3xi32>
// CHECK:   }
// CHECK: }
