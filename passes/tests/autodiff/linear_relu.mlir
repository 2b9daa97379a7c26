// RUN: autodiff,canonicalize,cse,dce
// The gradient of sum(relu(x W)) with respect to the parameter W: the cotangent of the
// reduction broadcast back, masked where the ReLU's `maximum` chose zero (half on a tie), then
// contracted with x. The input x gets no gradient; it is not a parameter.
module {
  func.func public @main(%w: tensor<3x2xf32> {tpuc.role = "parameter", jax.arg_info = "w"}, %x: tensor<4x3xf32> {tpuc.role = "input", jax.arg_info = "x", tpuc.input = 0 : i64}) -> (tensor<f32> {tpuc.role = "output", tpuc.output = 0 : i64}) {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<4x2xf32>
    %1 = stablehlo.maximum %0, %zero : tensor<4x2xf32>
    %init = stablehlo.constant dense<0.0> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %init) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x2xf32>, tensor<f32>) -> tensor<f32>
    return %2 : tensor<f32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<3x2xf32> {tpuc.role = "parameter", jax.arg_info = "w"}, %arg1: tensor<4x3xf32> {tpuc.role = "input", jax.arg_info = "x", tpuc.input = 0 : i64}) -> (tensor<f32> {tpuc.role = "loss"}, tensor<3x2xf32> {tpuc.role = "gradient", jax.result_info = "w"}) {
// CHECK:     %0 = stablehlo.dot_general %arg1, %arg0, contracting_dims = [1] x [0] : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
// CHECK:     %cst = stablehlo.constant dense<0.000000e+00> : tensor<4x2xf32>
// CHECK:     %1 = stablehlo.maximum %0, %cst : tensor<4x2xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %2 = stablehlo.reduce(%1 init: %cst_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x2xf32>, tensor<f32>) -> tensor<f32>
// CHECK:     %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<4x2xf32>
// CHECK:     %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<4x2xf32>
// CHECK:     %3 = stablehlo.compare  EQ, %0, %cst,  FLOAT : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xi1>
// CHECK:     %4 = stablehlo.select %3, %cst_2, %cst : tensor<4x2xi1>, tensor<4x2xf32>
// CHECK:     %5 = stablehlo.compare  GT, %0, %cst,  FLOAT : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xi1>
// CHECK:     %6 = stablehlo.select %5, %cst_1, %4 : tensor<4x2xi1>, tensor<4x2xf32>
// CHECK:     %7 = stablehlo.dot_general %arg1, %6, contracting_dims = [0] x [0] : (tensor<4x3xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
// CHECK:     return %2, %7 : tensor<f32>, tensor<3x2xf32>
// CHECK:   }
// CHECK: }
