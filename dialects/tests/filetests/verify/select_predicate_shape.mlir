// RUN: verify
// ERROR: 5:5: pred and on_true: shapes [3] and [4] differ
module {
  func.func @main(%arg0: tensor<3xi1>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg1 : tensor<3xi1>, tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
