// RUN: parse
// The reducer body is never closed: the function's `return` is read as part of it, where
// %0 (the reduce's own result) is not defined yet.
// ERROR: 12:12: undefined value %0
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<f32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
     reducer(%a: tensor<f32>, %b: tensor<f32>)  {
      %1 = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    return %0 : tensor<f32>
  }
}
