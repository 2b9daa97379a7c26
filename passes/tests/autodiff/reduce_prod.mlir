// RUN: autodiff,canonicalize,cse,dce
// The gradient of sum(prod(x, dim=1)) (PyTorch's `prod` rule): per row, `result / x` when no
// element is zero; with one zero, the product of the others at the zero and zero elsewhere;
// with more zeros, zero. The zeros are counted and multiplied around rather than divided by.
module {
  func.func public @main(%x: tensor<3x4xf32> {tpuc.role = "parameter", jax.arg_info = "x"}) -> (tensor<f32> {tpuc.role = "output", tpuc.output = 0 : i64}) {
    %one = stablehlo.constant dense<1.0> : tensor<f32>
    %0 = stablehlo.reduce(%x init: %one) applies stablehlo.multiply across dimensions = [1] : (tensor<3x4xf32>, tensor<f32>) -> tensor<3xf32>
    %init = stablehlo.constant dense<0.0> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %init) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    return %1 : tensor<f32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<3x4xf32> {tpuc.role = "parameter", jax.arg_info = "x"}) -> (tensor<f32> {tpuc.role = "loss"}, tensor<3x4xf32> {tpuc.role = "gradient", jax.result_info = "x"}) {
// CHECK:     %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK:     %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.multiply across dimensions = [1] : (tensor<3x4xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %1 = stablehlo.reduce(%0 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
// CHECK:     %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<3x4xf32>
// CHECK:     %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<3x4xf32>
// CHECK:     %2 = stablehlo.compare  EQ, %arg0, %cst_1,  FLOAT : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
// CHECK:     %3 = stablehlo.select %2, %cst_2, %arg0 : tensor<3x4xi1>, tensor<3x4xf32>
// CHECK:     %4 = stablehlo.select %2, %cst_2, %cst_1 : tensor<3x4xi1>, tensor<3x4xf32>
// CHECK:     %5 = stablehlo.reduce(%4 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<3x4xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK:     %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<3xf32>) -> tensor<3x4xf32>
// CHECK:     %7 = stablehlo.reduce(%3 init: %cst) applies stablehlo.multiply across dimensions = [1] : (tensor<3x4xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK:     %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<3xf32>) -> tensor<3x4xf32>
// CHECK:     %9 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<3xf32>) -> tensor<3x4xf32>
// CHECK:     %10 = stablehlo.divide %9, %3 : tensor<3x4xf32>
// CHECK:     %11 = stablehlo.select %2, %8, %cst_1 : tensor<3x4xi1>, tensor<3x4xf32>
// CHECK:     %12 = stablehlo.compare  EQ, %6, %cst_1,  FLOAT : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
// CHECK:     %13 = stablehlo.compare  EQ, %6, %cst_2,  FLOAT : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
// CHECK:     %14 = stablehlo.select %13, %11, %cst_1 : tensor<3x4xi1>, tensor<3x4xf32>
// CHECK:     %15 = stablehlo.select %12, %10, %14 : tensor<3x4xi1>, tensor<3x4xf32>
// CHECK:     return %1, %15 : tensor<f32>, tensor<3x4xf32>
// CHECK:   }
// CHECK: }
