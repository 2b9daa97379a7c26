// RUN: legalize
// Where XLA departs from the spec: i1 add (the spec's or; XLA's xor), also in a region, and
// complex maximum/minimum (the spec's lexicographic order). Other adds and maxima stay.
func.func @main(%a: tensor<4xi1>, %b: tensor<4xi1>, %x: tensor<2xcomplex<f32>>, %y: tensor<2xcomplex<f32>>, %f: tensor<2xf32>) -> (tensor<4xi1>, tensor<i1>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2xf32>) {
  %0 = stablehlo.add %a, %b : tensor<4xi1>
  %false = stablehlo.constant dense<false> : tensor<i1>
  %1 = stablehlo.reduce(%a init: %false) applies stablehlo.add across dimensions = [0] : (tensor<4xi1>, tensor<i1>) -> tensor<i1>
  %2 = stablehlo.maximum %x, %y : tensor<2xcomplex<f32>>
  %3 = stablehlo.minimum %x, %y : tensor<2xcomplex<f32>>
  %4 = stablehlo.maximum %f, %f : tensor<2xf32>
  %5 = stablehlo.add %4, %f : tensor<2xf32>
  return %0, %1, %2, %3, %5 : tensor<4xi1>, tensor<i1>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2xf32>
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4xi1>, %arg1: tensor<4xi1>, %arg2: tensor<2xcomplex<f32>>, %arg3: tensor<2xcomplex<f32>>, %arg4: tensor<2xf32>) -> (tensor<4xi1>, tensor<i1>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2xf32>) {
// CHECK:     %0 = stablehlo.or %arg0, %arg1 : tensor<4xi1>
// CHECK:     %c = stablehlo.constant dense<false> : tensor<i1>
// CHECK:     %1 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.or across dimensions = [0] : (tensor<4xi1>, tensor<i1>) -> tensor<i1>
// CHECK:     %2 = stablehlo.real %arg2 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
// CHECK:     %3 = stablehlo.real %arg3 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
// CHECK:     %4 = stablehlo.imag %arg2 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
// CHECK:     %5 = stablehlo.imag %arg3 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
// CHECK:     %6 = stablehlo.compare  GT, %2, %3,  FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
// CHECK:     %7 = stablehlo.compare  EQ, %2, %3,  FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
// CHECK:     %8 = stablehlo.compare  GE, %4, %5,  FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
// CHECK:     %9 = stablehlo.and %7, %8 : tensor<2xi1>
// CHECK:     %10 = stablehlo.or %6, %9 : tensor<2xi1>
// CHECK:     %11 = stablehlo.select %10, %arg2, %arg3 : tensor<2xi1>, tensor<2xcomplex<f32>>
// CHECK:     %12 = stablehlo.real %arg2 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
// CHECK:     %13 = stablehlo.real %arg3 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
// CHECK:     %14 = stablehlo.imag %arg2 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
// CHECK:     %15 = stablehlo.imag %arg3 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
// CHECK:     %16 = stablehlo.compare  LT, %12, %13,  FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
// CHECK:     %17 = stablehlo.compare  EQ, %12, %13,  FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
// CHECK:     %18 = stablehlo.compare  LE, %14, %15,  FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
// CHECK:     %19 = stablehlo.and %17, %18 : tensor<2xi1>
// CHECK:     %20 = stablehlo.or %16, %19 : tensor<2xi1>
// CHECK:     %21 = stablehlo.select %20, %arg2, %arg3 : tensor<2xi1>, tensor<2xcomplex<f32>>
// CHECK:     %22 = stablehlo.maximum %arg4, %arg4 : tensor<2xf32>
// CHECK:     %23 = stablehlo.add %22, %arg4 : tensor<2xf32>
// CHECK:     return %0, %1, %11, %21, %23 : tensor<4xi1>, tensor<i1>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<2xf32>
// CHECK:   }
// CHECK: }
