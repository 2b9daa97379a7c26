// RUN: chlo-legalize
// A broadcast between dynamic shapes has no static StableHLO form: it stays CHLO, which the
// PJRT plugins accept.
module {
  func.func public @main(%arg0: tensor<?x3xf32>, %arg1: tensor<3xf32>) -> tensor<?x3xf32> {
    %0 = chlo.broadcast_add %arg0, %arg1 : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
    return %0 : tensor<?x3xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<?x3xf32>, %arg1: tensor<3xf32>) -> tensor<?x3xf32> {
// CHECK:     %0 = chlo.broadcast_add %arg0, %arg1 : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK:     return %0 : tensor<?x3xf32>
// CHECK:   }
// CHECK: }
