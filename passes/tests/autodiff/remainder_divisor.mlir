// RUN: autodiff,canonicalize,cse,dce
// The gradient of sum(fmod(x, y)) with respect to both operands (torch.fmod's backward): the
// cotangent for the dividend x, and minus it times the quotient rounded toward zero,
// sign(x / y) floor(|x / y|), for the divisor y.
module {
  func.func public @main(%x: tensor<4xf32> {tpuc.role = "parameter", jax.arg_info = "x"}, %y: tensor<4xf32> {tpuc.role = "parameter", jax.arg_info = "y"}) -> (tensor<f32> {tpuc.role = "output", tpuc.output = 0 : i64}) {
    %0 = stablehlo.remainder %x, %y : tensor<4xf32>
    %init = stablehlo.constant dense<0.0> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %init) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    return %1 : tensor<f32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4xf32> {tpuc.role = "parameter", jax.arg_info = "x"}, %arg1: tensor<4xf32> {tpuc.role = "parameter", jax.arg_info = "y"}) -> (tensor<f32> {tpuc.role = "loss"}, tensor<4xf32> {tpuc.role = "gradient", jax.result_info = "x"}, tensor<4xf32> {tpuc.role = "gradient", jax.result_info = "y"}) {
// CHECK:     %0 = stablehlo.remainder %arg0, %arg1 : tensor<4xf32>
// CHECK:     %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
// CHECK:     %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK:     %2 = stablehlo.divide %arg0, %arg1 : tensor<4xf32>
// CHECK:     %3 = stablehlo.abs %2 : tensor<4xf32>
// CHECK:     %4 = stablehlo.floor %3 : tensor<4xf32>
// CHECK:     %5 = stablehlo.sign %2 : tensor<4xf32>
// CHECK:     %6 = stablehlo.multiply %5, %4 : tensor<4xf32>
// CHECK:     %7 = stablehlo.negate %6 : tensor<4xf32>
// CHECK:     return %1, %cst_0, %7 : tensor<f32>, tensor<4xf32>, tensor<4xf32>
// CHECK:   }
// CHECK: }
