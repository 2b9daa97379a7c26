// RUN: verify
// Tuples and tokens: get_tuple_element's C1, after_all's tokens, send's and outfeed's final
// token, recv's results, broadcast's sizes, set_dimension_size's size, batch_norm_grad's
// grad_output.
func.func @main(%x: tensor<2xf32>, %t: !stablehlo.token, %s: tensor<i64>) -> tensor<2xf32> {
  %0 = "stablehlo.tuple"(%x, %t) : (tensor<2xf32>, !stablehlo.token) -> tuple<tensor<2xf32>, !stablehlo.token>
  %1 = "stablehlo.get_tuple_element"(%0) {index = 2 : i32} : (tuple<tensor<2xf32>, !stablehlo.token>) -> tensor<2xf32>
  %2 = "stablehlo.after_all"(%t, %x) : (!stablehlo.token, tensor<2xf32>) -> !stablehlo.token
  %3 = "stablehlo.send"(%t, %x) {is_host_transfer = true} : (!stablehlo.token, tensor<2xf32>) -> !stablehlo.token
  %4 = "stablehlo.recv"(%t) {is_host_transfer = true} : (!stablehlo.token) -> tensor<2xf32>
  %5 = "stablehlo.broadcast"(%x) {broadcast_sizes = array<i64: -1>} : (tensor<2xf32>) -> tensor<2xf32>
  %6 = "stablehlo.set_dimension_size"(%x, %s) {dimension = 0 : i64} : (tensor<2xf32>, tensor<i64>) -> tensor<2xf32>
  %7 = "stablehlo.outfeed"(%x) {outfeed_config = ""} : (tensor<2xf32>) -> !stablehlo.token
  return %x : tensor<2xf32>
}
// ERROR: 7:3: C1: index 2 is out of range for a tuple of 2 elements
// ERROR: 8:3: inputs must be tokens, got tensor<2xf32>
// ERROR: 9:3: the last operand must be a token, got (!stablehlo.token, tensor<2xf32>)
// ERROR: 10:3: the last result must be a token, got (tensor<2xf32>)
// ERROR: 11:3: broadcast_sizes [-1] holds a negative size
// ERROR: 12:3: size must be a tensor<i32>, got tensor<i64>
// ERROR: 13:3: the last operand must be a token, got (tensor<2xf32>)
