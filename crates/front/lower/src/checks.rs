//! `--debug` checks compiled into the program: compiled gathers clamp an out-of-range index
//! where torch raises, so each checked index tensor also yields `[count, value]`: how many
//! elements fall outside the bounds and the largest of them (the smallest when all are below).
//! `--debug=nan` also checks each floating-point op output for NaN and infinities.

use tpuc_ir::ElementType;
use tpuc_ir::{BinaryOp, ComparisonDirection, FunctionBuilder, Value};
use tpuc_pt2::DType;

use crate::error::OpResult;
use crate::promote::Scalar;
use crate::support::{self, reduce, reduce_extremum};

pub(crate) fn index_check(
    b: &mut FunctionBuilder,
    index: Value,
    low: i64,
    high: i64,
) -> OpResult<Value> {
    let index = support::convert(b, index, DType::I64)?;
    let shape = support::shape(b, index)?;
    let dims: Vec<usize> = (0..shape.len()).collect();
    let lo = support::splat(b, DType::I64, &shape, Scalar::Int(low))?;
    let hi = support::splat(b, DType::I64, &shape, Scalar::Int(high))?;
    let below = b.compare(ComparisonDirection::Lt, index, lo)?;
    let above = b.compare(ComparisonDirection::Ge, index, hi)?;
    let bad = b.or(below, above)?;
    let ones = support::convert(b, bad, DType::I64)?;
    let count = reduce(b, BinaryOp::Add, ones, &dims, false)?;
    let floor = support::splat(b, DType::I64, &shape, Scalar::Int(i64::MIN))?;
    let offending = b.select(bad, index, floor)?;
    let worst = reduce_extremum(b, true, offending, &dims, false)?;
    let count = support::reshape(b, count, &[1])?;
    let worst = support::reshape(b, worst, &[1])?;
    Ok(b.concatenate(&[count, worst], 0)?)
}

/// `[NaNs, +infs, -infs, first]` (int64) of a floating-point tensor: how many elements are NaN,
/// `+inf` and `-inf`, and the row-major position of the first non-finite one (`numel` when all
/// are finite). Counts, not values, so no NaN reaches a reduction.
pub(crate) fn non_finite_check(b: &mut FunctionBuilder, x: Value) -> OpResult<Value> {
    let n = support::numel(&support::shape(b, x)?);
    let x = support::reshape(b, x, &[n])?;
    let count = |b: &mut FunctionBuilder, flags: Value| -> OpResult<Value> {
        let ones = support::convert(b, flags, DType::I64)?;
        let total = reduce(b, BinaryOp::Add, ones, &[0], false)?;
        support::reshape(b, total, &[1])
    };
    let nan = b.compare(ComparisonDirection::Ne, x, x)?;
    let inf = support::like(b, x, Scalar::Float(f64::INFINITY))?;
    let pos = b.compare(ComparisonDirection::Eq, x, inf)?;
    let neg_inf = support::like(b, x, Scalar::Float(f64::NEG_INFINITY))?;
    let neg = b.compare(ComparisonDirection::Eq, x, neg_inf)?;
    let finite = b.is_finite(x)?;
    let positions = b.iota(support::tensor_type(ElementType::I64, &[n]), 0)?;
    let past = support::splat(b, DType::I64, &[n], Scalar::Int(n))?;
    let at = b.select(finite, past, positions)?;
    let first = reduce_extremum(b, false, at, &[0], false)?;
    let first = support::reshape(b, first, &[1])?;
    let parts = [count(b, nan)?, count(b, pos)?, count(b, neg)?, first];
    Ok(b.concatenate(&parts, 0)?)
}
