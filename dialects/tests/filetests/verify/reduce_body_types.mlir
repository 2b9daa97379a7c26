// RUN: verify
// The reducer takes and returns f32 scalars for an f32 reduction, not i32.
// ERROR: 7:5: region 0 must take (tensor<f32>, tensor<f32>), takes (tensor<i32>, tensor<i32>)
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<f32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
     reducer(%a: tensor<i32>, %b: tensor<i32>)  {
      %1 = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %1 : tensor<i32>
    }
    return %0 : tensor<f32>
  }
}
