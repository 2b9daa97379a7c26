// RUN: verify
// collective_broadcast: unique replica ids (C1), and with has_dynamic_root a root per operand.
func.func @main(%x: tensor<4xf32>, %roots: tensor<1xi32>, %bad: tensor<2xi32>) -> tensor<4xf32> {
  %0 = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "stablehlo.collective_broadcast"(%x, %roots) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, has_dynamic_root} : (tensor<4xf32>, tensor<1xi32>) -> tensor<4xf32>
  %2 = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[0, 0]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = "stablehlo.collective_broadcast"(%x, %bad) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, has_dynamic_root} : (tensor<4xf32>, tensor<2xi32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
// ERROR: 6:3: C1: replica id 0 appears twice in replica_groups
// ERROR: 7:3: the root must be a tensor<1xi32> (one per operand), got tensor<2xi32>
