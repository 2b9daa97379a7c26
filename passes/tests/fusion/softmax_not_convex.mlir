// RUN: fuse,dce
// The row maxima feed an op outside the softmax whose result flows back in (`%m` scales
// the exponentials): fusing would need that op inside, so nothing is fused.
module {
  func.func public @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.reduce(%x init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
    %m = stablehlo.negate %2 : tensor<4x8xf32>
    %3 = stablehlo.subtract %x, %2 : tensor<4x8xf32>
    %4 = stablehlo.exponential %3 : tensor<4x8xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.reduce(%4 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
    %7 = stablehlo.divide %4, %6 : tensor<4x8xf32>
    %8 = stablehlo.multiply %7, %m : tensor<4x8xf32>
    return %8 : tensor<4x8xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK:     %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:     %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK:     %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
// CHECK:     %2 = stablehlo.negate %1 : tensor<4x8xf32>
// CHECK:     %3 = stablehlo.subtract %arg0, %1 : tensor<4x8xf32>
// CHECK:     %4 = stablehlo.exponential %3 : tensor<4x8xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %5 = stablehlo.reduce(%4 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK:     %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
// CHECK:     %7 = stablehlo.divide %4, %6 : tensor<4x8xf32>
// CHECK:     %8 = stablehlo.multiply %7, %2 : tensor<4x8xf32>
// CHECK:     return %8 : tensor<4x8xf32>
// CHECK:   }
// CHECK: }
