// RUN: fuse,dce
// Rotary embedding, rotate-half form: `x * cos + concat(-x2, x1) * sin`.
module {
  func.func public @main(%x: tensor<1x4x8x16xf32>, %cos: tensor<1x4x8x16xf32>, %sin: tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32> {
    %0 = stablehlo.multiply %x, %cos : tensor<1x4x8x16xf32>
    %1 = stablehlo.slice %x [0:1, 0:4, 0:8, 0:8] : (tensor<1x4x8x16xf32>) -> tensor<1x4x8x8xf32>
    %2 = stablehlo.slice %x [0:1, 0:4, 0:8, 8:16] : (tensor<1x4x8x16xf32>) -> tensor<1x4x8x8xf32>
    %3 = stablehlo.negate %2 : tensor<1x4x8x8xf32>
    %4 = stablehlo.concatenate %3, %1, dim = 3 : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x16xf32>
    %5 = stablehlo.multiply %4, %sin : tensor<1x4x8x16xf32>
    %6 = stablehlo.add %0, %5 : tensor<1x4x8x16xf32>
    return %6 : tensor<1x4x8x16xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<1x4x8x16xf32>, %arg1: tensor<1x4x8x16xf32>, %arg2: tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32> {
// CHECK:     %0 = stablehlo.composite "tpuc.rotary_embedding" %arg0, %arg1, %arg2 {composite_attributes = {style = "rotate_half"}, decomposition = @tpuc_rotary_embedding_0, version = 1 : i32} : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
// CHECK:     return %0 : tensor<1x4x8x16xf32>
// CHECK:   }
// CHECK:   func.func private @tpuc_rotary_embedding_0(%arg0: tensor<1x4x8x16xf32>, %arg1: tensor<1x4x8x16xf32>, %arg2: tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32> {
// CHECK:     %0 = stablehlo.multiply %arg0, %arg1 : tensor<1x4x8x16xf32>
// CHECK:     %1 = stablehlo.slice %arg0 [0:1, 0:4, 0:8, 0:8] : (tensor<1x4x8x16xf32>) -> tensor<1x4x8x8xf32>
// CHECK:     %2 = stablehlo.slice %arg0 [0:1, 0:4, 0:8, 8:16] : (tensor<1x4x8x16xf32>) -> tensor<1x4x8x8xf32>
// CHECK:     %3 = stablehlo.negate %2 : tensor<1x4x8x8xf32>
// CHECK:     %4 = stablehlo.concatenate %3, %1, dim = 3 : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x16xf32>
// CHECK:     %5 = stablehlo.multiply %4, %arg2 : tensor<1x4x8x16xf32>
// CHECK:     %6 = stablehlo.add %0, %5 : tensor<1x4x8x16xf32>
// CHECK:     return %6 : tensor<1x4x8x16xf32>
// CHECK:   }
// CHECK: }
