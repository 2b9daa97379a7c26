// RUN: parse
// The fields of a dimension-numbers attribute may end with a comma, as StableHLO prints them
// over several lines.
module attributes {stablehlo.gather = #stablehlo.gather<
  collapsed_slice_dims = [0],
  index_vector_dim = 1,
  offset_dims = [1],
  start_index_map = [0],
>} {
  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}
// CHECK: module attributes {stablehlo.gather = #stablehlo.gather<
// CHECK:   collapsed_slice_dims = [0],
// CHECK:   index_vector_dim = 1,
// CHECK:   offset_dims = [1],
// CHECK:   start_index_map = [0],
// CHECK: >} {
// CHECK:   func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
// CHECK:     return %arg0 : tensor<2xf32>
// CHECK:   }
// CHECK: }
