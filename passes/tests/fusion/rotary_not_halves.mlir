// RUN: fuse,dce
// The halves are swapped without the negation: not a rotation, left alone.
module {
  func.func public @main(%x: tensor<4x16xf32>, %cos: tensor<4x16xf32>, %sin: tensor<4x16xf32>) -> tensor<4x16xf32> {
    %0 = stablehlo.multiply %x, %cos : tensor<4x16xf32>
    %1 = stablehlo.slice %x [0:4, 0:8] : (tensor<4x16xf32>) -> tensor<4x8xf32>
    %2 = stablehlo.slice %x [0:4, 8:16] : (tensor<4x16xf32>) -> tensor<4x8xf32>
    %4 = stablehlo.concatenate %2, %1, dim = 1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
    %5 = stablehlo.multiply %4, %sin : tensor<4x16xf32>
    %6 = stablehlo.add %0, %5 : tensor<4x16xf32>
    return %6 : tensor<4x16xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4x16xf32>, %arg1: tensor<4x16xf32>, %arg2: tensor<4x16xf32>) -> tensor<4x16xf32> {
// CHECK:     %0 = stablehlo.multiply %arg0, %arg1 : tensor<4x16xf32>
// CHECK:     %1 = stablehlo.slice %arg0 [0:4, 0:8] : (tensor<4x16xf32>) -> tensor<4x8xf32>
// CHECK:     %2 = stablehlo.slice %arg0 [0:4, 8:16] : (tensor<4x16xf32>) -> tensor<4x8xf32>
// CHECK:     %3 = stablehlo.concatenate %2, %1, dim = 1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
// CHECK:     %4 = stablehlo.multiply %3, %arg2 : tensor<4x16xf32>
// CHECK:     %5 = stablehlo.add %0, %4 : tensor<4x16xf32>
// CHECK:     return %5 : tensor<4x16xf32>
// CHECK:   }
// CHECK: }
