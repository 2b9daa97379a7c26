// RUN: canonicalize
// Transposes compose; the identity disappears; one that only moves a size-1 dimension is a reshape.
module {
  func.func public @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<1x5xf32>) -> (tensor<4x3x2xf32>, tensor<2x3x4xf32>, tensor<5x1xf32>) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0, 2] : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
    %1 = stablehlo.transpose %0, dims = [2, 0, 1] : (tensor<3x2x4xf32>) -> tensor<4x3x2xf32>
    %2 = stablehlo.transpose %0, dims = [1, 0, 2] : (tensor<3x2x4xf32>) -> tensor<2x3x4xf32>
    %3 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<1x5xf32>) -> tensor<5x1xf32>
    return %1, %2, %3 : tensor<4x3x2xf32>, tensor<2x3x4xf32>, tensor<5x1xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<1x5xf32>) -> (tensor<4x3x2xf32>, tensor<2x3x4xf32>, tensor<5x1xf32>) {
// CHECK:     %0 = stablehlo.transpose %arg0, dims = [2, 1, 0] : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// CHECK:     %1 = stablehlo.reshape %arg1 : (tensor<1x5xf32>) -> tensor<5x1xf32>
// CHECK:     return %0, %arg0, %1 : tensor<4x3x2xf32>, tensor<2x3x4xf32>, tensor<5x1xf32>
// CHECK:   }
// CHECK: }
