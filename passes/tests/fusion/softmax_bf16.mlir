// RUN: fuse,dce
// Softmax of a bf16 tensor computed in f32: the converts belong to the composite.
module {
  func.func public @main(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
    %0 = stablehlo.convert %x : (tensor<4x8xbf16>) -> tensor<4x8xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
    %3 = stablehlo.subtract %0, %2 : tensor<4x8xf32>
    %4 = stablehlo.exponential %3 : tensor<4x8xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.reduce(%4 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
    %7 = stablehlo.divide %4, %6 : tensor<4x8xf32>
    %8 = stablehlo.convert %7 : (tensor<4x8xf32>) -> tensor<4x8xbf16>
    return %8 : tensor<4x8xbf16>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
// CHECK:     %0 = stablehlo.composite "odml.softmax" %arg0 {composite_attributes = {axis = 1 : i64}, decomposition = @odml_softmax_0, version = 1 : i32} : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
// CHECK:     return %0 : tensor<4x8xbf16>
// CHECK:   }
// CHECK:   func.func private @odml_softmax_0(%arg0: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
// CHECK:     %0 = stablehlo.convert %arg0 : (tensor<4x8xbf16>) -> tensor<4x8xf32>
// CHECK:     %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:     %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK:     %2 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
// CHECK:     %3 = stablehlo.subtract %0, %2 : tensor<4x8xf32>
// CHECK:     %4 = stablehlo.exponential %3 : tensor<4x8xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %5 = stablehlo.reduce(%4 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK:     %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
// CHECK:     %7 = stablehlo.divide %4, %6 : tensor<4x8xf32>
// CHECK:     %8 = stablehlo.convert %7 : (tensor<4x8xf32>) -> tensor<4x8xbf16>
// CHECK:     return %8 : tensor<4x8xbf16>
// CHECK:   }
// CHECK: }
