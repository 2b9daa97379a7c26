// RUN: canonicalize
// A reshape of a reshape reshapes the source; a reshape to the same type is gone.
module {
  func.func public @main(%arg0: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<2x3x4xf32>) {
    %0 = stablehlo.reshape %arg0 : (tensor<2x3x4xf32>) -> tensor<24xf32>
    %1 = stablehlo.reshape %0 : (tensor<24xf32>) -> tensor<6x4xf32>
    %2 = stablehlo.reshape %0 : (tensor<24xf32>) -> tensor<2x3x4xf32>
    return %1, %2 : tensor<6x4xf32>, tensor<2x3x4xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<2x3x4xf32>) {
// CHECK:     %0 = stablehlo.reshape %arg0 : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK:     return %0, %arg0 : tensor<6x4xf32>, tensor<2x3x4xf32>
// CHECK:   }
// CHECK: }
