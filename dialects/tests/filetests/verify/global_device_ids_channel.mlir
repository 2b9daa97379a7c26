// RUN: verify
// With use_global_device_ids, all_reduce and all_gather need a positive channel id (C4).
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 0, type = 1>, use_global_device_ids} : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids} : (tensor<8xf32>) -> tensor<16xf32>
  %2 = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<8xf32>) -> tensor<16xf32>
  return %0 : tensor<8xf32>
}
// ERROR: 4:3: C4: use_global_device_ids needs a positive channel id, got 0
// ERROR: 9:3: C4: use_global_device_ids needs a positive channel id, got 0
