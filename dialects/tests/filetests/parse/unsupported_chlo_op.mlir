// RUN: parse
// ERROR: 5:10: unsupported CHLO op `chlo.minimum_broadcast_shapes`: tpuc reads chlo.acos, chlo.acosh, chlo.asin, chlo.asinh, chlo.atan, chlo.atanh, chlo.bessel_i1e, chlo.conj, chlo.cosh, chlo.digamma, chlo.erf, chlo.erf_inv, chlo.erfc, chlo.is_inf, chlo.is_neg_inf, chlo.is_pos_inf, chlo.lgamma, chlo.sinh, chlo.square, chlo.tan, chlo.broadcast_add, chlo.broadcast_and, chlo.broadcast_atan2, chlo.broadcast_complex, chlo.broadcast_divide, chlo.broadcast_maximum, chlo.broadcast_minimum, chlo.broadcast_multiply, chlo.broadcast_next_after, chlo.broadcast_or, chlo.broadcast_polygamma, chlo.broadcast_power, chlo.broadcast_remainder, chlo.broadcast_shift_left, chlo.broadcast_shift_right_arithmetic, chlo.broadcast_shift_right_logical, chlo.broadcast_subtract, chlo.broadcast_xor, chlo.broadcast_zeta, chlo.mulhi, chlo.next_after, chlo.polygamma, chlo.zeta, chlo.broadcast_select, chlo.broadcast_compare, chlo.constant_like, chlo.ragged_dot, chlo.top_k
module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "chlo.minimum_broadcast_shapes"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
