"builtin.module"() <{sym_name = "chlo_more_f64"}> ({
  "func.func"() <{function_type = (tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>) -> (tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>), sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<8xf64>, %arg1: tensor<8xf64>, %arg2: tensor<8xf64>, %arg3: tensor<8xf64>, %arg4: tensor<8xf64>):
    %0 = "chlo.erf_inv"(%arg0) : (tensor<8xf64>) -> tensor<8xf64>
    %1 = "chlo.bessel_i1e"(%arg1) : (tensor<8xf64>) -> tensor<8xf64>
    %2 = "chlo.zeta"(%arg2, %arg3) : (tensor<8xf64>, tensor<8xf64>) -> tensor<8xf64>
    %3 = "chlo.polygamma"(%arg4, %arg3) : (tensor<8xf64>, tensor<8xf64>) -> tensor<8xf64>
    %4 = "chlo.next_after"(%arg0, %arg1) : (tensor<8xf64>, tensor<8xf64>) -> tensor<8xf64>
    "func.return"(%0, %1, %2, %3, %4) : (tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
