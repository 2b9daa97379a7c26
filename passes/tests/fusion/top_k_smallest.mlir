// RUN: fuse,dce
// The k smallest probabilities (an ascending sort): not routing, only the softmax is outlined.
module {
  func.func public @main(%arg0: tensor<8x16xf32>, %arg1: tensor<6x16xf32>) -> (tensor<6x2xf32>, tensor<6x2xi64>) {
    %0 = stablehlo.dot_general %arg1, %arg0, contracting_dims = [1] x [1] : (tensor<6x16xf32>, tensor<8x16xf32>) -> tensor<6x8xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<6xf32>) -> tensor<6x8xf32>
    %3 = stablehlo.subtract %0, %2 : tensor<6x8xf32>
    %4 = stablehlo.exponential %3 : tensor<6x8xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.reduce(%4 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<6xf32>) -> tensor<6x8xf32>
    %7 = stablehlo.divide %4, %6 : tensor<6x8xf32>
    %8 = stablehlo.iota dim = 1 : tensor<6x8xi64>
    %9:2 = "stablehlo.sort"(%7, %8) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>, %arg4: tensor<i64>, %arg5: tensor<i64>):
      %15 = stablehlo.compare  LT, %arg2, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %16 = stablehlo.compare  NE, %arg3, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %17 = stablehlo.compare  EQ, %arg2, %arg2,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %18 = stablehlo.and %17, %16 : tensor<i1>
      %19 = stablehlo.or %15, %18 : tensor<i1>
      stablehlo.return %19 : tensor<i1>
    }) : (tensor<6x8xf32>, tensor<6x8xi64>) -> (tensor<6x8xf32>, tensor<6x8xi64>)
    %10 = stablehlo.slice %9#0 [0:6, 0:2] : (tensor<6x8xf32>) -> tensor<6x2xf32>
    %11 = stablehlo.slice %9#1 [0:6, 0:2] : (tensor<6x8xi64>) -> tensor<6x2xi64>
    %12 = stablehlo.reduce(%10 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<6x2xf32>, tensor<f32>) -> tensor<6xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0] : (tensor<6xf32>) -> tensor<6x2xf32>
    %14 = stablehlo.divide %10, %13 : tensor<6x2xf32>
    return %14, %11 : tensor<6x2xf32>, tensor<6x2xi64>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<8x16xf32>, %arg1: tensor<6x16xf32>) -> (tensor<6x2xf32>, tensor<6x2xi64>) {
// CHECK:     %0 = stablehlo.dot_general %arg1, %arg0, contracting_dims = [1] x [1] : (tensor<6x16xf32>, tensor<8x16xf32>) -> tensor<6x8xf32>
// CHECK:     %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %1 = stablehlo.composite "odml.softmax" %0 {composite_attributes = {axis = 1 : i64}, decomposition = @odml_softmax_0, version = 1 : i32} : (tensor<6x8xf32>) -> tensor<6x8xf32>
// CHECK:     %2 = stablehlo.iota dim = 1 : tensor<6x8xi64>
// CHECK:     %3:2 = "stablehlo.sort"(%1, %2) <{dimension = 1 : i64, is_stable = true}> ({
// CHECK:     ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>, %arg4: tensor<i64>, %arg5: tensor<i64>):
// CHECK:       %9 = stablehlo.compare  LT, %arg2, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK:       %10 = stablehlo.compare  NE, %arg3, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK:       %11 = stablehlo.compare  EQ, %arg2, %arg2,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK:       %12 = stablehlo.and %11, %10 : tensor<i1>
// CHECK:       %13 = stablehlo.or %9, %12 : tensor<i1>
// CHECK:       stablehlo.return %13 : tensor<i1>
// CHECK:     }) : (tensor<6x8xf32>, tensor<6x8xi64>) -> (tensor<6x8xf32>, tensor<6x8xi64>)
// CHECK:     %4 = stablehlo.slice %3#0 [0:6, 0:2] : (tensor<6x8xf32>) -> tensor<6x2xf32>
// CHECK:     %5 = stablehlo.slice %3#1 [0:6, 0:2] : (tensor<6x8xi64>) -> tensor<6x2xi64>
// CHECK:     %6 = stablehlo.reduce(%4 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<6x2xf32>, tensor<f32>) -> tensor<6xf32>
// CHECK:     %7 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<6xf32>) -> tensor<6x2xf32>
// CHECK:     %8 = stablehlo.divide %4, %7 : tensor<6x2xf32>
// CHECK:     return %8, %5 : tensor<6x2xf32>, tensor<6x2xi64>
// CHECK:   }
// CHECK:   func.func private @odml_softmax_0(%arg0: tensor<6x8xf32>) -> tensor<6x8xf32> {
// CHECK:     %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:     %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
// CHECK:     %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<6xf32>) -> tensor<6x8xf32>
// CHECK:     %2 = stablehlo.subtract %arg0, %1 : tensor<6x8xf32>
// CHECK:     %3 = stablehlo.exponential %2 : tensor<6x8xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
// CHECK:     %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<6xf32>) -> tensor<6x8xf32>
// CHECK:     %6 = stablehlo.divide %3, %5 : tensor<6x8xf32>
// CHECK:     return %6 : tensor<6x8xf32>
// CHECK:   }
// CHECK: }
