// RUN: fuse,dce
// A half-precision SwiGLU whose SiLU runs in f32 between two converts (torch's core
// decomposition of a bf16 `silu`) is SwiGLU over the bf16 gate; a SiLU upcast to a type other
// than the gate's leaves only the SiLU.
module {
  func.func public @main(%g: tensor<4x32xbf16>, %u: tensor<4x32xbf16>, %h: tensor<4x32xf16>, %v: tensor<4x32xbf16>) -> (tensor<4x32xbf16>, tensor<4x32xbf16>) {
    %0 = stablehlo.convert %g : (tensor<4x32xbf16>) -> tensor<4x32xf32>
    %1 = stablehlo.logistic %0 : tensor<4x32xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<4x32xf32>
    %3 = stablehlo.convert %2 : (tensor<4x32xf32>) -> tensor<4x32xbf16>
    %4 = stablehlo.multiply %3, %u : tensor<4x32xbf16>
    %5 = stablehlo.convert %h : (tensor<4x32xf16>) -> tensor<4x32xf32>
    %6 = stablehlo.logistic %5 : tensor<4x32xf32>
    %7 = stablehlo.multiply %5, %6 : tensor<4x32xf32>
    %8 = stablehlo.convert %7 : (tensor<4x32xf32>) -> tensor<4x32xbf16>
    %9 = stablehlo.multiply %8, %v : tensor<4x32xbf16>
    return %4, %9 : tensor<4x32xbf16>, tensor<4x32xbf16>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4x32xbf16>, %arg1: tensor<4x32xbf16>, %arg2: tensor<4x32xf16>, %arg3: tensor<4x32xbf16>) -> (tensor<4x32xbf16>, tensor<4x32xbf16>) {
// CHECK:     %0 = stablehlo.composite "tpuc.swiglu" %arg0, %arg1 {decomposition = @tpuc_swiglu_0, version = 1 : i32} : (tensor<4x32xbf16>, tensor<4x32xbf16>) -> tensor<4x32xbf16>
// CHECK:     %1 = stablehlo.convert %arg2 : (tensor<4x32xf16>) -> tensor<4x32xf32>
// CHECK:     %2 = stablehlo.composite "tpuc.silu" %1 {decomposition = @tpuc_silu_0, version = 1 : i32} : (tensor<4x32xf32>) -> tensor<4x32xf32>
// CHECK:     %3 = stablehlo.convert %2 : (tensor<4x32xf32>) -> tensor<4x32xbf16>
// CHECK:     %4 = stablehlo.multiply %3, %arg3 : tensor<4x32xbf16>
// CHECK:     return %0, %4 : tensor<4x32xbf16>, tensor<4x32xbf16>
// CHECK:   }
// CHECK:   func.func private @tpuc_silu_0(%arg0: tensor<4x32xf32>) -> tensor<4x32xf32> {
// CHECK:     %0 = stablehlo.logistic %arg0 : tensor<4x32xf32>
// CHECK:     %1 = stablehlo.multiply %arg0, %0 : tensor<4x32xf32>
// CHECK:     return %1 : tensor<4x32xf32>
// CHECK:   }
// CHECK:   func.func private @tpuc_swiglu_0(%arg0: tensor<4x32xbf16>, %arg1: tensor<4x32xbf16>) -> tensor<4x32xbf16> {
// CHECK:     %0 = stablehlo.convert %arg0 : (tensor<4x32xbf16>) -> tensor<4x32xf32>
// CHECK:     %1 = stablehlo.logistic %0 : tensor<4x32xf32>
// CHECK:     %2 = stablehlo.multiply %0, %1 : tensor<4x32xf32>
// CHECK:     %3 = stablehlo.convert %2 : (tensor<4x32xf32>) -> tensor<4x32xbf16>
// CHECK:     %4 = stablehlo.multiply %3, %arg1 : tensor<4x32xbf16>
// CHECK:     return %4 : tensor<4x32xbf16>
// CHECK:   }
// CHECK: }
