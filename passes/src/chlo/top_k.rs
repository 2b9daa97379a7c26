//! `chlo.top_k`: a stable descending sort of (values, positions) along the last dimension,
//! sliced to the first `k`. Equal values keep their order, so the lower index comes first.

use tpuc_ir::{ComparisonDirection, ComparisonType, ElementType, OpBuilder, TensorType, Value};

use super::Built;

pub(super) fn top_k(b: &mut OpBuilder<'_>, x: Value, k: i64) -> Built {
    let ty = b.tensor_type(x)?.clone();
    let Some(shape) = ty.static_shape() else {
        return Ok(None);
    };
    let last = shape.len() as i64 - 1;
    let positions = b.iota(TensorType::of(&shape, ElementType::I32), last)?;
    let compare_type = if ty.element.is_float() {
        ComparisonType::TotalOrder
    } else if ty.element.is_signed_integer() {
        ComparisonType::Signed
    } else {
        ComparisonType::Unsigned
    };
    let sorted = b.sort(&[x, positions], last, true, move |b, args| {
        let greater = b.compare_with_type(
            ComparisonDirection::Gt,
            Some(compare_type),
            args[0],
            args[1],
        )?;
        Ok(vec![greater])
    })?;
    let start = vec![0; shape.len()];
    let mut limit: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    *limit.last_mut().expect("top_k operands have rank >= 1") = k;
    let strides = vec![1; shape.len()];
    let values = b.slice(sorted[0], &start, &limit, &strides)?;
    let indices = b.slice(sorted[1], &start, &limit, &strides)?;
    Ok(Some(vec![values, indices]))
}
