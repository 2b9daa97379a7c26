// RUN: verify
// chlo.mulhi takes integers (the high half of their double-width product), not floats.
func.func @main(%a: tensor<3xi8>, %f: tensor<3xf32>) -> tensor<3xi8> {
  %0 = "chlo.mulhi"(%a, %a) : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  %1 = "chlo.mulhi"(%f, %f) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xi8>
}
// ERROR: 5:3: does not accept element type f32
