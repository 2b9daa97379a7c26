//! `--debug` checks compiled into the program: compiled gathers clamp an out-of-range index
//! where torch raises, so each checked index tensor also yields `[count, value]`: how many
//! elements fall outside the bounds and the largest of them (the smallest when all are below).

use tpuc_ir::{BinaryOp, ComparisonDirection, FunctionBuilder, Value};
use tpuc_pt2::DType;

use super::shape::concat;
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
    concat(b, &[count, worst], 0)
}
