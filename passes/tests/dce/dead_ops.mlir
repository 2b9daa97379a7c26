// RUN: dce
// Ops nobody uses go, with the ops only they used; side-effecting custom calls stay.
module {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.exponential %arg0 : tensor<4xf32>
    %1 = stablehlo.log %0 : tensor<4xf32>
    %2 = stablehlo.custom_call @do_effect(%arg0) {has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
    %3 = stablehlo.negate %arg0 : tensor<4xf32>
    return %3 : tensor<4xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// CHECK:     %0 = stablehlo.custom_call @do_effect(%arg0) {has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK:     %1 = stablehlo.negate %arg0 : tensor<4xf32>
// CHECK:     return %1 : tensor<4xf32>
// CHECK:   }
// CHECK: }
