// RUN: chlo-legalize
// square, tan and the predicates on infinity; square of an integer too.
module {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
    %0 = chlo.square %arg0 : tensor<4xf32> -> tensor<4xf32>
    %1 = chlo.square %arg1 : tensor<4xi32> -> tensor<4xi32>
    %2 = chlo.tan %arg0 : tensor<4xf32> -> tensor<4xf32>
    %3 = chlo.is_inf %arg0 : tensor<4xf32> -> tensor<4xi1>
    %4 = chlo.is_pos_inf %arg0 : tensor<4xf32> -> tensor<4xi1>
    %5 = chlo.is_neg_inf %arg0 : tensor<4xf32> -> tensor<4xi1>
    return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
// CHECK:     %0 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
// CHECK:     %1 = stablehlo.multiply %arg1, %arg1 : tensor<4xi32>
// CHECK:     %2 = stablehlo.tan %arg0 : tensor<4xf32>
// CHECK:     %3 = stablehlo.abs %arg0 : tensor<4xf32>
// CHECK:     %cst = stablehlo.constant dense<0x7F800000> : tensor<4xf32>
// CHECK:     %4 = stablehlo.compare  EQ, %3, %cst,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK:     %cst_0 = stablehlo.constant dense<0x7F800000> : tensor<4xf32>
// CHECK:     %5 = stablehlo.compare  EQ, %arg0, %cst_0,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK:     %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<4xf32>
// CHECK:     %6 = stablehlo.compare  EQ, %arg0, %cst_1,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK:     return %0, %1, %2, %4, %5, %6 : tensor<4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
// CHECK:   }
// CHECK: }
