// RUN: evaluate,dce
// Positions worked out through gathers, running sums and slices: a packed-sequence test that
// finds one sequence (every position one past the last) is a constant, and so is a gather
// whose start indices clamp to the last position; the positions themselves, not the same
// everywhere, stay as the program computes them.
module {
  func.func public @main() -> (tensor<1x6xi1>, tensor<1x6xi64>, tensor<3xi32>, tensor<1x6xi64>) {
    %0 = stablehlo.iota dim = 0 : tensor<6xi64>
    %1 = stablehlo.reshape %0 : (tensor<6xi64>) -> tensor<1x6xi64>
    %c = stablehlo.constant dense<1> : tensor<1x1xi64>
    %2 = stablehlo.slice %1 [0:1, 0:1] : (tensor<1x6xi64>) -> tensor<1x1xi64>
    %3 = stablehlo.subtract %2, %c : tensor<1x1xi64>
    %4 = stablehlo.concatenate %3, %1, dim = 1 : (tensor<1x1xi64>, tensor<1x6xi64>) -> tensor<1x7xi64>
    %5 = stablehlo.slice %4 [0:1, 1:7] : (tensor<1x7xi64>) -> tensor<1x6xi64>
    %6 = stablehlo.slice %4 [0:1, 0:6] : (tensor<1x7xi64>) -> tensor<1x6xi64>
    %7 = stablehlo.subtract %5, %6 : tensor<1x6xi64>
    %c_0 = stablehlo.constant dense<1> : tensor<1x6xi64>
    %8 = stablehlo.compare  NE, %7, %c_0,  SIGNED : (tensor<1x6xi64>, tensor<1x6xi64>) -> tensor<1x6xi1>
    %9 = stablehlo.convert %8 : (tensor<1x6xi1>) -> tensor<1x6xi64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %10 = "stablehlo.reduce_window"(%9, %c_1) <{padding = dense<[[0, 0], [5, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 6>}> ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %15 = stablehlo.add %arg0, %arg1 : tensor<i64>
      stablehlo.return %15 : tensor<i64>
    }) : (tensor<1x6xi64>, tensor<i64>) -> tensor<1x6xi64>
    %11 = stablehlo.constant dense<[[0, 5], [0, 9], [0, 7]]> : tensor<3x2xi64>
    %12 = "stablehlo.gather"(%1, %11) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 1>}> : (tensor<1x6xi64>, tensor<3x2xi64>) -> tensor<3xi64>
    %13 = stablehlo.convert %12 : (tensor<3xi64>) -> tensor<3xi32>
    %14 = stablehlo.compare  EQ, %10, %c_0,  SIGNED : (tensor<1x6xi64>, tensor<1x6xi64>) -> tensor<1x6xi1>
    return %14, %10, %13, %1 : tensor<1x6xi1>, tensor<1x6xi64>, tensor<3xi32>, tensor<1x6xi64>
  }
}
// CHECK: module {
// CHECK:   func.func public @main() -> (tensor<1x6xi1>, tensor<1x6xi64>, tensor<3xi32>, tensor<1x6xi64>) {
// CHECK:     %0 = stablehlo.iota dim = 0 : tensor<6xi64>
// CHECK:     %1 = stablehlo.reshape %0 : (tensor<6xi64>) -> tensor<1x6xi64>
// CHECK:     %c = stablehlo.constant dense<0> : tensor<1x6xi64>
// CHECK:     %c_0 = stablehlo.constant dense<5> : tensor<3xi32>
// CHECK:     %c_1 = stablehlo.constant dense<false> : tensor<1x6xi1>
// CHECK:     return %c_1, %c, %c_0, %1 : tensor<1x6xi1>, tensor<1x6xi64>, tensor<3xi32>, tensor<1x6xi64>
// CHECK:   }
// CHECK: }
