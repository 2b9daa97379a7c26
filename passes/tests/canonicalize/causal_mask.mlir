// RUN: canonicalize
// A causal mask as `j - i <= 0` over positions compares the positions directly.
module {
  func.func public @main() -> tensor<8x8xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<8xi64>
    %1 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<8xi64>) -> tensor<8x8xi64>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<8xi64>) -> tensor<8x8xi64>
    %3 = stablehlo.subtract %1, %2 : tensor<8x8xi64>
    %c = stablehlo.constant dense<0> : tensor<8x8xi64>
    %4 = stablehlo.compare  LE, %3, %c,  SIGNED : (tensor<8x8xi64>, tensor<8x8xi64>) -> tensor<8x8xi1>
    return %4 : tensor<8x8xi1>
  }
}
// CHECK: module {
// CHECK:   func.func public @main() -> tensor<8x8xi1> {
// CHECK:     %0 = stablehlo.iota dim = 0 : tensor<8xi64>
// CHECK:     %1 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<8xi64>) -> tensor<8x8xi64>
// CHECK:     %2 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<8xi64>) -> tensor<8x8xi64>
// CHECK:     %3 = stablehlo.compare  LE, %1, %2,  SIGNED : (tensor<8x8xi64>, tensor<8x8xi64>) -> tensor<8x8xi1>
// CHECK:     return %3 : tensor<8x8xi1>
// CHECK:   }
// CHECK: }
