// RUN: fuse,dce
// `silu(gate) * up` is SwiGLU; a SiLU on its own is SiLU.
module {
  func.func public @main(%g: tensor<4x32xf32>, %u: tensor<4x32xf32>, %x: tensor<4x32xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>) {
    %0 = stablehlo.logistic %g : tensor<4x32xf32>
    %1 = stablehlo.multiply %g, %0 : tensor<4x32xf32>
    %2 = stablehlo.multiply %1, %u : tensor<4x32xf32>
    %3 = stablehlo.logistic %x : tensor<4x32xf32>
    %4 = stablehlo.multiply %x, %3 : tensor<4x32xf32>
    return %2, %4 : tensor<4x32xf32>, tensor<4x32xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4x32xf32>, %arg1: tensor<4x32xf32>, %arg2: tensor<4x32xf32>) -> (tensor<4x32xf32>, tensor<4x32xf32>) {
// CHECK:     %0 = stablehlo.composite "tpuc.swiglu" %arg0, %arg1 {decomposition = @tpuc_swiglu_0, version = 1 : i32} : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xf32>
// CHECK:     %1 = stablehlo.composite "tpuc.silu" %arg2 {decomposition = @tpuc_silu_0, version = 1 : i32} : (tensor<4x32xf32>) -> tensor<4x32xf32>
// CHECK:     return %0, %1 : tensor<4x32xf32>, tensor<4x32xf32>
// CHECK:   }
// CHECK:   func.func private @tpuc_silu_0(%arg0: tensor<4x32xf32>) -> tensor<4x32xf32> {
// CHECK:     %0 = stablehlo.logistic %arg0 : tensor<4x32xf32>
// CHECK:     %1 = stablehlo.multiply %arg0, %0 : tensor<4x32xf32>
// CHECK:     return %1 : tensor<4x32xf32>
// CHECK:   }
// CHECK:   func.func private @tpuc_swiglu_0(%arg0: tensor<4x32xf32>, %arg1: tensor<4x32xf32>) -> tensor<4x32xf32> {
// CHECK:     %0 = stablehlo.logistic %arg0 : tensor<4x32xf32>
// CHECK:     %1 = stablehlo.multiply %arg0, %0 : tensor<4x32xf32>
// CHECK:     %2 = stablehlo.multiply %1, %arg1 : tensor<4x32xf32>
// CHECK:     return %2 : tensor<4x32xf32>
// CHECK:   }
// CHECK: }
