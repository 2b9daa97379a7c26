// RUN: parse
// ERROR: 5:29: unknown comparison_direction `SIDEWAYS`
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xi1> {
    %0 = stablehlo.compare  SIDEWAYS, %arg0, %arg0,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    return %0 : tensor<4xi1>
  }
}
