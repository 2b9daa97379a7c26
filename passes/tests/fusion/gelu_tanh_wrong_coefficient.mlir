// RUN: fuse,dce
// Not GELU: the cubic coefficient is 0.045, not 0.044715. Left alone.
module {
  func.func public @main(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
    %50 = stablehlo.multiply %x, %x : tensor<4x64xf32>
    %51 = stablehlo.multiply %50, %x : tensor<4x64xf32>
    %cst_7 = stablehlo.constant dense<4.500000e-02> : tensor<4x64xf32>
    %52 = stablehlo.multiply %cst_7, %51 : tensor<4x64xf32>
    %53 = stablehlo.add %x, %52 : tensor<4x64xf32>
    %cst_8 = stablehlo.constant dense<7.978846e-01> : tensor<4x64xf32>
    %54 = stablehlo.multiply %cst_8, %53 : tensor<4x64xf32>
    %55 = stablehlo.tanh %54 : tensor<4x64xf32>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<4x64xf32>
    %cst_10 = stablehlo.constant dense<5.000000e-01> : tensor<4x64xf32>
    %56 = stablehlo.add %cst_9, %55 : tensor<4x64xf32>
    %57 = stablehlo.multiply %cst_10, %x : tensor<4x64xf32>
    %58 = stablehlo.multiply %57, %56 : tensor<4x64xf32>
    return %58 : tensor<4x64xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4x64xf32>) -> tensor<4x64xf32> {
// CHECK:     %0 = stablehlo.multiply %arg0, %arg0 : tensor<4x64xf32>
// CHECK:     %1 = stablehlo.multiply %0, %arg0 : tensor<4x64xf32>
// CHECK:     %cst = stablehlo.constant dense<4.500000e-02> : tensor<4x64xf32>
// CHECK:     %2 = stablehlo.multiply %cst, %1 : tensor<4x64xf32>
// CHECK:     %3 = stablehlo.add %arg0, %2 : tensor<4x64xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<7.978846e-01> : tensor<4x64xf32>
// CHECK:     %4 = stablehlo.multiply %cst_0, %3 : tensor<4x64xf32>
// CHECK:     %5 = stablehlo.tanh %4 : tensor<4x64xf32>
// CHECK:     %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<4x64xf32>
// CHECK:     %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<4x64xf32>
// CHECK:     %6 = stablehlo.add %cst_1, %5 : tensor<4x64xf32>
// CHECK:     %7 = stablehlo.multiply %cst_2, %arg0 : tensor<4x64xf32>
// CHECK:     %8 = stablehlo.multiply %7, %6 : tensor<4x64xf32>
// CHECK:     return %8 : tensor<4x64xf32>
// CHECK:   }
// CHECK: }
