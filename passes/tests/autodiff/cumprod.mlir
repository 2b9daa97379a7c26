// RUN: autodiff,canonicalize,cse,dce
// The gradient of sum(cumprod(x, dim=1) * w) (PyTorch's `cumprod` rule, zeros included):
// reversed_cumsum(y w) / x before a row's first zero; at the first zero, the reversed
// cumulative sum of w times the cumulative product with that zero taken as one; zero after.
// The zeros so far are counted by a cumulative sum.
module {
  func.func public @main(%x: tensor<2x3xf32> {tpuc.role = "parameter", jax.arg_info = "x"}, %w: tensor<2x3xf32> {tpuc.role = "input", jax.arg_info = "w", tpuc.input = 0 : i64}) -> (tensor<f32> {tpuc.role = "output", tpuc.output = 0 : i64}) {
    %one = stablehlo.constant dense<1.0> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%x, %one) <{padding = dense<[[0, 0], [2, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 3>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.multiply %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %1 = stablehlo.multiply %0, %w : tensor<2x3xf32>
    %init = stablehlo.constant dense<0.0> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %init) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
    return %2 : tensor<f32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x3xf32> {tpuc.role = "parameter", jax.arg_info = "x"}, %arg1: tensor<2x3xf32> {tpuc.role = "input", jax.arg_info = "w", tpuc.input = 0 : i64}) -> (tensor<f32> {tpuc.role = "loss"}, tensor<2x3xf32> {tpuc.role = "gradient", jax.result_info = "x"}) {
// CHECK:     %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK:     %0 = "stablehlo.reduce_window"(%arg0, %cst) <{padding = dense<[[0, 0], [2, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 3>}> ({
// CHECK:     ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK:       %18 = stablehlo.multiply %arg2, %arg3 : tensor<f32>
// CHECK:       stablehlo.return %18 : tensor<f32>
// CHECK:     }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK:     %1 = stablehlo.multiply %0, %arg1 : tensor<2x3xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %2 = stablehlo.reduce(%1 init: %cst_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
// CHECK:     %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK:     %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<2x3xf32>
// CHECK:     %3 = stablehlo.compare  EQ, %arg0, %cst_1,  FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK:     %4 = stablehlo.select %3, %cst_2, %cst_1 : tensor<2x3xi1>, tensor<2x3xf32>
// CHECK:     %5 = "stablehlo.reduce_window"(%4, %cst_0) <{padding = dense<[[0, 0], [2, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 3>}> ({
// CHECK:     ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK:       %18 = stablehlo.add %arg2, %arg3 : tensor<f32>
// CHECK:       stablehlo.return %18 : tensor<f32>
// CHECK:     }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK:     %6 = stablehlo.compare  EQ, %5, %cst_1,  FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK:     %7 = stablehlo.compare  EQ, %5, %cst_2,  FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK:     %8 = stablehlo.and %3, %7 : tensor<2x3xi1>
// CHECK:     %9 = "stablehlo.reduce_window"(%1, %cst_0) <{padding = dense<[[0, 0], [0, 2]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 3>}> ({
// CHECK:     ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK:       %18 = stablehlo.add %arg2, %arg3 : tensor<f32>
// CHECK:       stablehlo.return %18 : tensor<f32>
// CHECK:     }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK:     %10 = stablehlo.select %3, %cst_2, %arg0 : tensor<2x3xi1>, tensor<2x3xf32>
// CHECK:     %11 = stablehlo.divide %9, %10 : tensor<2x3xf32>
// CHECK:     %12 = stablehlo.select %8, %cst_2, %arg0 : tensor<2x3xi1>, tensor<2x3xf32>
// CHECK:     %13 = "stablehlo.reduce_window"(%12, %cst) <{padding = dense<[[0, 0], [2, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 3>}> ({
// CHECK:     ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK:       %18 = stablehlo.multiply %arg2, %arg3 : tensor<f32>
// CHECK:       stablehlo.return %18 : tensor<f32>
// CHECK:     }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK:     %14 = stablehlo.multiply %13, %arg1 : tensor<2x3xf32>
// CHECK:     %15 = "stablehlo.reduce_window"(%14, %cst_0) <{padding = dense<[[0, 0], [0, 2]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 3>}> ({
// CHECK:     ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK:       %18 = stablehlo.add %arg2, %arg3 : tensor<f32>
// CHECK:       stablehlo.return %18 : tensor<f32>
// CHECK:     }) : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK:     %16 = stablehlo.select %8, %15, %cst_1 : tensor<2x3xi1>, tensor<2x3xf32>
// CHECK:     %17 = stablehlo.select %6, %11, %16 : tensor<2x3xi1>, tensor<2x3xf32>
// CHECK:     return %2, %17 : tensor<f32>, tensor<2x3xf32>
// CHECK:   }
// CHECK: }
