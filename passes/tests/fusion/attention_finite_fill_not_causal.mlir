// RUN: fuse,dce
// Refused: a finite fill (-1e9) with a mask that is not causal is not a `-inf` mask (a fully
// masked row would average the values); only the softmax is fused.
module {
  func.func public @main(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>, %mask: tensor<1x8x8xi1>) -> tensor<2x4x8xf32> {
    %0 = stablehlo.dot_general %q, %k, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<2x8x8xf32>
    %1 = stablehlo.divide %0, %cst : tensor<2x8x8xf32>
    %fill = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %2 = call @_where(%mask, %1, %fill) : (tensor<1x8x8xi1>, tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8x8xf32>
    %cst_m = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %3 = stablehlo.reduce(%2 init: %cst_m) applies stablehlo.maximum across dimensions = [2] : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x8xf32>
    %5 = stablehlo.subtract %2, %4 : tensor<2x8x8xf32>
    %6 = stablehlo.exponential %5 : tensor<2x8x8xf32>
    %cst_z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_z) applies stablehlo.add across dimensions = [2] : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x8xf32>
    %9 = stablehlo.divide %6, %8 : tensor<2x8x8xf32>
    %10 = stablehlo.dot_general %v, %9, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<2x4x8xf32>, tensor<2x8x8xf32>) -> tensor<2x4x8xf32>
    return %10 : tensor<2x4x8xf32>
  }
  func.func private @_where(%m: tensor<1x8x8xi1>, %x: tensor<2x8x8xf32>, %y: tensor<f32>) -> tensor<2x8x8xf32> {
    %0 = stablehlo.broadcast_in_dim %m, dims = [0, 1, 2] : (tensor<1x8x8xi1>) -> tensor<2x8x8xi1>
    %1 = stablehlo.broadcast_in_dim %y, dims = [] : (tensor<f32>) -> tensor<2x8x8xf32>
    %2 = stablehlo.select %0, %x, %1 : tensor<2x8x8xi1>, tensor<2x8x8xf32>
    return %2 : tensor<2x8x8xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x4x8xf32>, %arg1: tensor<2x4x8xf32>, %arg2: tensor<2x4x8xf32>, %arg3: tensor<1x8x8xi1>) -> tensor<2x4x8xf32> {
// CHECK:     %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x8x8xf32>
// CHECK:     %cst = stablehlo.constant dense<2.000000e+00> : tensor<2x8x8xf32>
// CHECK:     %1 = stablehlo.divide %0, %cst : tensor<2x8x8xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
// CHECK:     %2 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1, 2] : (tensor<1x8x8xi1>) -> tensor<2x8x8xi1>
// CHECK:     %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x8x8xf32>
// CHECK:     %4 = stablehlo.select %2, %1, %3 : tensor<2x8x8xi1>, tensor<2x8x8xf32>
// CHECK:     %5 = stablehlo.composite "odml.softmax" %4 {composite_attributes = {axis = 2 : i64}, decomposition = @odml_softmax_0, version = 1 : i32} : (tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
// CHECK:     %6 = stablehlo.dot_general %arg2, %5, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<2x4x8xf32>, tensor<2x8x8xf32>) -> tensor<2x4x8xf32>
// CHECK:     return %6 : tensor<2x4x8xf32>
// CHECK:   }
// CHECK:   func.func private @odml_softmax_0(%arg0: tensor<2x8x8xf32>) -> tensor<2x8x8xf32> {
// CHECK:     %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:     %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [2] : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8xf32>
// CHECK:     %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x8xf32>
// CHECK:     %2 = stablehlo.subtract %arg0, %1 : tensor<2x8x8xf32>
// CHECK:     %3 = stablehlo.exponential %2 : tensor<2x8x8xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [2] : (tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8xf32>
// CHECK:     %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<2x8xf32>) -> tensor<2x8x8xf32>
// CHECK:     %6 = stablehlo.divide %3, %5 : tensor<2x8x8xf32>
// CHECK:     return %6 : tensor<2x8x8xf32>
// CHECK:   }
// CHECK: }
