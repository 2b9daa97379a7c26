// RUN: autodiff,canonicalize,cse,dce
// torch.scatter_reduce(x, 0, index, u, "amax") as tpuc lowers it: a scatter keeping the
// maximum. Each result's cotangent is shared evenly among the operand element and the updates
// equal to it (PyTorch's rule): hits counted by a scatter-add, the share gathered back for the
// updates.
module {
  func.func public @main(%x: tensor<3xf32> {tpuc.role = "parameter", jax.arg_info = "x"}, %u: tensor<4xf32> {tpuc.role = "parameter", jax.arg_info = "u"}, %index: tensor<4x1xi64> {tpuc.role = "buffer", jax.arg_info = "index"}) -> (tensor<f32> {tpuc.role = "output", tpuc.output = 0 : i64}) {
    %0 = "stablehlo.scatter"(%x, %index, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }) : (tensor<3xf32>, tensor<4x1xi64>, tensor<4xf32>) -> tensor<3xf32>
    %init = stablehlo.constant dense<0.0> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %init) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    return %1 : tensor<f32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<3xf32> {tpuc.role = "parameter", jax.arg_info = "x"}, %arg1: tensor<4xf32> {tpuc.role = "parameter", jax.arg_info = "u"}, %arg2: tensor<4x1xi64> {tpuc.role = "buffer", jax.arg_info = "index"}) -> (tensor<f32> {tpuc.role = "loss"}, tensor<3xf32> {tpuc.role = "gradient", jax.result_info = "x"}, tensor<4xf32> {tpuc.role = "gradient", jax.result_info = "u"}) {
// CHECK:     %0 = "stablehlo.scatter"(%arg0, %arg2, %arg1) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
// CHECK:     ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
// CHECK:       %12 = stablehlo.maximum %arg3, %arg4 : tensor<f32>
// CHECK:       stablehlo.return %12 : tensor<f32>
// CHECK:     }) : (tensor<3xf32>, tensor<4x1xi64>, tensor<4xf32>) -> tensor<3xf32>
// CHECK:     %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
// CHECK:     %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<3xf32>
// CHECK:     %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK:     %2 = stablehlo.compare  EQ, %arg0, %0,  FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
// CHECK:     %3 = "stablehlo.gather"(%0, %arg2) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>}> : (tensor<3xf32>, tensor<4x1xi64>) -> tensor<4xf32>
// CHECK:     %4 = stablehlo.compare  EQ, %arg1, %3,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK:     %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK:     %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK:     %5 = stablehlo.select %4, %cst_3, %cst_2 : tensor<4xi1>, tensor<4xf32>
// CHECK:     %6 = stablehlo.select %2, %cst_0, %cst_1 : tensor<3xi1>, tensor<3xf32>
// CHECK:     %7 = "stablehlo.scatter"(%6, %arg2, %5) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
// CHECK:     ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
// CHECK:       %12 = stablehlo.add %arg3, %arg4 : tensor<f32>
// CHECK:       stablehlo.return %12 : tensor<f32>
// CHECK:     }) : (tensor<3xf32>, tensor<4x1xi64>, tensor<4xf32>) -> tensor<3xf32>
// CHECK:     %8 = stablehlo.divide %cst_0, %7 : tensor<3xf32>
// CHECK:     %9 = stablehlo.select %2, %8, %cst_1 : tensor<3xi1>, tensor<3xf32>
// CHECK:     %10 = "stablehlo.gather"(%8, %arg2) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>}> : (tensor<3xf32>, tensor<4x1xi64>) -> tensor<4xf32>
// CHECK:     %11 = stablehlo.select %4, %10, %cst_2 : tensor<4xi1>, tensor<4xf32>
// CHECK:     return %1, %9, %11 : tensor<f32>, tensor<3xf32>, tensor<4xf32>
// CHECK:   }
// CHECK: }
