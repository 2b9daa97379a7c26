// RUN: parse
// ERROR: 5:41: unknown element type `f33`
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.abs %arg0 : tensor<4xf33>
    return %0 : tensor<4xf32>
  }
}
