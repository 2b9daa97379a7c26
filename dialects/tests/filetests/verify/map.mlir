// RUN: verify
// map's constraints C1-C4, each broken once after a valid map.
func.func @main(%a: tensor<4xf32>, %b: tensor<4xi32>, %c: tensor<3xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.map"(%a, %b) ({
    ^bb0(%x: tensor<f32>, %y: tensor<i32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  %1 = "stablehlo.map"(%a, %c) ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  %2 = "stablehlo.map"(%a) ({
    ^bb0(%x: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "stablehlo.map"(%a) ({
    ^bb0(%x: tensor<f32>):
    "stablehlo.return"(%a) : (tensor<4xf32>) -> ()
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  %4 = "stablehlo.map"(%a) ({
    ^bb0(%x: tensor<f32>):
    "stablehlo.return"(%x) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xf32>
}
// ERROR: 8:3: C1: inputs must have one shape, got tensor<4xf32>, tensor<3xf32>
// ERROR: 12:3: C2: dimensions must be [0], got [1]
// ERROR: 16:3: C3: computation must return a scalar, returns tensor<4xf32>
// ERROR: 20:3: result 0 has type tensor<4xi32>, expected tensor<4xf32>
