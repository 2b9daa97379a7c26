//! Complex numbers built and taken apart: `complex`, `polar`, `view_as_complex` (pairs along
//! the last dimension), `view_as_real`, `real`, `imag` and `angle`. The views become copies:
//! tpuc's values have no storage to share.

use tpuc_ir::{ComparisonDirection, FunctionBuilder, Value};
use tpuc_pt2::DType;

use super::one;
use super::shape::{concat, slice_dim};
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::{Scalar, promote_types, to_float};
use crate::support;

pub(super) const OPS: &[OpDef] = &[
    aten("complex(Tensor real, Tensor imag) -> Tensor", complex),
    aten("polar(Tensor abs, Tensor angle) -> Tensor", polar),
    aten(
        "view_as_complex(Tensor(a) self) -> Tensor(a)",
        view_as_complex,
    ),
    aten("view_as_real(Tensor(a) self) -> Tensor(a)", view_as_real),
    aten("real(Tensor(a) self) -> Tensor(a)", real),
    aten("imag(Tensor(a) self) -> Tensor(a)", imag),
    aten("angle(Tensor self) -> Tensor", angle),
];

/// `re + i·im` of two real tensors, broadcast to one shape and promoted to one float type.
fn from_parts(b: &mut FunctionBuilder, re: Value, im: Value) -> OpResult<Value> {
    let dtype = promote_types(support::dtype(b, re)?, support::dtype(b, im)?)?;
    if !matches!(dtype, DType::F32 | DType::F64) {
        bail!("complex numbers of {dtype} parts: tpuc builds complex64 and complex128 only");
    }
    let shape = support::broadcast_shapes(&support::shape(b, re)?, &support::shape(b, im)?)?;
    let parts = [re, im]
        .map(|v| support::convert(b, v, dtype).and_then(|v| support::broadcast_to(b, v, &shape)));
    let [re, im] = parts;
    Ok(b.complex(re?, im?)?)
}

fn complex(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let (re, im) = (args.tensor("real")?, args.tensor("imag")?);
    one(from_parts(cx.b, re, im)?)
}

/// `abs·cos(angle) + i·abs·sin(angle)`.
fn polar(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let (magnitude, angle) = (args.tensor("abs")?, args.tensor("angle")?);
    let b = &mut *cx.b;
    let shape =
        support::broadcast_shapes(&support::shape(b, magnitude)?, &support::shape(b, angle)?)?;
    let magnitude = support::broadcast_to(b, magnitude, &shape)?;
    let angle = support::broadcast_to(b, angle, &shape)?;
    let cos = b.cosine(angle)?;
    let sin = b.sine(angle)?;
    let re = b.multiply(magnitude, cos)?;
    let im = b.multiply(magnitude, sin)?;
    one(from_parts(b, re, im)?)
}

/// `[..., 2]` real pairs as `[...]` complex numbers.
fn view_as_complex(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    let Some((&2, outer)) = shape.split_last() else {
        bail!("view_as_complex needs a last dimension of size 2, got {shape:?}");
    };
    let last = shape.len() - 1;
    let re = slice_dim(b, x, last, 0, 1, 1)?;
    let re = support::reshape(b, re, outer)?;
    let im = slice_dim(b, x, last, 1, 2, 1)?;
    let im = support::reshape(b, im, outer)?;
    one(from_parts(b, re, im)?)
}

/// `[...]` complex numbers as `[..., 2]` real pairs.
fn view_as_real(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let b = &mut *cx.b;
    if !support::element(b, x)?.is_complex() {
        bail!("view_as_real takes a complex tensor");
    }
    let mut pair = support::shape(b, x)?;
    pair.push(1);
    let re = b.real(x)?;
    let re = support::reshape(b, re, &pair)?;
    let im = b.imag(x)?;
    let im = support::reshape(b, im, &pair)?;
    one(concat(b, &[re, im], pair.len() as i64 - 1)?)
}

fn real(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    if !support::element(cx.b, x)?.is_complex() {
        return one(x);
    }
    one(cx.b.real(x)?)
}

fn imag(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    if !support::element(cx.b, x)?.is_complex() {
        bail!("`imag` is not defined for real tensors (torch refuses it too)");
    }
    one(cx.b.imag(x)?)
}

/// The argument of a complex number; of a real one, π below zero, 0 otherwise, NaN for NaN.
fn angle(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let b = &mut *cx.b;
    if support::element(b, x)?.is_complex() {
        let re = b.real(x)?;
        let im = b.imag(x)?;
        return one(b.atan2(im, re)?);
    }
    let x = support::convert(b, x, to_float(support::dtype(b, x)?))?;
    let zero = support::like(b, x, Scalar::Int(0))?;
    let pi = support::like(b, x, Scalar::Float(std::f64::consts::PI))?;
    let negative = b.compare(ComparisonDirection::Lt, x, zero)?;
    let angle = b.select(negative, pi, zero)?;
    let nan = b.compare(ComparisonDirection::Ne, x, x)?;
    one(b.select(nan, x, angle)?)
}
