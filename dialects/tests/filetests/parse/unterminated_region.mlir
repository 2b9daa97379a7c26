// RUN: parse
// The function's body is never closed.
// ERROR: 9:1: expected `func.func` or `sdy.mesh` in the module body, found end of input
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.abs %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
}
