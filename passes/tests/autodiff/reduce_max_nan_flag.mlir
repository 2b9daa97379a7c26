// RUN: autodiff,canonicalize,cse,dce
// torch.max(x) as tpuc lowers it: the maximum and a NaN flag reduced side by side, each input
// on its own. The maximum's cotangent is shared among the elements equal to it (PyTorch's
// rule), the flag (boolean) gets none.
module {
  func.func public @main(%x: tensor<3x4xf32> {tpuc.role = "parameter", jax.arg_info = "x"}) -> (tensor<f32> {tpuc.role = "output", tpuc.output = 0 : i64}) {
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %nan = stablehlo.compare  NE, %x, %x,  FLOAT : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
    %false = stablehlo.constant dense<false> : tensor<i1>
    %0:2 = stablehlo.reduce(%x init: %ninf), (%nan init: %false) across dimensions = [0, 1] : (tensor<3x4xf32>, tensor<3x4xi1>, tensor<f32>, tensor<i1>) -> (tensor<f32>, tensor<i1>)
     reducer(%a: tensor<f32>, %b: tensor<f32>) (%p: tensor<i1>, %q: tensor<i1>)  {
      %m = stablehlo.maximum %a, %b : tensor<f32>
      %o = stablehlo.or %p, %q : tensor<i1>
      stablehlo.return %m, %o : tensor<f32>, tensor<i1>
    }
    %qnan = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %1 = stablehlo.select %0#1, %qnan, %0#0 : tensor<i1>, tensor<f32>
    return %1 : tensor<f32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<3x4xf32> {tpuc.role = "parameter", jax.arg_info = "x"}) -> (tensor<f32> {tpuc.role = "loss"}, tensor<3x4xf32> {tpuc.role = "gradient", jax.result_info = "x"}) {
// CHECK:     %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK:     %0 = stablehlo.compare  NE, %arg0, %arg0,  FLOAT : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
// CHECK:     %c = stablehlo.constant dense<false> : tensor<i1>
// CHECK:     %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [0, 1] : (tensor<3x4xf32>, tensor<3x4xi1>, tensor<f32>, tensor<i1>) -> (tensor<f32>, tensor<i1>)
// CHECK:      reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i1>, %arg4: tensor<i1>)  {
// CHECK:       %11 = stablehlo.maximum %arg1, %arg3 : tensor<f32>
// CHECK:       %12 = stablehlo.or %arg2, %arg4 : tensor<i1>
// CHECK:       stablehlo.return %11, %12 : tensor<f32>, tensor<i1>
// CHECK:     }
// CHECK:     %cst_0 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
// CHECK:     %2 = stablehlo.select %1#1, %cst_0, %1#0 : tensor<i1>, tensor<f32>
// CHECK:     %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK:     %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:     %3 = stablehlo.select %1#1, %cst_2, %cst_1 : tensor<i1>, tensor<f32>
// CHECK:     %4 = stablehlo.broadcast_in_dim %1#0, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
// CHECK:     %5 = stablehlo.compare  EQ, %arg0, %4,  FLOAT : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
// CHECK:     %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<3x4xf32>
// CHECK:     %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<3x4xf32>
// CHECK:     %6 = stablehlo.select %5, %cst_3, %cst_4 : tensor<3x4xi1>, tensor<3x4xf32>
// CHECK:     %7 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.add across dimensions = [0, 1] : (tensor<3x4xf32>, tensor<f32>) -> tensor<f32>
// CHECK:     %8 = stablehlo.divide %3, %7 : tensor<f32>
// CHECK:     %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
// CHECK:     %10 = stablehlo.select %5, %9, %cst_4 : tensor<3x4xi1>, tensor<3x4xf32>
// CHECK:     return %2, %10 : tensor<f32>, tensor<3x4xf32>
// CHECK:   }
// CHECK: }
