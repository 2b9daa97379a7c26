"builtin.module"() <{sym_name = "chlo_broadcast"}> ({
  "func.func"() <{function_type = (tensor<2x3xf32>, tensor<3xf32>, tensor<2xf32>, tensor<1x3xi32>, tensor<2x1xi32>, tensor<2x3xi1>, tensor<f32>, tensor<6xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xf32>), sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<2xf32>, %arg3: tensor<1x3xi32>, %arg4: tensor<2x1xi32>, %arg5: tensor<2x3xi1>, %arg6: tensor<f32>, %arg7: tensor<6xf32>):
    %0 = "chlo.broadcast_add"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %1 = "chlo.broadcast_multiply"(%arg0, %arg1) <{broadcast_dimensions = array<i64: 1>}> : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %2 = "chlo.broadcast_shift_left"(%arg3, %arg4) : (tensor<1x3xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
    %3 = "chlo.broadcast_select"(%arg5, %arg0, %arg6) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %4 = "chlo.broadcast_subtract"(%arg6, %arg0) : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %5 = "chlo.broadcast_atan2"(%arg1, %arg0) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %6 = "chlo.is_inf"(%arg7) : (tensor<6xf32>) -> tensor<6xi1>
    %7 = "chlo.is_pos_inf"(%arg7) : (tensor<6xf32>) -> tensor<6xi1>
    %8 = "chlo.is_neg_inf"(%arg7) : (tensor<6xf32>) -> tensor<6xi1>
    %9 = "chlo.tan"(%arg7) : (tensor<6xf32>) -> tensor<6xf32>
    "func.return"(%0, %1, %2, %3, %4, %5, %6, %7, %8, %9) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xi1>, tensor<6xi1>, tensor<6xi1>, tensor<6xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
