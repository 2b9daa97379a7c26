// RUN: parse
// ERROR: 5:31: dense literal has 2 elements where the type needs 3
module {
  func.func @main() -> tensor<3xf32> {
    %cst = stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<3xf32>
    return %cst : tensor<3xf32>
  }
}
