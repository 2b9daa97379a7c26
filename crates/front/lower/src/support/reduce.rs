//! Reductions over dimensions, with the neutral element of each combiner.

use tpuc_ir::{BinaryOp, ComparisonDirection, ElementType, FunctionBuilder, Value};

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

/// A float extremum that propagates NaN, computed alongside a plain one: the operands of a
/// `reduce` or `reduce_window` over `[v, isnan(v)]` (the value and whether any NaN was seen),
/// see [`extremum_with_nan_body`] and [`nan_where`].
pub(crate) fn with_nan_flags(
    b: &mut FunctionBuilder,
    v: Value,
    init: Value,
) -> OpResult<NanFlagged> {
    let nan = b.compare(ComparisonDirection::Ne, v, v)?;
    let none = super::splat(b, tpuc_pt2::DType::Bool, &[], Scalar::Bool(false))?;
    Ok(NanFlagged {
        inputs: [v, nan],
        inits: [init, none],
    })
}

pub(crate) struct NanFlagged {
    pub inputs: [Value; 2],
    pub inits: [Value; 2],
}

/// The body over [`with_nan_flags`] operands: `op` of the values, `or` of the flags.
pub(crate) fn extremum_with_nan_body(
    b: &mut FunctionBuilder,
    op: BinaryOp,
    a: &[Value],
) -> tpuc_ir::Result<Vec<Value>> {
    Ok(vec![b.binary(op, a[0], a[2])?, b.or(a[1], a[3])?])
}

/// NaN where `any_nan`, else `value`.
pub(crate) fn nan_where(b: &mut FunctionBuilder, any_nan: Value, value: Value) -> OpResult<Value> {
    let nan = super::like(b, value, Scalar::Float(f64::NAN))?;
    Ok(b.select(any_nan, nan, value)?)
}

/// Which of two (value, index) candidates an arg-extremum keeps: the larger (`max`) or smaller
/// value, NaN counting as the extremum; on a tie the smaller index, except that between two NaNs
/// `last_nan` keeps the larger one (torch's pooling kernels take the last NaN of a window).
/// Commutative and associative, so `reduce` and `reduce_window` may combine in any order.
pub(crate) fn arg_extremum(
    b: &mut FunctionBuilder,
    acc: (Value, Value),
    next: (Value, Value),
    max: bool,
    last_nan: bool,
) -> tpuc_ir::Result<(Value, Value)> {
    let ((acc_v, acc_i), (v, i)) = (acc, next);
    let direction = if max {
        ComparisonDirection::Gt
    } else {
        ComparisonDirection::Lt
    };
    let better = b.compare(direction, v, acc_v)?;
    let nan = b.compare(ComparisonDirection::Ne, v, v)?;
    let acc_nan = b.compare(ComparisonDirection::Ne, acc_v, acc_v)?;
    let not_acc_nan = b.not(acc_nan)?;
    let new_nan = b.and(nan, not_acc_nan)?;
    let better = b.or(better, new_nan)?;
    let equal = b.compare(ComparisonDirection::Eq, v, acc_v)?;
    let both_nan = b.and(nan, acc_nan)?;
    let tie = if last_nan {
        let earlier = b.compare(ComparisonDirection::Lt, i, acc_i)?;
        let later = b.compare(ComparisonDirection::Gt, i, acc_i)?;
        let equal_first = b.and(equal, earlier)?;
        let nan_last = b.and(both_nan, later)?;
        b.or(equal_first, nan_last)?
    } else {
        let same = b.or(equal, both_nan)?;
        let earlier = b.compare(ComparisonDirection::Lt, i, acc_i)?;
        b.and(same, earlier)?
    };
    let take = b.or(better, tie)?;
    Ok((b.select(take, v, acc_v)?, b.select(take, i, acc_i)?))
}

/// Reduces `v` over `dims` with `op`; `keepdim` keeps them as size 1.
pub(crate) fn reduce(
    b: &mut FunctionBuilder,
    op: BinaryOp,
    v: Value,
    dims: &[usize],
    keepdim: bool,
) -> OpResult<Value> {
    reduce_by(b, op, v, dims, keepdim, false)
}

/// The maximum (`max`) or minimum over `dims`, NaN where any reduced element is NaN (torch's
/// `amax`, `amin`, `max`, `min`). XLA:CPU's `reduce` with `maximum` drops NaNs, so one reduce
/// computes the plain extremum and whether any element is NaN ([`with_nan_flags`]); a body
/// that selects NaNs itself crashes libtpu's compiler in the softmax pattern
/// (`exp(x - amax(x))`). Softmax
/// and friends use [`reduce`]: a NaN the plain `maximum` drops reaches their result through the
/// sum anyway.
pub(crate) fn reduce_extremum(
    b: &mut FunctionBuilder,
    max: bool,
    v: Value,
    dims: &[usize],
    keepdim: bool,
) -> OpResult<Value> {
    let op = if max {
        BinaryOp::Maximum
    } else {
        BinaryOp::Minimum
    };
    reduce_by(b, op, v, dims, keepdim, true)
}

fn reduce_by(
    b: &mut FunctionBuilder,
    op: BinaryOp,
    v: Value,
    dims: &[usize],
    keepdim: bool,
    propagate_nan: bool,
) -> OpResult<Value> {
    let shape = super::shape(b, v)?;
    let dims: Vec<usize> = dims.iter().copied().filter(|&d| d < shape.len()).collect();
    if dims.is_empty() {
        return Ok(v);
    }
    let element = super::element(b, v)?;
    let init = reduce_init(b, op, element)?;
    let mut sorted: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    sorted.sort_unstable();
    sorted.dedup();
    let reduced = if propagate_nan && element.is_float() {
        let flagged = with_nan_flags(b, v, init)?;
        let out = b.reduce(&flagged.inputs, &flagged.inits, &sorted, |b, a| {
            extremum_with_nan_body(b, op, a)
        })?;
        nan_where(b, out[1], out[0])?
    } else {
        b.reduce_with(op, v, init, &sorted)?
    };
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

/// The mean over `dims` (the dimensions dropped): a sum times the reciprocal of the element
/// count (a multiply, not a divide; within an ulp of the quotient).
pub(crate) fn reduce_mean(b: &mut FunctionBuilder, v: Value, dims: &[usize]) -> OpResult<Value> {
    let shape = super::shape(b, v)?;
    let dims: Vec<usize> = dims.iter().copied().filter(|&d| d < shape.len()).collect();
    let count: i64 = dims.iter().map(|&d| shape[d]).product();
    let sum = reduce(b, BinaryOp::Add, v, &dims, false)?;
    let reciprocal = super::like(b, sum, Scalar::Float(1.0 / count as f64))?;
    Ok(b.multiply(sum, reciprocal)?)
}
