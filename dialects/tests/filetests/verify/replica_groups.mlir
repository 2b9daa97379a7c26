// RUN: verify
// Replica groups: all_reduce's may be padded with -1; ids are unique, not negative otherwise,
// cover 0 to their count, and exist with use_global_device_ids.
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 2, 4], [1, 3, -1]]> : tensor<2x3xi64>} : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>} : (tensor<8xf32>) -> tensor<8xf32>
  %2 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1], [3, 4]]> : tensor<2x2xi64>} : (tensor<8xf32>) -> tensor<8xf32>
  %3 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<0> : tensor<0x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<8xf32>) -> tensor<8xf32>
  %4 = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1], [2, -1]]> : tensor<2x2xi64>} : (tensor<8xf32>) -> tensor<16xf32>
  return %0 : tensor<8xf32>
}
// ERROR: 10:3: replica id 1 appears twice in replica_groups
// ERROR: 15:3: replica id 2 is missing: replica_groups must hold every id from 0 to 3
// ERROR: 20:3: replica_groups cannot be empty with use_global_device_ids
// ERROR: 25:3: replica groups must have one size, got 2 and 1 (no -1 padding here)
