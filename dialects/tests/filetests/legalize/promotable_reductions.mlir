// RUN: legalize
// A reduce whose body computes in f64 over f32 operands (the spec's promotable types) gets its
// operands converted to f64, as XLA wants; all_reduce likewise.
func.func @main(%x: tensor<4xf32>, %init: tensor<f32>) -> (tensor<f64>, tensor<4xf64>) {
  %0 = "stablehlo.reduce"(%x, %init) ({
  ^bb0(%a: tensor<f64>, %b: tensor<f64>):
    %1 = stablehlo.add %a, %b : tensor<f64>
    stablehlo.return %1 : tensor<f64>
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<f64>
  %2 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f64>, %b: tensor<f64>):
    %3 = stablehlo.add %a, %b : tensor<f64>
    stablehlo.return %3 : tensor<f64>
  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xf32>) -> tensor<4xf64>
  return %0, %2 : tensor<f64>, tensor<4xf64>
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<f32>) -> (tensor<f64>, tensor<4xf64>) {
// CHECK:     %0 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xf64>
// CHECK:     %1 = stablehlo.convert %arg1 : (tensor<f32>) -> tensor<f64>
// CHECK:     %2 = stablehlo.reduce(%0 init: %1) applies stablehlo.add across dimensions = [0] : (tensor<4xf64>, tensor<f64>) -> tensor<f64>
// CHECK:     %3 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xf64>
// CHECK:     %4 = "stablehlo.all_reduce"(%3) <{replica_groups = dense<0> : tensor<1x1xi64>}> ({
// CHECK:     ^bb0(%arg2: tensor<f64>, %arg3: tensor<f64>):
// CHECK:       %5 = stablehlo.add %arg2, %arg3 : tensor<f64>
// CHECK:       stablehlo.return %5 : tensor<f64>
// CHECK:     }) : (tensor<4xf64>) -> tensor<4xf64>
// CHECK:     return %2, %4 : tensor<f64>, tensor<4xf64>
// CHECK:   }
// CHECK: }
