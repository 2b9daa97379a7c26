// RUN: canonicalize
// A max-pool of a ReLU starts its windows at zero instead.
module {
  func.func public @main(%arg0: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<1x1x4x4xf32>
    %0 = stablehlo.maximum %arg0, %cst : tensor<1x1x4x4xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = "stablehlo.reduce_window"(%0, %cst_0) <{window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<1x1x4x4xf32>, tensor<f32>) -> tensor<1x1x2x2xf32>
    return %1 : tensor<1x1x2x2xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
// CHECK:     %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %0 = "stablehlo.reduce_window"(%arg0, %cst) <{window_dimensions = array<i64: 1, 1, 2, 2>, window_strides = array<i64: 1, 1, 2, 2>}> ({
// CHECK:     ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
// CHECK:       %1 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
// CHECK:       stablehlo.return %1 : tensor<f32>
// CHECK:     }) : (tensor<1x1x4x4xf32>, tensor<f32>) -> tensor<1x1x2x2xf32>
// CHECK:     return %0 : tensor<1x1x2x2xf32>
// CHECK:   }
// CHECK: }
