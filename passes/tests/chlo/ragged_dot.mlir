// RUN: chlo-legalize,cse
// chlo.ragged_dot in its three modes: ragged rows (what jax.lax.ragged_dot prints), ragged
// contraction (a leading group dimension in the result), ragged batch.
module {
  func.func public @main(%arg0: tensor<6x4xf32>, %arg1: tensor<3x4x5xf32>, %arg2: tensor<3xi32>, %arg3: tensor<4x5xf32>, %arg4: tensor<3x6x4xf32>, %arg5: tensor<3x4x5xf32>) -> (tensor<6x5xf32>, tensor<3x6x5xf32>, tensor<3x6x5xf32>) {
    %0 = "chlo.ragged_dot"(%arg0, %arg1, %arg2) <{precision_config = [#chlo<precision DEFAULT>, #chlo<precision DEFAULT>], ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>}> : (tensor<6x4xf32>, tensor<3x4x5xf32>, tensor<3xi32>) -> tensor<6x5xf32>
    %1 = "chlo.ragged_dot"(%arg0, %arg3, %arg2) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0], lhs_ragged_dimensions = [1]>}> : (tensor<6x4xf32>, tensor<4x5xf32>, tensor<3xi32>) -> tensor<3x6x5xf32>
    %2 = "chlo.ragged_dot"(%arg4, %arg5, %arg2) <{ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0]>}> : (tensor<3x6x4xf32>, tensor<3x4x5xf32>, tensor<3xi32>) -> tensor<3x6x5xf32>
    return %0, %1, %2 : tensor<6x5xf32>, tensor<3x6x5xf32>, tensor<3x6x5xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<6x4xf32>, %arg1: tensor<3x4x5xf32>, %arg2: tensor<3xi32>, %arg3: tensor<4x5xf32>, %arg4: tensor<3x6x4xf32>, %arg5: tensor<3x4x5xf32>) -> (tensor<6x5xf32>, tensor<3x6x5xf32>, tensor<3x6x5xf32>) {
// CHECK:     %0 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<3xi32>) -> tensor<3x3xi32>
// CHECK:     %1 = stablehlo.iota dim = 0 : tensor<3x3xi32>
// CHECK:     %2 = stablehlo.iota dim = 1 : tensor<3x3xi32>
// CHECK:     %3 = stablehlo.compare  LE, %2, %1,  SIGNED : (tensor<3x3xi32>, tensor<3x3xi32>) -> tensor<3x3xi1>
// CHECK:     %c = stablehlo.constant dense<0> : tensor<3x3xi32>
// CHECK:     %4 = stablehlo.select %3, %0, %c : tensor<3x3xi1>, tensor<3x3xi32>
// CHECK:     %c_0 = stablehlo.constant dense<0> : tensor<i32>
// CHECK:     %5 = stablehlo.reduce(%4 init: %c_0) applies stablehlo.add across dimensions = [1] : (tensor<3x3xi32>, tensor<i32>) -> tensor<3xi32>
// CHECK:     %6 = stablehlo.subtract %5, %arg2 : tensor<3xi32>
// CHECK:     %7 = stablehlo.iota dim = 1 : tensor<3x6xi32>
// CHECK:     %8 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<3xi32>) -> tensor<3x6xi32>
// CHECK:     %9 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<3xi32>) -> tensor<3x6xi32>
// CHECK:     %10 = stablehlo.compare  LE, %8, %7,  SIGNED : (tensor<3x6xi32>, tensor<3x6xi32>) -> tensor<3x6xi1>
// CHECK:     %11 = stablehlo.compare  LT, %7, %9,  SIGNED : (tensor<3x6xi32>, tensor<3x6xi32>) -> tensor<3x6xi1>
// CHECK:     %12 = stablehlo.and %10, %11 : tensor<3x6xi1>
// CHECK:     %13 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<6x4xf32>) -> tensor<3x6x4xf32>
// CHECK:     %14 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<3x6xi1>) -> tensor<3x6x4xi1>
// CHECK:     %cst = stablehlo.constant dense<0.000000e+00> : tensor<3x6x4xf32>
// CHECK:     %15 = stablehlo.select %14, %13, %cst : tensor<3x6x4xi1>, tensor<3x6x4xf32>
// CHECK:     %16 = stablehlo.dot_general %15, %arg1, contracting_dims = [0, 2] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<3x6x4xf32>, tensor<3x4x5xf32>) -> tensor<6x5xf32>
// CHECK:     %17 = stablehlo.iota dim = 1 : tensor<3x4xi32>
// CHECK:     %18 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<3xi32>) -> tensor<3x4xi32>
// CHECK:     %19 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<3xi32>) -> tensor<3x4xi32>
// CHECK:     %20 = stablehlo.compare  LE, %18, %17,  SIGNED : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
// CHECK:     %21 = stablehlo.compare  LT, %17, %19,  SIGNED : (tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi1>
// CHECK:     %22 = stablehlo.and %20, %21 : tensor<3x4xi1>
// CHECK:     %23 = stablehlo.broadcast_in_dim %22, dims = [0, 2] : (tensor<3x4xi1>) -> tensor<3x6x4xi1>
// CHECK:     %24 = stablehlo.select %23, %13, %cst : tensor<3x6x4xi1>, tensor<3x6x4xf32>
// CHECK:     %25 = stablehlo.dot_general %24, %arg3, contracting_dims = [2] x [0] : (tensor<3x6x4xf32>, tensor<4x5xf32>) -> tensor<3x6x5xf32>
// CHECK:     %26 = stablehlo.dot_general %arg4, %arg5, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<3x6x4xf32>, tensor<3x4x5xf32>) -> tensor<3x6x5xf32>
// CHECK:     return %16, %25, %26 : tensor<6x5xf32>, tensor<3x6x5xf32>, tensor<3x6x5xf32>
// CHECK:   }
// CHECK: }
