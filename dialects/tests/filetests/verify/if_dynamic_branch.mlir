// RUN: verify
// The branches of `if` return compatible types: a dynamic dimension matches a static one, a
// different static size or element type does not.
func.func @main(%p: tensor<i1>, %a: tensor<2xf32>, %b: tensor<?xf32>, %c: tensor<3xf32>) -> tensor<2xf32> {
  %0 = "stablehlo.if"(%p) ({
    "stablehlo.return"(%a) : (tensor<2xf32>) -> ()
  }, {
    "stablehlo.return"(%b) : (tensor<?xf32>) -> ()
  }) : (tensor<i1>) -> tensor<2xf32>
  %1 = "stablehlo.if"(%p) ({
    "stablehlo.return"(%a) : (tensor<2xf32>) -> ()
  }, {
    "stablehlo.return"(%c) : (tensor<3xf32>) -> ()
  }) : (tensor<i1>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
// ERROR: 10:3: branch 1 must return (tensor<2xf32>), returns (tensor<3xf32>)
