// RUN: verify
// A reduction body may compute in a wider type of its operands' kind (reduce's C6), not in
// another kind.
func.func @main(%x: tensor<4xf32>, %init: tensor<f32>) -> tensor<f64> {
  %0 = "stablehlo.reduce"(%x, %init) ({
  ^bb0(%a: tensor<f64>, %b: tensor<f64>):
    %1 = stablehlo.add %a, %b : tensor<f64>
    stablehlo.return %1 : tensor<f64>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<f64>
  %2 = "stablehlo.reduce"(%x, %init) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    %3 = stablehlo.add %a, %b : tensor<i64>
    stablehlo.return %3 : tensor<i64>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<i64>
  return %0 : tensor<f64>
}
// ERROR: 10:3: region 0 must take (tensor<f32>, tensor<f32>), takes (tensor<i64>, tensor<i64>)
