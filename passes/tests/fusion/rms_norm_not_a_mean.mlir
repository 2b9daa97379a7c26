// RUN: fuse,dce
// The sum of squares is scaled by 1/15 over 16 elements: not a mean, so not RMSNorm.
module {
  func.func public @main(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %1 = stablehlo.multiply %x, %x : tensor<8x16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_0 = stablehlo.constant dense<0.0666666701> : tensor<8xf32>
    %3 = stablehlo.multiply %2, %cst_0 : tensor<8xf32>
    %cst_1 = stablehlo.constant dense<1.000000e-06> : tensor<8xf32>
    %4 = stablehlo.add %3, %cst_1 : tensor<8xf32>
    %5 = stablehlo.rsqrt %4 : tensor<8xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<8xf32>) -> tensor<8x16xf32>
    %7 = stablehlo.multiply %x, %6 : tensor<8x16xf32>
    return %7 : tensor<8x16xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<8x16xf32>) -> tensor<8x16xf32> {
// CHECK:     %0 = stablehlo.multiply %arg0, %arg0 : tensor<8x16xf32>
// CHECK:     %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<6.666667e-02> : tensor<8xf32>
// CHECK:     %2 = stablehlo.multiply %1, %cst_0 : tensor<8xf32>
// CHECK:     %cst_1 = stablehlo.constant dense<1.000000e-06> : tensor<8xf32>
// CHECK:     %3 = stablehlo.add %2, %cst_1 : tensor<8xf32>
// CHECK:     %4 = stablehlo.rsqrt %3 : tensor<8xf32>
// CHECK:     %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<8xf32>) -> tensor<8x16xf32>
// CHECK:     %6 = stablehlo.multiply %arg0, %5 : tensor<8x16xf32>
// CHECK:     return %6 : tensor<8x16xf32>
// CHECK:   }
// CHECK: }
