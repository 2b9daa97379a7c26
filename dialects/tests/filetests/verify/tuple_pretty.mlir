// RUN: verify
// tuple and get_tuple_element in StableHLO's pretty forms, nested and empty tuples included.
func.func @main(%x: tensor<2xf64>, %i: tensor<i64>) -> (tensor<2xf64>, tensor<i64>) {
  %0 = stablehlo.tuple %i : tuple<tensor<i64>>
  %1 = stablehlo.tuple %x, %0 : tuple<tensor<2xf64>, tuple<tensor<i64>>>
  %2 = stablehlo.tuple : tuple<>
  %3 = stablehlo.get_tuple_element %1[0] : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tensor<2xf64>
  %4 = stablehlo.get_tuple_element %1[1] : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tuple<tensor<i64>>
  %5 = stablehlo.get_tuple_element %4[0] : (tuple<tensor<i64>>) -> tensor<i64>
  return %3, %5 : tensor<2xf64>, tensor<i64>
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2xf64>, %arg1: tensor<i64>) -> (tensor<2xf64>, tensor<i64>) {
// CHECK:     %0 = stablehlo.tuple %arg1 : tuple<tensor<i64>>
// CHECK:     %1 = stablehlo.tuple %arg0, %0 : tuple<tensor<2xf64>, tuple<tensor<i64>>>
// CHECK:     %2 = stablehlo.tuple : tuple<>
// CHECK:     %3 = stablehlo.get_tuple_element %1[0] : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tensor<2xf64>
// CHECK:     %4 = stablehlo.get_tuple_element %1[1] : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tuple<tensor<i64>>
// CHECK:     %5 = stablehlo.get_tuple_element %4[0] : (tuple<tensor<i64>>) -> tensor<i64>
// CHECK:     return %3, %5 : tensor<2xf64>, tensor<i64>
// CHECK:   }
// CHECK: }
