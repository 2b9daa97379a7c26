// RUN: evaluate,canonicalize,dce
// A causal mask depends on no argument: every row sees a key, so the select that zeroes rows
// with none is the attention output itself. A mask that reads an argument stays.
module {
  func.func public @main(%arg0: tensor<2x4x4xf32>, %arg1: tensor<4xi1>) -> (tensor<2x4x4xf32>, tensor<4xi1>) {
    %0 = stablehlo.iota dim = 0 : tensor<4xi64>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<4xi64>) -> tensor<4x4xi64>
    %2 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<4xi64>) -> tensor<4x4xi64>
    %3 = stablehlo.compare  LE, %2, %1,  SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %c = stablehlo.constant dense<false> : tensor<i1>
    %4 = stablehlo.reduce(%3 init: %c) applies stablehlo.or across dimensions = [1] : (tensor<4x4xi1>, tensor<i1>) -> tensor<4xi1>
    %5 = stablehlo.broadcast_in_dim %4, dims = [1] : (tensor<4xi1>) -> tensor<2x4x4xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<2x4x4xf32>
    %6 = stablehlo.select %5, %arg0, %cst : tensor<2x4x4xi1>, tensor<2x4x4xf32>
    %7 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xi1>) -> tensor<4x4xi1>
    %8 = stablehlo.and %3, %7 : tensor<4x4xi1>
    %9 = stablehlo.reduce(%8 init: %c) applies stablehlo.or across dimensions = [1] : (tensor<4x4xi1>, tensor<i1>) -> tensor<4xi1>
    return %6, %9 : tensor<2x4x4xf32>, tensor<4xi1>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x4x4xf32>, %arg1: tensor<4xi1>) -> (tensor<2x4x4xf32>, tensor<4xi1>) {
// CHECK:     %0 = stablehlo.iota dim = 0 : tensor<4xi64>
// CHECK:     %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<4xi64>) -> tensor<4x4xi64>
// CHECK:     %2 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<4xi64>) -> tensor<4x4xi64>
// CHECK:     %3 = stablehlo.compare  LE, %2, %1,  SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
// CHECK:     %c = stablehlo.constant dense<false> : tensor<i1>
// CHECK:     %4 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xi1>) -> tensor<4x4xi1>
// CHECK:     %5 = stablehlo.and %3, %4 : tensor<4x4xi1>
// CHECK:     %6 = stablehlo.reduce(%5 init: %c) applies stablehlo.or across dimensions = [1] : (tensor<4x4xi1>, tensor<i1>) -> tensor<4xi1>
// CHECK:     return %arg0, %6 : tensor<2x4x4xf32>, tensor<4xi1>
// CHECK:   }
// CHECK: }
