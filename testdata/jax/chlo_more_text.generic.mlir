"builtin.module"() <{sym_name = "chlo_more"}> ({
  "func.func"() <{function_type = (tensor<2x3xf32>, tensor<3xf32>, tensor<2x3xi32>, tensor<3xi32>) -> (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>), sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<2x3xi32>, %arg3: tensor<3xi32>):
    %0 = "chlo.broadcast_compare"(%arg0, %arg1) <{comparison_direction = #chlo<comparison_direction LT>}> : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    %1 = "chlo.broadcast_compare"(%arg0, %arg1) <{compare_type = #chlo<comparison_type TOTALORDER>, comparison_direction = #chlo<comparison_direction NE>}> : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    %2 = "chlo.broadcast_compare"(%arg2, %arg3) <{compare_type = #chlo<comparison_type SIGNED>, comparison_direction = #chlo<comparison_direction GE>}> : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi1>
    %3 = "chlo.broadcast_compare"(%arg2, %arg3) <{broadcast_dimensions = array<i64: 1>, comparison_direction = #chlo<comparison_direction EQ>}> : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi1>
    %4 = "chlo.constant_like"(%arg0) <{value = 2.500000e+00 : f32}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %5 = "chlo.constant_like"(%arg2) <{value = -3 : i32}> : (tensor<2x3xi32>) -> tensor<2x3xi32>
    %6 = "chlo.broadcast_next_after"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %7 = "chlo.broadcast_zeta"(%4, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %8 = "chlo.broadcast_polygamma"(%4, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %9 = "chlo.conj"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    "func.return"(%0, %1, %2, %3, %4, %5, %6, %7, %8, %9) : (tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
