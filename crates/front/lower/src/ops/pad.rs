//! `pad` in every mode: constant, reflect, replicate and circular, and the core ATen ops of
//! the reflect and replicate modes (`reflection_pad2d`, ...). Each padded dimension is rebuilt
//! by joining slices of the input (mirrored, repeated edge or wrapped around).

use tpuc_ir::{FunctionBuilder, Value};

use super::indexing::gather_along;
use super::one;
use super::shape::{concat, pad_constant, slice_dim};
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support;

pub(super) const OPS: &[OpDef] = &[
    aten(
        "pad(Tensor self, SymInt[] pad, str mode=\"constant\", float? value=None) -> Tensor",
        pad,
    ),
    aten(
        "reflection_pad1d(Tensor self, SymInt[2] padding) -> Tensor",
        |cx, args| pad_mode(cx, args, Mode::Reflect),
    ),
    aten(
        "reflection_pad2d(Tensor self, SymInt[4] padding) -> Tensor",
        |cx, args| pad_mode(cx, args, Mode::Reflect),
    ),
    aten(
        "reflection_pad3d(Tensor self, SymInt[6] padding) -> Tensor",
        |cx, args| pad_mode(cx, args, Mode::Reflect),
    ),
    aten(
        "replication_pad1d(Tensor self, SymInt[2] padding) -> Tensor",
        |cx, args| pad_mode(cx, args, Mode::Replicate),
    ),
    aten(
        "replication_pad2d(Tensor self, SymInt[4] padding) -> Tensor",
        |cx, args| pad_mode(cx, args, Mode::Replicate),
    ),
    aten(
        "replication_pad3d(Tensor self, SymInt[6] padding) -> Tensor",
        |cx, args| pad_mode(cx, args, Mode::Replicate),
    ),
];

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Reflect,
    Replicate,
    Circular,
}

/// The `low` elements before and `high` after dimension `dim`, by `mode`.
fn pad_dim(
    b: &mut FunctionBuilder,
    x: Value,
    dim: usize,
    low: i64,
    high: i64,
    mode: Mode,
) -> OpResult<Value> {
    let size = support::shape(b, x)?[dim];
    if mode == Mode::Replicate && (low < 0 || high < 0) {
        return replicate_cropping(b, x, dim, low, high);
    }
    let limit = match mode {
        Mode::Reflect => size - 1,
        Mode::Circular => size,
        Mode::Replicate => i64::MAX,
    };
    if low < 0 || high < 0 || low > limit || high > limit {
        bail!("padding ({low}, {high}) does not fit a dimension of size {size} in this mode");
    }
    let mut parts = Vec::new();
    let edge = |b: &mut FunctionBuilder, start: i64, end: i64| -> OpResult<Value> {
        match mode {
            Mode::Reflect => {
                let s = slice_dim(b, x, dim, start, end, 1)?;
                Ok(b.reverse(s, &[dim as i64])?)
            }
            _ => slice_dim(b, x, dim, start, end, 1),
        }
    };
    let repeat_edge = |b: &mut FunctionBuilder, at: i64, count: i64| -> OpResult<Value> {
        let s = slice_dim(b, x, dim, at, at + 1, 1)?;
        let mut to = support::shape(b, s)?;
        to[dim] = count;
        support::broadcast_to(b, s, &to)
    };
    if low > 0 {
        parts.push(match mode {
            Mode::Reflect => edge(b, 1, low + 1)?,
            Mode::Replicate => repeat_edge(b, 0, low)?,
            Mode::Circular => edge(b, size - low, size)?,
        });
    }
    parts.push(x);
    if high > 0 {
        parts.push(match mode {
            Mode::Reflect => edge(b, size - 1 - high, size - 1)?,
            Mode::Replicate => repeat_edge(b, size - 1, high)?,
            Mode::Circular => edge(b, 0, high)?,
        });
    }
    concat(b, &parts, dim as i64)
}

/// Replicate padding where a side is negative (that side is cropped): element `j` of the
/// result is `x[clamp(j - low, 0, size - 1)]` along `dim`, one gather.
fn replicate_cropping(
    b: &mut FunctionBuilder,
    x: Value,
    dim: usize,
    low: i64,
    high: i64,
) -> OpResult<Value> {
    let mut shape = support::shape(b, x)?;
    let size = shape[dim];
    let len = size + low + high;
    if len < 0 || size == 0 {
        bail!("padding ({low}, {high}) does not fit a dimension of size {size}");
    }
    shape[dim] = len;
    let ty = support::tensor_type(tpuc_ir::ElementType::I64, &shape);
    let positions = b.iota(ty, dim as i64)?;
    let shift = support::like(b, positions, Scalar::Int(low))?;
    let from = b.subtract(positions, shift)?;
    let first = support::like(b, from, Scalar::Int(0))?;
    let last = support::like(b, from, Scalar::Int(size - 1))?;
    let from = b.clamp(first, from, last)?;
    gather_along(b, x, dim, from)
}

/// That `pads` holds pairs for at most `rank` dimensions.
fn check_pairs(pads: &[i64], rank: usize) -> OpResult<()> {
    if !pads.len().is_multiple_of(2) || pads.len() / 2 > rank {
        bail!("padding {pads:?} does not fit a tensor of rank {rank}");
    }
    Ok(())
}

/// `x` padded by `pads` (the last dimension's pair first, as torch lists them) in `mode`.
fn padded(b: &mut FunctionBuilder, x: Value, pads: &[i64], mode: Mode) -> OpResult<Value> {
    let rank = support::shape(b, x)?.len();
    check_pairs(pads, rank)?;
    let mut v = x;
    for (i, pair) in pads.chunks(2).enumerate() {
        v = pad_dim(b, v, rank - 1 - i, pair[0], pair[1], mode)?;
    }
    Ok(v)
}

fn pad(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let pads = args.ints("pad")?;
    let b = &mut *cx.b;
    check_pairs(&pads, support::shape(b, x)?.len())?;
    let mode = match args.str("mode")? {
        "constant" => {
            let value = args.opt_float("value")?.unwrap_or(0.0);
            return one(pad_constant(b, x, &pads, Scalar::Float(value))?);
        }
        "reflect" => Mode::Reflect,
        "replicate" => Mode::Replicate,
        "circular" => Mode::Circular,
        other => bail!("padding mode `{other}` is not constant, reflect, replicate or circular"),
    };
    one(padded(b, x, &pads, mode)?)
}

/// `reflection_padNd` and `replication_padNd`: `padding` holds N pairs.
fn pad_mode(cx: &mut Cx<'_>, args: &Args<'_>, mode: Mode) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let pads = args.ints("padding")?;
    one(padded(cx.b, x, &pads, mode)?)
}
