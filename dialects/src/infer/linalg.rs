//! `triangular_solve`: the spec's C1–C4.

use super::{InferResult, shape_str, tensor};
use crate::types::{Dim, Type};

/// `a` holds square matrices matching `b`'s rows (`left_side`) or columns, batched alike;
/// the result has `b`'s type.
pub(super) fn triangular_solve(left_side: bool, operands: &[Type]) -> InferResult<Vec<Type>> {
    let a = tensor(&operands[0], "a")?;
    let b = tensor(&operands[1], "b")?;
    let floating = |e: crate::ElementType| e.is_float() || e.is_complex();
    if !floating(a.element) {
        return Err(format!(
            "I1: a must be of a floating-point or complex type, got {}",
            a.element
        ));
    }
    if a.element != b.element {
        return Err(format!(
            "C1: a and b must have one element type, got {} and {}",
            a.element, b.element
        ));
    }
    if a.rank() < 2 || a.rank() != b.rank() {
        return Err(format!(
            "C2: a and b must have one rank of at least 2, got {} and {}",
            a.rank(),
            b.rank()
        ));
    }
    let rank = a.rank();
    let batch_a = &a.shape[..rank - 2];
    let batch_b = &b.shape[..rank - 2];
    if !crate::types::shapes_compatible(batch_a, batch_b) {
        return Err(format!(
            "C3: a and b must have the same batch dimensions, got {} and {}",
            shape_str(batch_a),
            shape_str(batch_b)
        ));
    }
    let differ = |x: Dim, y: Dim| matches!((x, y), (Dim::Static(x), Dim::Static(y)) if x != y);
    let (rows, cols) = (a.shape[rank - 2], a.shape[rank - 1]);
    if differ(rows, cols) {
        return Err(format!(
            "C3: a must hold square matrices, got {rows} x {cols}"
        ));
    }
    let shared = b.shape[if left_side { rank - 2 } else { rank - 1 }];
    if differ(rows, shared) || differ(cols, shared) {
        let which = if left_side { "rows" } else { "columns" };
        return Err(format!(
            "C3: a's matrices are {rows} x {cols}, but b has {shared} {which} (left_side = \
             {left_side})"
        ));
    }
    Ok(vec![operands[1].clone()])
}
