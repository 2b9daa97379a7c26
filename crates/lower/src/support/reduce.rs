//! Reductions over dimensions, with the neutral element of each combiner.

use tpuc_ir::{BinaryOp, ElementType, FunctionBuilder, Value};

use crate::dtype::dtype_of;
use crate::error::{OpResult, bail};
use crate::promote::Scalar;

/// The neutral element of `op` for `element`, as a 0-d constant.
pub(crate) fn reduce_init(
    b: &mut FunctionBuilder,
    op: BinaryOp,
    element: ElementType,
) -> OpResult<Value> {
    let dtype = dtype_of(element)?;
    let float = element.is_float();
    let value = match op {
        BinaryOp::Add | BinaryOp::Or | BinaryOp::Xor => Scalar::Int(0),
        BinaryOp::Multiply => Scalar::Int(1),
        BinaryOp::And => Scalar::Bool(true),
        BinaryOp::Maximum if float => Scalar::Float(f64::NEG_INFINITY),
        BinaryOp::Minimum if float => Scalar::Float(f64::INFINITY),
        BinaryOp::Maximum if element == ElementType::I1 => Scalar::Bool(false),
        BinaryOp::Minimum if element == ElementType::I1 => Scalar::Bool(true),
        BinaryOp::Maximum if element.is_unsigned_integer() => Scalar::Int(0),
        BinaryOp::Minimum if element.is_unsigned_integer() => Scalar::Int(-1),
        BinaryOp::Maximum => Scalar::Int(signed_min(element)),
        BinaryOp::Minimum => Scalar::Int(!signed_min(element)),
        other => bail!("internal: no neutral element for {other:?}"),
    };
    super::splat(b, dtype, &[], value)
}

fn signed_min(element: ElementType) -> i64 {
    let bits = element.bit_width();
    if bits >= 64 {
        i64::MIN
    } else {
        -(1i64 << (bits - 1))
    }
}

/// Reduces `v` over `dims` with `op`; `keepdim` keeps them as size 1.
pub(crate) fn reduce(
    b: &mut FunctionBuilder,
    op: BinaryOp,
    v: Value,
    dims: &[usize],
    keepdim: bool,
) -> OpResult<Value> {
    let shape = super::shape(b, v)?;
    if dims.is_empty() {
        return Ok(v);
    }
    let element = super::element(b, v)?;
    let init = reduce_init(b, op, element)?;
    let mut sorted: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    sorted.sort_unstable();
    sorted.dedup();
    let reduced = b.reduce_with(op, v, init, &sorted)?;
    if !keepdim {
        return Ok(reduced);
    }
    let kept: Vec<i64> = shape
        .iter()
        .enumerate()
        .map(|(i, &s)| if sorted.contains(&(i as i64)) { 1 } else { s })
        .collect();
    super::reshape(b, reduced, &kept)
}

/// Broadcasts a reduction result (reduced over `dims`, without kept dimensions) back to `shape`.
pub(crate) fn broadcast_back(
    b: &mut FunctionBuilder,
    reduced: Value,
    dims: &[usize],
    shape: &[i64],
) -> OpResult<Value> {
    let kept: Vec<i64> = (0..shape.len())
        .filter(|i| !dims.contains(i))
        .map(|i| i as i64)
        .collect();
    super::broadcast_in_dim(b, reduced, &kept, shape)
}

/// The mean over `dims` (the dimensions dropped): a sum divided by the element count.
pub(crate) fn reduce_mean(b: &mut FunctionBuilder, v: Value, dims: &[usize]) -> OpResult<Value> {
    let shape = super::shape(b, v)?;
    let count: i64 = dims.iter().map(|&d| shape[d]).product();
    let sum = reduce(b, BinaryOp::Add, v, dims, false)?;
    let n = super::like(b, sum, Scalar::Int(count))?;
    Ok(b.divide(sum, n)?)
}
