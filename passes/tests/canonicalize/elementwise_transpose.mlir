// RUN: canonicalize
// An elementwise op moves above a transpose shared by its operands; constants follow.
module {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> tensor<3x2xf32> {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %1 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<3x2xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<3x2xf32>
    %3 = stablehlo.add %2, %cst : tensor<3x2xf32>
    return %3 : tensor<3x2xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xf32>) -> tensor<3x2xf32> {
// CHECK:     %0 = stablehlo.multiply %arg0, %arg1 : tensor<2x3xf32>
// CHECK:     %cst = stablehlo.constant dense<2.000000e+00> : tensor<2x3xf32>
// CHECK:     %1 = stablehlo.add %0, %cst : tensor<2x3xf32>
// CHECK:     %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK:     return %2 : tensor<3x2xf32>
// CHECK:   }
// CHECK: }
