// RUN: verify
// ERROR: 6:5: dimension 2 is out of range [0, 2)
module {
  func.func @main(%arg0: tensor<2x4xf32>) -> tensor<2xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
