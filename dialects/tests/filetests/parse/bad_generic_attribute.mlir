// RUN: parse
// ERROR: 5:82: expected '>' to close `array<...>`, found `}`
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<2x4xf32> {
    %0 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 1} : (tensor<4xf32>) -> tensor<2x4xf32>
    return %0 : tensor<2x4xf32>
  }
}
