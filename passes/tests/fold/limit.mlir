// RUN: fold
// A dense constant larger than the folding limit (65,536 elements) is never materialised.
module {
  func.func public @main(%arg0: tensor<65537xi32>) -> tensor<65537xi32> {
    %0 = stablehlo.iota dim = 0 : tensor<65537xi32>
    %c = stablehlo.constant dense<1> : tensor<65537xi32>
    %1 = stablehlo.add %0, %c : tensor<65537xi32>
    %2 = stablehlo.add %1, %arg0 : tensor<65537xi32>
    return %2 : tensor<65537xi32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<65537xi32>) -> tensor<65537xi32> {
// CHECK:     %0 = stablehlo.iota dim = 0 : tensor<65537xi32>
// CHECK:     %c = stablehlo.constant dense<1> : tensor<65537xi32>
// CHECK:     %1 = stablehlo.add %0, %c : tensor<65537xi32>
// CHECK:     %2 = stablehlo.add %1, %arg0 : tensor<65537xi32>
// CHECK:     return %2 : tensor<65537xi32>
// CHECK:   }
// CHECK: }
