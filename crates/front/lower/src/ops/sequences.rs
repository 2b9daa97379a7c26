//! Ops that build or stretch sequences: `linspace`, `one_hot`, `repeat_interleave`.

use tpuc_ir::{BinaryOp, ComparisonDirection, FunctionBuilder, Value};
use tpuc_pt2::DType;

use super::indexing::index_values;
use super::one;
use crate::args::{Args, Operand};
use crate::cx::Cx;
use crate::dtype::element_type;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::{Scalar, real_part};
use crate::support::{self, norm_dim, reduce};

pub(super) const OPS: &[OpDef] = &[
    aten(
        "linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
        linspace,
    ),
    aten(
        "linspace.Tensor_Tensor(Tensor start, Tensor end, int steps, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
        linspace,
    ),
    aten(
        "linspace.Tensor_Scalar(Tensor start, Scalar end, int steps, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
        linspace,
    ),
    aten(
        "linspace.Scalar_Tensor(Scalar start, Tensor end, int steps, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
        linspace,
    ),
    aten(
        "one_hot(Tensor self, int num_classes=-1) -> Tensor",
        one_hot,
    ),
    aten(
        "repeat_interleave.self_int(Tensor self, SymInt repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor",
        repeat_interleave_int,
    ),
    aten(
        "repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, SymInt? output_size=None) -> Tensor",
        repeat_interleave_tensor,
    ),
    aten(
        "repeat_interleave.Tensor(Tensor repeats, *, SymInt? output_size=None) -> Tensor",
        repeat_indices,
    ),
];

/// `steps` points from `start` to `end`; like torch's kernel, the first half counts up from
/// `start` and the second half down from `end`, so both ends are exact. The ends are first
/// taken in the result's dtype (an integer linspace truncates them), as torch does.
fn linspace(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let steps = args.int("steps")?;
    let dtype = cx.out_dtype(0)?;
    let b = &mut *cx.b;
    let compute = if dtype.is_float() || dtype.is_complex() {
        super::norm::compute_dtype(dtype)
    } else {
        DType::F32
    };
    let start = endpoint(b, args.operand("start")?, dtype, compute, steps)?;
    let end = endpoint(b, args.operand("end")?, dtype, compute, steps)?;
    if steps == 1 {
        // torch fills a single point with `start`.
        return one(support::convert(b, start, dtype)?);
    }
    // The positions count in the parts' type of a complex linspace.
    let ty = support::tensor_type(element_type(real_part(compute))?, &[steps]);
    let position = b.iota(ty, 0)?;
    let i = support::convert(b, position, compute)?;
    let span = b.subtract(end, start)?;
    let intervals = support::like(b, i, Scalar::Float((steps - 1).max(1) as f64))?;
    let step = b.divide(span, intervals)?;
    let up = b.multiply(i, step)?;
    let up = b.add(start, up)?;
    let last = support::like(b, i, Scalar::Float((steps - 1) as f64))?;
    let remaining = b.subtract(last, i)?;
    let down = b.multiply(remaining, step)?;
    let down = b.subtract(end, down)?;
    let half = support::like(b, position, Scalar::Float((steps / 2) as f64))?;
    let first_half = b.compare(ComparisonDirection::Lt, position, half)?;
    let v = b.select(first_half, up, down)?;
    one(support::convert(b, v, dtype)?)
}

/// A linspace end (a number or a 0-d tensor) in `dtype`, then as `[steps]` of `compute`.
fn endpoint(
    b: &mut FunctionBuilder,
    value: Operand,
    dtype: DType,
    compute: DType,
    steps: i64,
) -> OpResult<Value> {
    let v = match value {
        Operand::Tensor(t) => {
            let n = support::numel(&support::shape(b, t)?);
            if n != 1 {
                bail!("linspace takes 0-d tensors as its ends, got one of {n} elements");
            }
            let t = support::reshape(b, t, &[])?;
            support::convert(b, t, dtype)?
        }
        Operand::Scalar(Scalar::Float(f)) if !dtype.is_float() && !dtype.is_complex() => {
            support::splat(b, dtype, &[], Scalar::Float(f.trunc()))?
        }
        Operand::Scalar(s) => support::splat(b, dtype, &[], s)?,
    };
    let v = support::convert(b, v, compute)?;
    support::broadcast_to(b, v, &[steps])
}

fn one_hot(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let shape = cx.out_shape(0)?;
    let b = &mut *cx.b;
    let classes = *shape.last().unwrap_or(&0);
    let given = args.int("num_classes")?;
    if given >= 0 && given != classes {
        bail!("one_hot: {given} classes, torch recorded {classes}");
    }
    let rank = shape.len();
    let x = support::convert(b, x, DType::I64)?;
    let dims: Vec<i64> = (0..rank as i64 - 1).collect();
    let x = support::broadcast_in_dim(b, x, &dims, &shape)?;
    let classes = b.iota(
        support::tensor_type(element_type(DType::I64)?, &shape),
        rank as i64 - 1,
    )?;
    let hit = b.compare(ComparisonDirection::Eq, x, classes)?;
    one(support::convert(b, hit, DType::I64)?)
}

/// `x` along `dim` with element `i` repeated `repeats` times: a new axis after `dim` broadcast
/// to `repeats`, merged back.
fn repeat_interleave_int(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let mut x = args.tensor("self")?;
    let repeats = args.int("repeats")?;
    let b = &mut *cx.b;
    let dim = match args.opt_int("dim")? {
        Some(d) => norm_dim(d, support::rank(b, x)?)?,
        None => {
            let n = support::numel(&support::shape(b, x)?);
            x = support::reshape(b, x, &[n])?;
            0
        }
    };
    let shape = support::shape(b, x)?;
    let mut wide = shape.clone();
    wide.insert(dim + 1, repeats);
    let kept: Vec<i64> = (0..wide.len() as i64)
        .filter(|&d| d != dim as i64 + 1)
        .collect();
    let v = support::broadcast_in_dim(b, x, &kept, &wide)?;
    let mut merged = shape;
    merged[dim] *= repeats;
    one(support::reshape(b, v, &merged)?)
}

/// For `output_size` positions, the source index each comes from: position `j` takes the
/// number of `i` whose running total of `repeats` is at most `j`.
fn source_indices(b: &mut FunctionBuilder, repeats: Value, output_size: i64) -> OpResult<Value> {
    let n = support::shape(b, repeats)?.first().copied().unwrap_or(1);
    let repeats = support::reshape(b, repeats, &[n])?;
    let repeats = support::convert(b, repeats, DType::I64)?;
    let i64_ty = |shape: &[i64]| -> OpResult<_> {
        Ok(support::tensor_type(element_type(DType::I64)?, shape))
    };
    // totals[i] = Σ_{k ≤ i} repeats[k]
    let k = b.iota(i64_ty(&[n, n])?, 0)?;
    let i = b.iota(i64_ty(&[n, n])?, 1)?;
    let upto = b.compare(ComparisonDirection::Le, k, i)?;
    let upto = support::convert(b, upto, DType::I64)?;
    let r = support::broadcast_in_dim(b, repeats, &[0], &[n, n])?;
    let masked = b.multiply(upto, r)?;
    let totals = reduce(b, BinaryOp::Add, masked, &[0], false)?;
    let j = b.iota(i64_ty(&[output_size, n])?, 0)?;
    let totals = support::broadcast_in_dim(b, totals, &[1], &[output_size, n])?;
    let passed = b.compare(ComparisonDirection::Le, totals, j)?;
    let passed = support::convert(b, passed, DType::I64)?;
    reduce(b, BinaryOp::Add, passed, &[1], false)
}

fn output_size(cx: &Cx<'_>, args: &Args<'_>, dim: usize) -> OpResult<i64> {
    match args.opt_int("output_size")? {
        Some(size) => Ok(size),
        None => Ok(cx.out_shape(0)?[dim]),
    }
}

fn repeat_interleave_tensor(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let mut x = args.tensor("self")?;
    let repeats = args.tensor("repeats")?;
    let dim = match args.opt_int("dim")? {
        Some(d) => norm_dim(d, support::rank(cx.b, x)?)?,
        None => {
            let n = support::numel(&support::shape(cx.b, x)?);
            x = support::reshape(cx.b, x, &[n])?;
            0
        }
    };
    let size = output_size(cx, args, dim)?;
    let index = source_indices(cx.b, repeats, size)?;
    let mut indices = vec![None; dim];
    indices.push(Some(index));
    one(index_values(cx.b, x, &indices)?)
}

fn repeat_indices(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let repeats = args.tensor("repeats")?;
    let size = output_size(cx, args, 0)?;
    let index = source_indices(cx.b, repeats, size)?;
    one(support::convert(cx.b, index, cx.out_dtype(0)?)?)
}
