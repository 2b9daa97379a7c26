//! `linalg_vector_norm` (and `norm.ScalarOpt_dim`, which `Tensor.norm(p, dim)` exports as):
//! `(Σ|x|^p)^(1/p)`, with the max, min and count-of-nonzeros norms for `p = ±inf, 0`; and
//! `_weight_norm` (`v · g / ‖v‖` over every dimension but `dim`).

use tpuc_ir::{BinaryOp, ComparisonDirection};

use super::norm::compute_dtype;
use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support::{self, reduce, reduce_extremum};

pub(super) const OPS: &[OpDef] = &[
    aten(
        "linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
        vector_norm,
    ),
    aten(
        "norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor",
        norm_dim,
    ),
    aten(
        "_weight_norm(Tensor v, Tensor g, int dim=0) -> Tensor",
        weight_norm,
    ),
];

fn weight_norm(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let v = args.tensor("v")?;
    let g = args.tensor("g")?;
    let b = &mut *cx.b;
    let shape = support::shape(b, v)?;
    let dims: Vec<usize> = match args.int("dim")? {
        -1 => (0..shape.len()).collect(),
        d => {
            let d = support::norm_dim(d, shape.len())?;
            (0..shape.len()).filter(|&i| i != d).collect()
        }
    };
    let squares = b.multiply(v, v)?;
    let sum = reduce(b, BinaryOp::Add, squares, &dims, true)?;
    let norm = b.sqrt(sum)?;
    let norm = support::broadcast_to(b, norm, &support::shape(b, g)?)?;
    let scale = b.divide(g, norm)?;
    let scale = support::broadcast_to(b, scale, &shape)?;
    one(b.multiply(v, scale)?)
}

fn vector_norm(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let ord = args.scalar("ord")?.as_f64();
    let dims = args.opt_ints("dim")?;
    norm_of(cx, args, ord, dims, args.bool("keepdim")?)
}

fn norm_dim(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let p = args.opt_scalar("p")?.map_or(2.0, Scalar::as_f64);
    let dims = Some(args.ints("dim")?);
    norm_of(cx, args, p, dims, args.bool("keepdim")?)
}

fn norm_of(
    cx: &mut Cx<'_>,
    args: &Args<'_>,
    ord: f64,
    dims: Option<Vec<i64>>,
    keepdim: bool,
) -> OpResult<Vec<Val>> {
    let dtype = cx.out_dtype(0)?;
    let x = args.tensor("self")?;
    let b = &mut *cx.b;
    let element = support::element(b, x)?;
    if !element.is_float() && !element.is_complex() {
        bail!(
            "vector norms need a floating or complex tensor, got {}",
            support::dtype(b, x)?
        );
    }
    // A complex tensor's norms are its magnitudes'.
    let x = if element.is_complex() { b.abs(x)? } else { x };
    // Half types accumulate in float32 (their squares overflow float16) and round once.
    let x = support::convert(b, x, dtype)?;
    let x = support::convert(b, x, compute_dtype(dtype))?;
    let rank = support::rank(b, x)?;
    let dims = match dims {
        Some(d) if !d.is_empty() => support::norm_dims(&d, rank)?,
        _ => (0..rank).collect(),
    };
    let magnitude = b.abs(x)?;
    let value = if ord.is_infinite() {
        reduce_extremum(b, ord > 0.0, magnitude, &dims, keepdim)?
    } else if ord == 0.0 {
        let zero = support::like(b, x, Scalar::Float(0.0))?;
        let nonzero = b.compare(ComparisonDirection::Ne, x, zero)?;
        let count = support::convert(b, nonzero, compute_dtype(dtype))?;
        reduce(b, BinaryOp::Add, count, &dims, keepdim)?
    } else if ord == 1.0 {
        reduce(b, BinaryOp::Add, magnitude, &dims, keepdim)?
    } else if ord == 2.0 {
        let squares = b.multiply(x, x)?;
        let sum = reduce(b, BinaryOp::Add, squares, &dims, keepdim)?;
        b.sqrt(sum)?
    } else {
        let p = support::like(b, x, Scalar::Float(ord))?;
        let powers = b.power(magnitude, p)?;
        let sum = reduce(b, BinaryOp::Add, powers, &dims, keepdim)?;
        let inverse = support::like(b, sum, Scalar::Float(1.0 / ord))?;
        b.power(sum, inverse)?
    };
    one(support::convert(b, value, dtype)?)
}
