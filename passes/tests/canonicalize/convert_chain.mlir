// RUN: canonicalize
// A widening convert followed by another converts once; a narrowing one stays; identities go.
module {
  func.func public @main(%arg0: tensor<4xbf16>, %arg1: tensor<4xf32>) -> (tensor<4xf16>, tensor<4xf32>, tensor<4xf32>) {
    %0 = stablehlo.convert %arg0 : (tensor<4xbf16>) -> tensor<4xf32>
    %1 = stablehlo.convert %0 : (tensor<4xf32>) -> tensor<4xf16>
    %2 = stablehlo.convert %arg1 : (tensor<4xf32>) -> tensor<4xbf16>
    %3 = stablehlo.convert %2 : (tensor<4xbf16>) -> tensor<4xf32>
    %4 = stablehlo.convert %arg1 : (tensor<4xf32>) -> tensor<4xf32>
    return %1, %3, %4 : tensor<4xf16>, tensor<4xf32>, tensor<4xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4xbf16>, %arg1: tensor<4xf32>) -> (tensor<4xf16>, tensor<4xf32>, tensor<4xf32>) {
// CHECK:     %0 = stablehlo.convert %arg0 : (tensor<4xbf16>) -> tensor<4xf16>
// CHECK:     %1 = stablehlo.convert %arg1 : (tensor<4xf32>) -> tensor<4xbf16>
// CHECK:     %2 = stablehlo.convert %1 : (tensor<4xbf16>) -> tensor<4xf32>
// CHECK:     return %0, %2, %arg1 : tensor<4xf16>, tensor<4xf32>, tensor<4xf32>
// CHECK:   }
// CHECK: }
