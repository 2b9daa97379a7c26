// RUN: verify
// ERROR: 5:5: result 0 has type tensor<4xi32>, expected tensor<4xf32>
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi32>
    return %arg0 : tensor<4xf32>
  }
}
