// RUN: verify
// ERROR: 5:5: callee `@missing` is not defined
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = func.call @missing(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
