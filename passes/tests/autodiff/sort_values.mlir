// RUN: autodiff,canonicalize,cse,dce
// The gradient of sum(sort(x) * w) along dimension 1 (torch.sort's values alone): a stable
// copy of the sort carries an `iota` along (its comparator ignores it), and the cotangent of
// the sorted values is scatter-added back through that permutation.
module {
  func.func public @main(%x: tensor<2x3xf32> {tpuc.role = "parameter", jax.arg_info = "x"}, %w: tensor<2x3xf32> {tpuc.role = "input", jax.arg_info = "w", tpuc.input = 0 : i64}) -> (tensor<f32> {tpuc.role = "output", tpuc.output = 0 : i64}) {
    %0 = "stablehlo.sort"(%x) <{dimension = 1 : i64, is_stable = false}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %lt = stablehlo.compare  LT, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = stablehlo.multiply %0, %w : tensor<2x3xf32>
    %init = stablehlo.constant dense<0.0> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %init) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
    return %2 : tensor<f32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x3xf32> {tpuc.role = "parameter", jax.arg_info = "x"}, %arg1: tensor<2x3xf32> {tpuc.role = "input", jax.arg_info = "w", tpuc.input = 0 : i64}) -> (tensor<f32> {tpuc.role = "loss"}, tensor<2x3xf32> {tpuc.role = "gradient", jax.result_info = "x"}) {
// CHECK:     %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = false}> ({
// CHECK:     ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK:       %9 = stablehlo.compare  LT, %arg2, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK:       stablehlo.return %9 : tensor<i1>
// CHECK:     }) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:     %1 = stablehlo.multiply %0, %arg1 : tensor<2x3xf32>
// CHECK:     %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
// CHECK:     %3 = stablehlo.iota dim = 1 : tensor<2x3xi64>
// CHECK:     %4:2 = "stablehlo.sort"(%arg0, %3) <{dimension = 1 : i64, is_stable = true}> ({
// CHECK:     ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>, %arg4: tensor<i64>, %arg5: tensor<i64>):
// CHECK:       %9 = stablehlo.compare  LT, %arg2, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK:       stablehlo.return %9 : tensor<i1>
// CHECK:     }) : (tensor<2x3xf32>, tensor<2x3xi64>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
// CHECK:     %5 = stablehlo.iota dim = 0 : tensor<2x3x1xi64>
// CHECK:     %6 = stablehlo.reshape %4#1 : (tensor<2x3xi64>) -> tensor<2x3x1xi64>
// CHECK:     %7 = stablehlo.concatenate %5, %6, dim = 2 : (tensor<2x3x1xi64>, tensor<2x3x1xi64>) -> tensor<2x3x2xi64>
// CHECK:     %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK:     %8 = "stablehlo.scatter"(%cst_0, %7, %arg1) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 2>}> ({
// CHECK:     ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
// CHECK:       %9 = stablehlo.add %arg2, %arg3 : tensor<f32>
// CHECK:       stablehlo.return %9 : tensor<f32>
// CHECK:     }) : (tensor<2x3xf32>, tensor<2x3x2xi64>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:     return %2, %8 : tensor<f32>, tensor<2x3xf32>
// CHECK:   }
// CHECK: }
