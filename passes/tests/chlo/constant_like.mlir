// RUN: chlo-legalize
// chlo.constant_like: a splat constant of the operand's shape for static operands (float,
// integer, i1), a scalar broadcast to the runtime dimensions for dynamic ones.
module {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<4xi32>, %arg2: tensor<2xi1>, %arg3: tensor<?x3xf32>) -> (tensor<2x3xf32>, tensor<4xi32>, tensor<2xi1>, tensor<?x3xf32>) {
    %0 = "chlo.constant_like"(%arg0) {value = 1.500000e+00 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %1 = "chlo.constant_like"(%arg1) {value = -7 : i32} : (tensor<4xi32>) -> tensor<4xi32>
    %2 = "chlo.constant_like"(%arg2) {value = true} : (tensor<2xi1>) -> tensor<2xi1>
    %3 = "chlo.constant_like"(%arg3) {value = 0.000000e+00 : f32} : (tensor<?x3xf32>) -> tensor<?x3xf32>
    return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<4xi32>, tensor<2xi1>, tensor<?x3xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<4xi32>, %arg2: tensor<2xi1>, %arg3: tensor<?x3xf32>) -> (tensor<2x3xf32>, tensor<4xi32>, tensor<2xi1>, tensor<?x3xf32>) {
// CHECK:     %cst = stablehlo.constant dense<1.500000e+00> : tensor<2x3xf32>
// CHECK:     %c = stablehlo.constant dense<-7> : tensor<4xi32>
// CHECK:     %c_0 = stablehlo.constant dense<true> : tensor<2xi1>
// CHECK:     %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %0 = stablehlo.get_dimension_size %arg3, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:     %1 = stablehlo.reshape %0 : (tensor<i32>) -> tensor<1xi32>
// CHECK:     %2 = stablehlo.get_dimension_size %arg3, dim = 1 : (tensor<?x3xf32>) -> tensor<i32>
// CHECK:     %3 = stablehlo.reshape %2 : (tensor<i32>) -> tensor<1xi32>
// CHECK:     %4 = stablehlo.concatenate %1, %3, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
// CHECK:     %5 = stablehlo.dynamic_broadcast_in_dim %cst_1, %4, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x3xf32>
// CHECK:     return %cst, %c, %c_0, %5 : tensor<2x3xf32>, tensor<4xi32>, tensor<2xi1>, tensor<?x3xf32>
// CHECK:   }
// CHECK: }
