// RUN: autodiff,canonicalize,cse,dce
// torch.max(x, dim=1) as tpuc lowers it: one reduction of the values and their `iota`
// positions, whose reducer returns one (value, position) pair whole. The cotangent of the
// maximum goes to the element at the chosen position (PyTorch's `max.dim` rule: one element
// per row, also on a tie); the positions get none.
module {
  func.func public @main(%x: tensor<3x4xf32> {tpuc.role = "parameter", jax.arg_info = "x"}) -> (tensor<f32> {tpuc.role = "output", tpuc.output = 0 : i64}) {
    %iota = stablehlo.iota dim = 1 : tensor<3x4xi64>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %zero = stablehlo.constant dense<0> : tensor<i64>
    %0:2 = stablehlo.reduce(%x init: %ninf), (%iota init: %zero) across dimensions = [1] : (tensor<3x4xf32>, tensor<3x4xi64>, tensor<f32>, tensor<i64>) -> (tensor<3xf32>, tensor<3xi64>)
     reducer(%a: tensor<f32>, %b: tensor<f32>) (%i: tensor<i64>, %j: tensor<i64>)  {
      %gt = stablehlo.compare  GT, %b, %a,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %eq = stablehlo.compare  EQ, %b, %a,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %lt = stablehlo.compare  LT, %j, %i,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      %first = stablehlo.and %eq, %lt : tensor<i1>
      %take = stablehlo.or %gt, %first : tensor<i1>
      %v = stablehlo.select %take, %b, %a : tensor<i1>, tensor<f32>
      %k = stablehlo.select %take, %j, %i : tensor<i1>, tensor<i64>
      stablehlo.return %v, %k : tensor<f32>, tensor<i64>
    }
    %init = stablehlo.constant dense<0.0> : tensor<f32>
    %1 = stablehlo.reduce(%0#0 init: %init) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    return %1 : tensor<f32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<3x4xf32> {tpuc.role = "parameter", jax.arg_info = "x"}) -> (tensor<f32> {tpuc.role = "loss"}, tensor<3x4xf32> {tpuc.role = "gradient", jax.result_info = "x"}) {
// CHECK:     %0 = stablehlo.iota dim = 1 : tensor<3x4xi64>
// CHECK:     %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:     %c = stablehlo.constant dense<0> : tensor<i64>
// CHECK:     %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<3x4xf32>, tensor<3x4xi64>, tensor<f32>, tensor<i64>) -> (tensor<3xf32>, tensor<3xi64>)
// CHECK:      reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i64>, %arg4: tensor<i64>)  {
// CHECK:       %6 = stablehlo.compare  GT, %arg3, %arg1,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK:       %7 = stablehlo.compare  EQ, %arg3, %arg1,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK:       %8 = stablehlo.compare  LT, %arg4, %arg2,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK:       %9 = stablehlo.and %7, %8 : tensor<i1>
// CHECK:       %10 = stablehlo.or %6, %9 : tensor<i1>
// CHECK:       %11 = stablehlo.select %10, %arg3, %arg1 : tensor<i1>, tensor<f32>
// CHECK:       %12 = stablehlo.select %10, %arg4, %arg2 : tensor<i1>, tensor<i64>
// CHECK:       stablehlo.return %11, %12 : tensor<f32>, tensor<i64>
// CHECK:     }
// CHECK:     %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %2 = stablehlo.reduce(%1#0 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
// CHECK:     %3 = stablehlo.broadcast_in_dim %1#1, dims = [0] : (tensor<3xi64>) -> tensor<3x4xi64>
// CHECK:     %4 = stablehlo.compare  EQ, %0, %3,  SIGNED : (tensor<3x4xi64>, tensor<3x4xi64>) -> tensor<3x4xi1>
// CHECK:     %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<3x4xf32>
// CHECK:     %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<3x4xf32>
// CHECK:     %5 = stablehlo.select %4, %cst_1, %cst_2 : tensor<3x4xi1>, tensor<3x4xf32>
// CHECK:     return %2, %5 : tensor<f32>, tensor<3x4xf32>
// CHECK:   }
// CHECK: }
