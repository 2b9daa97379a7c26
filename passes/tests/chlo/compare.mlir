// RUN: chlo-legalize
// chlo.broadcast_compare: numpy-style and explicit `broadcast_dimensions`, with and without a
// `compare_type`; the broadcast forms of the CHLO binary ops become their formulas on
// broadcast operands (next_after here; zeta and polygamma in special.mlir).
module {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<2xi32>, %arg3: tensor<2x1xi32>) -> (tensor<2x3xi1>, tensor<2x2xi1>, tensor<2x3xi1>, tensor<2x3xf32>) {
    %0 = chlo.broadcast_compare %arg0, %arg1 {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    %1 = chlo.broadcast_compare %arg2, %arg3 {comparison_direction = #chlo<comparison_direction GE>, compare_type = #chlo<comparison_type SIGNED>} : (tensor<2xi32>, tensor<2x1xi32>) -> tensor<2x2xi1>
    %2 = chlo.broadcast_compare %arg0, %arg1 {broadcast_dimensions = array<i64: 1>, comparison_direction = #chlo<comparison_direction EQ>, compare_type = #chlo<comparison_type TOTALORDER>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    %3 = chlo.broadcast_next_after %arg0, %arg1 : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    return %0, %1, %2, %3 : tensor<2x3xi1>, tensor<2x2xi1>, tensor<2x3xi1>, tensor<2x3xf32>
  }
}
// CHECK: module {
// CHECK:   func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<2xi32>, %arg3: tensor<2x1xi32>) -> (tensor<2x3xi1>, tensor<2x2xi1>, tensor<2x3xi1>, tensor<2x3xf32>) {
// CHECK:     %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK:     %1 = stablehlo.compare  LT, %arg0, %0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK:     %2 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<2xi32>) -> tensor<2x2xi32>
// CHECK:     %3 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<2x1xi32>) -> tensor<2x2xi32>
// CHECK:     %4 = stablehlo.compare  GE, %2, %3,  SIGNED : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi1>
// CHECK:     %5 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK:     %6 = stablehlo.compare  EQ, %arg0, %5,  TOTALORDER : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK:     %7 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK:     %8 = stablehlo.bitcast_convert %arg0 : (tensor<2x3xf32>) -> tensor<2x3xi32>
// CHECK:     %9 = stablehlo.bitcast_convert %7 : (tensor<2x3xf32>) -> tensor<2x3xi32>
// CHECK:     %c = stablehlo.constant dense<-2147483648> : tensor<2x3xi32>
// CHECK:     %c_0 = stablehlo.constant dense<2147483647> : tensor<2x3xi32>
// CHECK:     %c_1 = stablehlo.constant dense<1> : tensor<2x3xi32>
// CHECK:     %c_2 = stablehlo.constant dense<-1> : tensor<2x3xi32>
// CHECK:     %c_3 = stablehlo.constant dense<0> : tensor<2x3xi32>
// CHECK:     %10 = stablehlo.and %8, %c_0 : tensor<2x3xi32>
// CHECK:     %11 = stablehlo.compare  EQ, %10, %c_3,  SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
// CHECK:     %12 = stablehlo.and %9, %c : tensor<2x3xi32>
// CHECK:     %13 = stablehlo.or %12, %c_1 : tensor<2x3xi32>
// CHECK:     %14 = stablehlo.and %8, %c : tensor<2x3xi32>
// CHECK:     %15 = stablehlo.compare  NE, %14, %c_3,  SIGNED : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi1>
// CHECK:     %16 = stablehlo.compare  LT, %arg0, %7,  FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK:     %17 = stablehlo.xor %15, %16 : tensor<2x3xi1>
// CHECK:     %18 = stablehlo.select %17, %c_1, %c_2 : tensor<2x3xi1>, tensor<2x3xi32>
// CHECK:     %19 = stablehlo.add %8, %18 : tensor<2x3xi32>
// CHECK:     %20 = stablehlo.select %11, %13, %19 : tensor<2x3xi1>, tensor<2x3xi32>
// CHECK:     %21 = stablehlo.bitcast_convert %20 : (tensor<2x3xi32>) -> tensor<2x3xf32>
// CHECK:     %22 = stablehlo.compare  EQ, %arg0, %7,  FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK:     %23 = stablehlo.select %22, %7, %21 : tensor<2x3xi1>, tensor<2x3xf32>
// CHECK:     %24 = stablehlo.compare  NE, %arg0, %arg0,  FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK:     %25 = stablehlo.compare  NE, %7, %7,  FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK:     %26 = stablehlo.or %24, %25 : tensor<2x3xi1>
// CHECK:     %27 = stablehlo.add %arg0, %7 : tensor<2x3xf32>
// CHECK:     %28 = stablehlo.select %26, %27, %23 : tensor<2x3xi1>, tensor<2x3xf32>
// CHECK:     return %1, %4, %6, %28 : tensor<2x3xi1>, tensor<2x2xi1>, tensor<2x3xi1>, tensor<2x3xf32>
// CHECK:   }
// CHECK: }
