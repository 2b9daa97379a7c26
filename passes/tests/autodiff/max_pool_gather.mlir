// RUN: autodiff,canonicalize,cse,dce
// A windowed maximum differentiates into `select_and_scatter`; a gather (an embedding lookup)
// into a scatter-add into zeros; a broadcast into a sum over the broadcast dimension.
module {
  func.func public @main(%table: tensor<5x4xf32> {tpuc.role = "parameter", jax.arg_info = "table"}, %ids: tensor<2xi64> {tpuc.role = "input", jax.arg_info = "ids", tpuc.input = 0 : i64}, %bias: tensor<4xf32> {tpuc.role = "parameter", jax.arg_info = "bias"}) -> (tensor<f32> {tpuc.role = "output", tpuc.output = 0 : i64}) {
    %i = stablehlo.reshape %ids : (tensor<2xi64>) -> tensor<2x1xi64>
    %rows = "stablehlo.gather"(%table, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>}> : (tensor<5x4xf32>, tensor<2x1xi64>) -> tensor<2x4xf32>
    %b = stablehlo.broadcast_in_dim %bias, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
    %sum = stablehlo.add %rows, %b : tensor<2x4xf32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %pooled = "stablehlo.reduce_window"(%sum, %ninf) <{window_dimensions = array<i64: 1, 2>, window_strides = array<i64: 1, 2>}> ({
    ^bb0(%a: tensor<f32>, %c: tensor<f32>):
      %m = stablehlo.maximum %a, %c : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x2xf32>
    %init = stablehlo.constant dense<0.0> : tensor<f32>
    %total = stablehlo.reduce(%pooled init: %init) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x2xf32>, tensor<f32>) -> tensor<f32>
    return %total : tensor<f32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<5x4xf32> {tpuc.role = "parameter", jax.arg_info = "table"}, %arg1: tensor<2xi64> {tpuc.role = "input", jax.arg_info = "ids", tpuc.input = 0 : i64}, %arg2: tensor<4xf32> {tpuc.role = "parameter", jax.arg_info = "bias"}) -> (tensor<f32> {tpuc.role = "loss"}, tensor<5x4xf32> {tpuc.role = "gradient", jax.result_info = "table"}, tensor<4xf32> {tpuc.role = "gradient", jax.result_info = "bias"}) {
// CHECK:     %0 = stablehlo.reshape %arg1 : (tensor<2xi64>) -> tensor<2x1xi64>
// CHECK:     %1 = "stablehlo.gather"(%arg0, %0) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>}> : (tensor<5x4xf32>, tensor<2x1xi64>) -> tensor<2x4xf32>
// CHECK:     %2 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
// CHECK:     %3 = stablehlo.add %1, %2 : tensor<2x4xf32>
// CHECK:     %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:     %4 = "stablehlo.reduce_window"(%3, %cst) <{window_dimensions = array<i64: 1, 2>, window_strides = array<i64: 1, 2>}> ({
// CHECK:     ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
// CHECK:       %9 = stablehlo.maximum %arg3, %arg4 : tensor<f32>
// CHECK:       stablehlo.return %9 : tensor<f32>
// CHECK:     }) : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x2xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %5 = stablehlo.reduce(%4 init: %cst_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x2xf32>, tensor<f32>) -> tensor<f32>
// CHECK:     %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<2x2xf32>
// CHECK:     %6 = "stablehlo.select_and_scatter"(%3, %cst_1, %cst_0) <{padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 2>, window_strides = array<i64: 1, 2>}> ({
// CHECK:     ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
// CHECK:       %9 = stablehlo.compare  GE, %arg3, %arg4,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK:       stablehlo.return %9 : tensor<i1>
// CHECK:     }, {
// CHECK:     ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
// CHECK:       %9 = stablehlo.add %arg3, %arg4 : tensor<f32>
// CHECK:       stablehlo.return %9 : tensor<f32>
// CHECK:     }) : (tensor<2x4xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<2x4xf32>
// CHECK:     %7 = stablehlo.reduce(%6 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<2x4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK:     %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<5x4xf32>
// CHECK:     %8 = "stablehlo.scatter"(%cst_2, %0, %6) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
// CHECK:     ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
// CHECK:       %9 = stablehlo.add %arg3, %arg4 : tensor<f32>
// CHECK:       stablehlo.return %9 : tensor<f32>
// CHECK:     }) : (tensor<5x4xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<5x4xf32>
// CHECK:     return %5, %8, %7 : tensor<f32>, tensor<5x4xf32>, tensor<4xf32>
// CHECK:   }
// CHECK: }
