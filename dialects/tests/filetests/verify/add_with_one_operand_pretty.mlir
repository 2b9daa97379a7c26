// RUN: verify
// The parser reads the pretty form of a binary op with one operand; the verifier rejects it.
// ERROR: 6:5: expects 2 operand(s), got 1
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
