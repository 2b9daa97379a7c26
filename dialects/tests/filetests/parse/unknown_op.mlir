// RUN: parse
// An op no dialect defines.
// ERROR: 6:10: unsupported StableHLO op `stablehlo.frobnicate`: tpuc's IR does not model it
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.frobnicate %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
