// RUN: fuse,dce
// Mixture-of-experts routing (softmax in f32, top-2, renormalised) as the lowering writes
// torch.topk: one composite with the weights and the expert indices.
module {
  func.func public @main(%arg0: tensor<8x16xf32>, %arg1: tensor<6x16xf32>) -> (tensor<6x2xf32>, tensor<6x2xi64>) {
    %0 = stablehlo.dot_general %arg1, %arg0, contracting_dims = [1] x [1] : (tensor<6x16xf32>, tensor<8x16xf32>) -> tensor<6x8xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<6xf32>) -> tensor<6x8xf32>
    %3 = stablehlo.subtract %0, %2 : tensor<6x8xf32>
    %4 = stablehlo.exponential %3 : tensor<6x8xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.reduce(%4 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<6xf32>) -> tensor<6x8xf32>
    %7 = stablehlo.divide %4, %6 : tensor<6x8xf32>
    %8 = stablehlo.iota dim = 1 : tensor<6x8xi64>
    %9:2 = "stablehlo.sort"(%7, %8) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>, %arg4: tensor<i64>, %arg5: tensor<i64>):
      %15 = stablehlo.compare  GT, %arg2, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %16 = stablehlo.compare  NE, %arg2, %arg2,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %17 = stablehlo.compare  EQ, %arg3, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %18 = stablehlo.and %17, %16 : tensor<i1>
      %19 = stablehlo.or %15, %18 : tensor<i1>
      stablehlo.return %19 : tensor<i1>
    }) : (tensor<6x8xf32>, tensor<6x8xi64>) -> (tensor<6x8xf32>, tensor<6x8xi64>)
    %10 = stablehlo.slice %9#0 [0:6, 0:2] : (tensor<6x8xf32>) -> tensor<6x2xf32>
    %11 = stablehlo.slice %9#1 [0:6, 0:2] : (tensor<6x8xi64>) -> tensor<6x2xi64>
    %12 = stablehlo.reduce(%10 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<6x2xf32>, tensor<f32>) -> tensor<6xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0] : (tensor<6xf32>) -> tensor<6x2xf32>
    %14 = stablehlo.divide %10, %13 : tensor<6x2xf32>
    return %14, %11 : tensor<6x2xf32>, tensor<6x2xi64>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<8x16xf32>, %arg1: tensor<6x16xf32>) -> (tensor<6x2xf32>, tensor<6x2xi64>) {
// CHECK:     %0 = stablehlo.dot_general %arg1, %arg0, contracting_dims = [1] x [1] : (tensor<6x16xf32>, tensor<8x16xf32>) -> tensor<6x8xf32>
// CHECK:     %1:2 = stablehlo.composite "tpuc.top_k_routing" %0 {composite_attributes = {k = 2 : i64, normalize = true}, decomposition = @tpuc_top_k_routing_0, version = 1 : i32} : (tensor<6x8xf32>) -> (tensor<6x2xf32>, tensor<6x2xi64>)
// CHECK:     return %1#0, %1#1 : tensor<6x2xf32>, tensor<6x2xi64>
// CHECK:   }
// CHECK:   func.func private @tpuc_top_k_routing_0(%arg0: tensor<6x8xf32>) -> (tensor<6x2xf32>, tensor<6x2xi64>) {
// CHECK:     %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:     %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
// CHECK:     %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<6xf32>) -> tensor<6x8xf32>
// CHECK:     %2 = stablehlo.subtract %arg0, %1 : tensor<6x8xf32>
// CHECK:     %3 = stablehlo.exponential %2 : tensor<6x8xf32>
// CHECK:     %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
// CHECK:     %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<6xf32>) -> tensor<6x8xf32>
// CHECK:     %6 = stablehlo.divide %3, %5 : tensor<6x8xf32>
// CHECK:     %7 = stablehlo.iota dim = 1 : tensor<6x8xi64>
// CHECK:     %8:2 = "stablehlo.sort"(%6, %7) <{dimension = 1 : i64, is_stable = true}> ({
// CHECK:     ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>, %arg3: tensor<i64>, %arg4: tensor<i64>):
// CHECK:       %14 = stablehlo.compare  GT, %arg1, %arg2,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK:       %15 = stablehlo.compare  NE, %arg1, %arg1,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK:       %16 = stablehlo.compare  EQ, %arg2, %arg2,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK:       %17 = stablehlo.and %16, %15 : tensor<i1>
// CHECK:       %18 = stablehlo.or %14, %17 : tensor<i1>
// CHECK:       stablehlo.return %18 : tensor<i1>
// CHECK:     }) : (tensor<6x8xf32>, tensor<6x8xi64>) -> (tensor<6x8xf32>, tensor<6x8xi64>)
// CHECK:     %9 = stablehlo.slice %8#0 [0:6, 0:2] : (tensor<6x8xf32>) -> tensor<6x2xf32>
// CHECK:     %10 = stablehlo.slice %8#1 [0:6, 0:2] : (tensor<6x8xi64>) -> tensor<6x2xi64>
// CHECK:     %11 = stablehlo.reduce(%9 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<6x2xf32>, tensor<f32>) -> tensor<6xf32>
// CHECK:     %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<6xf32>) -> tensor<6x2xf32>
// CHECK:     %13 = stablehlo.divide %9, %12 : tensor<6x2xf32>
// CHECK:     return %13, %10 : tensor<6x2xf32>, tensor<6x2xi64>
// CHECK:   }
// CHECK: }
