// RUN: chlo-legalize
// Broadcasting binary ops: numpy-style (trailing dimensions aligned), explicit
// `broadcast_dimensions`, size-1 dimensions stretched; operands already of the result shape
// are used as they are.
module {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<2xf32>, %arg3: tensor<1x3xi32>, %arg4: tensor<2x1xi32>, %arg5: tensor<2x3xi1>, %arg6: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>) {
    %0 = chlo.broadcast_add %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %1 = chlo.broadcast_multiply %arg0, %arg2 {broadcast_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
    %2 = chlo.broadcast_shift_left %arg3, %arg4 : (tensor<1x3xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
    %3 = chlo.broadcast_select %arg5, %arg0, %arg6 : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %4 = chlo.broadcast_maximum %arg0, %arg0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<2xf32>, %arg3: tensor<1x3xi32>, %arg4: tensor<2x1xi32>, %arg5: tensor<2x3xi1>, %arg6: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>) {
// CHECK:     %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK:     %1 = stablehlo.add %arg0, %0 : tensor<2x3xf32>
// CHECK:     %2 = stablehlo.broadcast_in_dim %arg2, dims = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
// CHECK:     %3 = stablehlo.multiply %arg0, %2 : tensor<2x3xf32>
// CHECK:     %4 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<1x3xi32>) -> tensor<2x3xi32>
// CHECK:     %5 = stablehlo.broadcast_in_dim %arg4, dims = [0, 1] : (tensor<2x1xi32>) -> tensor<2x3xi32>
// CHECK:     %6 = stablehlo.shift_left %4, %5 : tensor<2x3xi32>
// CHECK:     %7 = stablehlo.broadcast_in_dim %arg6, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
// CHECK:     %8 = stablehlo.select %arg5, %arg0, %7 : tensor<2x3xi1>, tensor<2x3xf32>
// CHECK:     %9 = stablehlo.maximum %arg0, %arg0 : tensor<2x3xf32>
// CHECK:     return %1, %3, %6, %8, %9 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>
// CHECK:   }
// CHECK: }
