//! `pad` in every mode: constant, reflect, replicate and circular. Each padded dimension is
//! rebuilt by joining slices of the input (mirrored, repeated edge or wrapped around).

use tpuc_ir::{FunctionBuilder, Value};

use super::one;
use super::shape::{concat, pad_constant, slice_dim};
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support;

pub(super) const OPS: &[OpDef] = &[aten(
    "pad(Tensor self, SymInt[] pad, str mode=\"constant\", float? value=None) -> Tensor",
    pad,
)];

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

fn pad(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let pads = args.ints("pad")?;
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    if !pads.len().is_multiple_of(2) || pads.len() / 2 > shape.len() {
        bail!(
            "padding {pads:?} does not fit a tensor of rank {}",
            shape.len()
        );
    }
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
    let mut v = x;
    for (i, pair) in pads.chunks(2).enumerate() {
        v = pad_dim(b, v, shape.len() - 1 - i, pair[0], pair[1], mode)?;
    }
    one(v)
}
