// RUN: verify
// ERROR: 5:5: dimension 0: limit 8 exceeds the size 4
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<8xf32> {
    %0 = stablehlo.slice %arg0 [0:8] : (tensor<4xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}
