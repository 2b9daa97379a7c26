// RUN: canonicalize
// x*1, x/1, integer x+0 and float x-0 are x; float x+0 stays (-0.0 + 0.0 is +0.0).
module {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<4xf32>
    %c = stablehlo.constant dense<0> : tensor<4xi32>
    %0 = stablehlo.multiply %cst, %arg0 : tensor<4xf32>
    %1 = stablehlo.divide %arg0, %cst : tensor<4xf32>
    %2 = stablehlo.add %arg1, %c : tensor<4xi32>
    %3 = stablehlo.subtract %arg0, %cst_0 : tensor<4xf32>
    %4 = stablehlo.add %arg0, %cst_0 : tensor<4xf32>
    return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>) {
// CHECK:     %cst = stablehlo.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK:     %0 = stablehlo.add %arg0, %cst : tensor<4xf32>
// CHECK:     return %arg0, %arg0, %arg1, %arg0, %0 : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>
// CHECK:   }
// CHECK: }
