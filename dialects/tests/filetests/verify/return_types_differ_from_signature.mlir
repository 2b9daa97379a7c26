// RUN: verify
// ERROR: 5:5: returns (tensor<2xf32>), the signature says (tensor<4xf32>)
module {
  func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<2xf32>) -> tensor<4xf32> {
    return %arg1 : tensor<2xf32>
  }
}
