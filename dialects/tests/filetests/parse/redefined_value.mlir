// RUN: parse
// ERROR: 6:5: redefinition of value %0
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.abs %arg0 : tensor<4xf32>
    %0 = stablehlo.negate %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
