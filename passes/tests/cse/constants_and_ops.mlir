// RUN: cse
// Equal constants and equal ops become one; reductions with equal bodies too; ops that differ
// in an attribute or an operand stay.
module {
  func.func public @main(%arg0: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<8x4xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.maximum across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    %3 = stablehlo.add %0, %1 : tensor<4xf32>
    %4 = stablehlo.add %0, %2 : tensor<4xf32>
    %5 = stablehlo.exponential %arg0 : tensor<4x8xf32>
    %6 = stablehlo.exponential %arg0 : tensor<4x8xf32>
    %7 = stablehlo.add %5, %6 : tensor<4x8xf32>
    %8 = stablehlo.transpose %7, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
    return %3, %4, %7, %8 : tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<8x4xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<8x4xf32>) {
// CHECK:     %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK:     %1 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK:     %2 = stablehlo.add %0, %0 : tensor<4xf32>
// CHECK:     %3 = stablehlo.add %0, %1 : tensor<4xf32>
// CHECK:     %4 = stablehlo.exponential %arg0 : tensor<4x8xf32>
// CHECK:     %5 = stablehlo.add %4, %4 : tensor<4x8xf32>
// CHECK:     %6 = stablehlo.transpose %5, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
// CHECK:     return %2, %3, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4x8xf32>, tensor<8x4xf32>
// CHECK:   }
// CHECK: }
