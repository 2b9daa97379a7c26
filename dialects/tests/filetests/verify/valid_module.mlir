// RUN: verify
// A module that verifies prints back in its pretty form.
module {
  func.func public @main(%arg0: tensor<2x3xf32>) -> tensor<3x2xf32> {
    %0 = "stablehlo.transpose"(%arg0) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %1 = stablehlo.abs %0 : tensor<3x2xf32>
    return %1 : tensor<3x2xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x3xf32>) -> tensor<3x2xf32> {
// CHECK:     %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK:     %1 = stablehlo.abs %0 : tensor<3x2xf32>
// CHECK:     return %1 : tensor<3x2xf32>
// CHECK:   }
// CHECK: }
