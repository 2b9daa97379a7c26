// RUN: parse
// ERROR: 5:31: undefined value %7
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %7 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
