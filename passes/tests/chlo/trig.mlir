// RUN: chlo-legalize,cse
// Inverse trigonometric ops over atan2 (cse shares the constants).
module {
  func.func public @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
    %0 = chlo.asin %arg0 : tensor<3xf32> -> tensor<3xf32>
    %1 = chlo.acos %arg0 : tensor<3xf32> -> tensor<3xf32>
    %2 = chlo.atan %arg0 : tensor<3xf32> -> tensor<3xf32>
    return %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
// CHECK:     %cst = stablehlo.constant dense<1.000000e+00> : tensor<3xf32>
// CHECK:     %0 = stablehlo.subtract %cst, %arg0 : tensor<3xf32>
// CHECK:     %1 = stablehlo.add %cst, %arg0 : tensor<3xf32>
// CHECK:     %2 = stablehlo.multiply %0, %1 : tensor<3xf32>
// CHECK:     %3 = stablehlo.sqrt %2 : tensor<3xf32>
// CHECK:     %4 = stablehlo.add %cst, %3 : tensor<3xf32>
// CHECK:     %5 = stablehlo.atan2 %arg0, %4 : tensor<3xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<3xf32>
// CHECK:     %6 = stablehlo.multiply %cst_0, %5 : tensor<3xf32>
// CHECK:     %7 = stablehlo.atan2 %3, %1 : tensor<3xf32>
// CHECK:     %8 = stablehlo.multiply %cst_0, %7 : tensor<3xf32>
// CHECK:     %cst_1 = stablehlo.constant dense<-1.000000e+00> : tensor<3xf32>
// CHECK:     %cst_2 = stablehlo.constant dense<3.1415927e+00> : tensor<3xf32>
// CHECK:     %9 = stablehlo.compare  NE, %arg0, %cst_1,  FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
// CHECK:     %10 = stablehlo.select %9, %8, %cst_2 : tensor<3xi1>, tensor<3xf32>
// CHECK:     %11 = stablehlo.atan2 %arg0, %cst : tensor<3xf32>
// CHECK:     return %6, %10, %11 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
// CHECK:   }
// CHECK: }
