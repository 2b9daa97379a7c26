// RUN: autodiff,canonicalize,cse,dce
// torch.sort(x, dim=0) with its indices: the sorted `iota` is the permutation, so no second
// sort; the values' cotangent is scatter-added back through it, the indices get none.
module {
  func.func public @main(%x: tensor<3x2xf32> {tpuc.role = "parameter", jax.arg_info = "x"}) -> (tensor<f32> {tpuc.role = "output", tpuc.output = 0 : i64}, tensor<3x2xi64> {tpuc.role = "output", tpuc.output = 1 : i64}) {
    %iota = stablehlo.iota dim = 0 : tensor<3x2xi64>
    %0:2 = "stablehlo.sort"(%x, %iota) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %i: tensor<i64>, %j: tensor<i64>):
      %gt = stablehlo.compare  GT, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %gt : tensor<i1>
    }) : (tensor<3x2xf32>, tensor<3x2xi64>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
    %1 = stablehlo.multiply %0#0, %0#0 : tensor<3x2xf32>
    %init = stablehlo.constant dense<0.0> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %init) applies stablehlo.add across dimensions = [0, 1] : (tensor<3x2xf32>, tensor<f32>) -> tensor<f32>
    return %2, %0#1 : tensor<f32>, tensor<3x2xi64>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<3x2xf32> {tpuc.role = "parameter", jax.arg_info = "x"}) -> (tensor<f32> {tpuc.role = "loss"}, tensor<3x2xi64> {tpuc.role = "output", tpuc.output = 0 : i64}, tensor<3x2xf32> {tpuc.role = "gradient", jax.result_info = "x"}) {
// CHECK:     %0 = stablehlo.iota dim = 0 : tensor<3x2xi64>
// CHECK:     %1:2 = "stablehlo.sort"(%arg0, %0) <{dimension = 0 : i64, is_stable = true}> ({
// CHECK:     ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>, %arg3: tensor<i64>, %arg4: tensor<i64>):
// CHECK:       %9 = stablehlo.compare  GT, %arg1, %arg2,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK:       stablehlo.return %9 : tensor<i1>
// CHECK:     }) : (tensor<3x2xf32>, tensor<3x2xi64>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
// CHECK:     %2 = stablehlo.multiply %1#0, %1#0 : tensor<3x2xf32>
// CHECK:     %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %3 = stablehlo.reduce(%2 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<3x2xf32>, tensor<f32>) -> tensor<f32>
// CHECK:     %4 = stablehlo.add %1#0, %1#0 : tensor<3x2xf32>
// CHECK:     %5 = stablehlo.reshape %1#1 : (tensor<3x2xi64>) -> tensor<3x2x1xi64>
// CHECK:     %6 = stablehlo.iota dim = 1 : tensor<3x2x1xi64>
// CHECK:     %7 = stablehlo.concatenate %5, %6, dim = 2 : (tensor<3x2x1xi64>, tensor<3x2x1xi64>) -> tensor<3x2x2xi64>
// CHECK:     %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<3x2xf32>
// CHECK:     %8 = "stablehlo.scatter"(%cst_0, %7, %4) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 2>}> ({
// CHECK:     ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
// CHECK:       %9 = stablehlo.add %arg1, %arg2 : tensor<f32>
// CHECK:       stablehlo.return %9 : tensor<f32>
// CHECK:     }) : (tensor<3x2xf32>, tensor<3x2x2xi64>, tensor<3x2xf32>) -> tensor<3x2xf32>
// CHECK:     return %3, %1#1, %8 : tensor<f32>, tensor<3x2xi64>, tensor<3x2xf32>
// CHECK:   }
// CHECK: }
