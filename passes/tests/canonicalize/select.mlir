// RUN: canonicalize
// A select on a constant predicate, or with equal branches, is one of its operands.
module {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %c = stablehlo.constant dense<true> : tensor<4xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<4xi1>
    %0 = stablehlo.select %c, %arg0, %arg1 : tensor<4xi1>, tensor<4xf32>
    %1 = stablehlo.select %c_0, %arg0, %arg1 : tensor<4xi1>, tensor<4xf32>
    %2 = stablehlo.select %arg2, %arg1, %arg1 : tensor<4xi1>, tensor<4xf32>
    return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
// CHECK:     return %arg0, %arg1, %arg1 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
// CHECK:   }
// CHECK: }
