// RUN: canonicalize
// Broadcasts compose, look through reshapes that insert size-1 dimensions, and a reshape of a
// broadcast scalar is a broadcast.
module {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<f32>) -> (tensor<2x3x4xf32>, tensor<2x4x3xf32>, tensor<6x4xf32>) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<4xf32>) -> tensor<3x4xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [1, 2] : (tensor<3x4xf32>) -> tensor<2x3x4xf32>
    %2 = stablehlo.reshape %arg0 : (tensor<4xf32>) -> tensor<1x4x1xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1, 2] : (tensor<1x4x1xf32>) -> tensor<2x4x3xf32>
    %4 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<24xf32>
    %5 = stablehlo.reshape %4 : (tensor<24xf32>) -> tensor<6x4xf32>
    return %1, %3, %5 : tensor<2x3x4xf32>, tensor<2x4x3xf32>, tensor<6x4xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<f32>) -> (tensor<2x3x4xf32>, tensor<2x4x3xf32>, tensor<6x4xf32>) {
// CHECK:     %0 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK:     %1 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<4xf32>) -> tensor<2x4x3xf32>
// CHECK:     %2 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<6x4xf32>
// CHECK:     return %0, %1, %2 : tensor<2x3x4xf32>, tensor<2x4x3xf32>, tensor<6x4xf32>
// CHECK:   }
// CHECK: }
