// RUN: parse
// ERROR: 4:26: expected a type as the argument type, found `vector`
module {
  func.func @main(%arg0: vector<4xf32>) -> tensor<4xf32> {
    return %arg0 : tensor<4xf32>
  }
}
