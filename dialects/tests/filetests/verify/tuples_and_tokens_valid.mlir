// RUN: verify
// Tuples, tokens and host transfers in StableHLO's generic form print back.
func.func @main(%x: tensor<2xf32>, %t: !stablehlo.token) -> (tensor<2xf32>, !stablehlo.token) {
  %0 = "stablehlo.tuple"(%x, %t) : (tensor<2xf32>, !stablehlo.token) -> tuple<tensor<2xf32>, !stablehlo.token>
  %1 = "stablehlo.get_tuple_element"(%0) {index = 1 : i32} : (tuple<tensor<2xf32>, !stablehlo.token>) -> !stablehlo.token
  %2 = "stablehlo.create_token"() : () -> !stablehlo.token
  %3 = "stablehlo.after_all"(%1, %2) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
  %4 = "stablehlo.send"(%x, %3) {channel_handle = #stablehlo.channel_handle<handle = 5, type = 2>, is_host_transfer = true} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
  %5:2 = "stablehlo.recv"(%4) {channel_handle = #stablehlo.channel_handle<handle = 6, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
  %6 = "stablehlo.broadcast"(%5#0) {broadcast_sizes = array<i64: 3>} : (tensor<2xf32>) -> tensor<3x2xf32>
  %7 = "stablehlo.outfeed"(%x, %5#1) {outfeed_config = "feed"} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
  return %5#0, %7 : tensor<2xf32>, !stablehlo.token
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2xf32>, %arg1: !stablehlo.token) -> (tensor<2xf32>, !stablehlo.token) {
// CHECK:     %0 = stablehlo.tuple %arg0, %arg1 : tuple<tensor<2xf32>, !stablehlo.token>
// CHECK:     %1 = stablehlo.get_tuple_element %0[1] : (tuple<tensor<2xf32>, !stablehlo.token>) -> !stablehlo.token
// CHECK:     %2 = stablehlo.create_token : !stablehlo.token
// CHECK:     %3 = "stablehlo.after_all"(%1, %2) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
// CHECK:     %4 = "stablehlo.send"(%arg0, %3) <{channel_handle = #stablehlo.channel_handle<handle = 5, type = 2>, is_host_transfer = true}> : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
// CHECK:     %5:2 = "stablehlo.recv"(%4) <{channel_handle = #stablehlo.channel_handle<handle = 6, type = 3>, is_host_transfer = true}> : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
// CHECK:     %6 = "stablehlo.broadcast"(%5#0) <{broadcast_sizes = array<i64: 3>}> : (tensor<2xf32>) -> tensor<3x2xf32>
// CHECK:     %7 = "stablehlo.outfeed"(%arg0, %5#1) <{outfeed_config = "feed"}> : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
// CHECK:     return %5#0, %7 : tensor<2xf32>, !stablehlo.token
// CHECK:   }
// CHECK: }
