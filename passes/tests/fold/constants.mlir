// RUN: fold
// Constant operands fold: splats stay splats whatever the shape; small dense ones are computed.
module {
  func.func public @main() -> (tensor<1000x1000xf32>, tensor<2x3xi32>, tensor<3x2xi32>, tensor<4xi1>, tensor<4xf32>) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1000x1000xf32>
    %1 = stablehlo.sqrt %0 : tensor<1000x1000xf32>
    %c = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
    %2 = stablehlo.add %c, %c : tensor<2x3xi32>
    %3 = stablehlo.transpose %2, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
    %cst_0 = stablehlo.constant dense<[1.000000e+00, 0xFF800000, 0x7FC00000, -2.000000e+00]> : tensor<4xf32>
    %4 = stablehlo.compare  GT, %cst_0, %cst_0,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %5 = stablehlo.maximum %cst_0, %cst_0 : tensor<4xf32>
    return %1, %2, %3, %4, %5 : tensor<1000x1000xf32>, tensor<2x3xi32>, tensor<3x2xi32>, tensor<4xi1>, tensor<4xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main() -> (tensor<1000x1000xf32>, tensor<2x3xi32>, tensor<3x2xi32>, tensor<4xi1>, tensor<4xf32>) {
// CHECK:     %cst = stablehlo.constant dense<1.4142135e+00> : tensor<1000x1000xf32>
// CHECK:     %c = stablehlo.constant dense<[[2, 4, 6], [8, 10, 12]]> : tensor<2x3xi32>
// CHECK:     %c_0 = stablehlo.constant dense<[[2, 8], [4, 10], [6, 12]]> : tensor<3x2xi32>
// CHECK:     %c_1 = stablehlo.constant dense<false> : tensor<4xi1>
// CHECK:     %cst_2 = stablehlo.constant dense<[1.000000e+00, 0xFF800000, 0x7FC00000, -2.000000e+00]> : tensor<4xf32>
// CHECK:     return %cst, %c, %c_0, %c_1, %cst_2 : tensor<1000x1000xf32>, tensor<2x3xi32>, tensor<3x2xi32>, tensor<4xi1>, tensor<4xf32>
// CHECK:   }
// CHECK: }
