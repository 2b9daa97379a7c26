// RUN: prune-args
// Unused weights of the entry point go, with their attributes; an unused input stays (it is
// the caller's interface), and so does a buffer donated to a result.
module {
  func.func public @main(%arg0: tensor<4xf32> {tpuc.role = "parameter", jax.arg_info = "w"}, %arg1: tensor<i64> {tpuc.role = "buffer", jax.arg_info = "steps"}, %arg2: tensor<4xf32> {tpuc.role = "input", jax.arg_info = "x", tpuc.input = 0 : i64, mhlo.sharding = "{replicated}"}, %arg3: tensor<4xf32> {tpuc.role = "input", jax.arg_info = "unused", tpuc.input = 1 : i64}, %arg4: tensor<i64> {tpuc.role = "buffer", jax.arg_info = "cache", tf.aliasing_output = 1 : i32}) -> (tensor<4xf32>, tensor<i64>) {
    %0 = stablehlo.add %arg0, %arg2 : tensor<4xf32>
    %1 = stablehlo.constant dense<1> : tensor<i64>
    return %0, %1 : tensor<4xf32>, tensor<i64>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<4xf32> {tpuc.role = "parameter", jax.arg_info = "w"}, %arg1: tensor<4xf32> {tpuc.role = "input", jax.arg_info = "x", tpuc.input = 0 : i64, mhlo.sharding = "{replicated}"}, %arg2: tensor<4xf32> {tpuc.role = "input", jax.arg_info = "unused", tpuc.input = 1 : i64}, %arg3: tensor<i64> {tpuc.role = "buffer", jax.arg_info = "cache", tf.aliasing_output = 1 : i32}) -> (tensor<4xf32>, tensor<i64>) {
// CHECK:     %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
// CHECK:     %c = stablehlo.constant dense<1> : tensor<i64>
// CHECK:     return %0, %c : tensor<4xf32>, tensor<i64>
// CHECK:   }
// CHECK: }
