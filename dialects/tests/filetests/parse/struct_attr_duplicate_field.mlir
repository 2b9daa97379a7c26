// RUN: parse
// A field of a dimension-numbers attribute given twice is refused at its second spelling.
module attributes {stablehlo.gather = #stablehlo.gather<collapsed_slice_dims = [0], collapsed_slice_dims = [0]>} {
  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}
// ERROR: 3:85: duplicated `collapsed_slice_dims` entry in `#stablehlo.gather`
