// RUN: canonicalize
// A transposed convolution input is read in place through the dimension numbers.
module {
  func.func public @main(%arg0: tensor<1x8x8x3xf32>, %arg1: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
    %0 = stablehlo.transpose %arg0, dims = [0, 3, 1, 2] : (tensor<1x8x8x3xf32>) -> tensor<1x3x8x8xf32>
    %1 = stablehlo.convolution(%0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
    return %1 : tensor<1x4x6x6xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<1x8x8x3xf32>, %arg1: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
// CHECK:     %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[o, i, 0, 1]->[b, f, 0, 1], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK:     return %0 : tensor<1x4x6x6xf32>
// CHECK:   }
// CHECK: }
