// RUN: canonicalize
// An elementwise op between two reshapes, with splat constants, runs on the unreshaped value.
module {
  func.func public @main(%arg0: tensor<2x16xf32>) -> tensor<2x16xf32> {
    %0 = stablehlo.reshape %arg0 : (tensor<2x16xf32>) -> tensor<2x16x1x1xf32>
    %cst = stablehlo.constant dense<6.400000e+01> : tensor<2x16x1x1xf32>
    %1 = stablehlo.divide %0, %cst : tensor<2x16x1x1xf32>
    %2 = stablehlo.reshape %1 : (tensor<2x16x1x1xf32>) -> tensor<2x16xf32>
    return %2 : tensor<2x16xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x16xf32>) -> tensor<2x16xf32> {
// CHECK:     %cst = stablehlo.constant dense<6.400000e+01> : tensor<2x16xf32>
// CHECK:     %0 = stablehlo.divide %arg0, %cst : tensor<2x16xf32>
// CHECK:     return %0 : tensor<2x16xf32>
// CHECK:   }
// CHECK: }
