// RUN: verify
// ERROR: 5:5: result 0 has type tensor<2x2xf32>, expected tensor<2x3xf32>
module {
  func.func @main(%arg0: tensor<4x6xf32>) -> tensor<2x2xf32> {
    %0 = stablehlo.slice %arg0 [0:4:2, 1:6:2] : (tensor<4x6xf32>) -> tensor<2x2xf32>
    return %0 : tensor<2x2xf32>
  }
}
