// RUN: fuse,dce
// The erf is also returned: an intermediate would escape the composite, so nothing is fused.
module {
  func.func public @main(%x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
    %cst_11 = stablehlo.constant dense<7.0710677e-01> : tensor<8x64xf32>
    %84 = stablehlo.multiply %x, %cst_11 : tensor<8x64xf32>
    %85 = stablehlo.custom_call @mhlo.erf(%84) {mhlo.attributes = {}, mhlo.version = 1 : i64} : (tensor<8x64xf32>) -> tensor<8x64xf32>
    %cst_12 = stablehlo.constant dense<1.000000e+00> : tensor<8x64xf32>
    %cst_13 = stablehlo.constant dense<5.000000e-01> : tensor<8x64xf32>
    %86 = stablehlo.add %cst_12, %85 : tensor<8x64xf32>
    %87 = stablehlo.multiply %cst_13, %x : tensor<8x64xf32>
    %88 = stablehlo.multiply %87, %86 : tensor<8x64xf32>
    return %88, %85 : tensor<8x64xf32>, tensor<8x64xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
// CHECK:     %cst = stablehlo.constant dense<7.0710677e-01> : tensor<8x64xf32>
// CHECK:     %0 = stablehlo.multiply %arg0, %cst : tensor<8x64xf32>
// CHECK:     %1 = stablehlo.custom_call @mhlo.erf(%0) {mhlo.attributes = {}, mhlo.version = 1 : i64} : (tensor<8x64xf32>) -> tensor<8x64xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<8x64xf32>
// CHECK:     %cst_1 = stablehlo.constant dense<5.000000e-01> : tensor<8x64xf32>
// CHECK:     %2 = stablehlo.add %cst_0, %1 : tensor<8x64xf32>
// CHECK:     %3 = stablehlo.multiply %cst_1, %arg0 : tensor<8x64xf32>
// CHECK:     %4 = stablehlo.multiply %3, %2 : tensor<8x64xf32>
// CHECK:     return %4, %1 : tensor<8x64xf32>, tensor<8x64xf32>
// CHECK:   }
// CHECK: }
