//! Grouped matrix products of mixture-of-experts layers: transformers'
//! `grouped_mm_fallback(input, weight, offs)` multiplies the rows of `input` that belong to
//! expert `g` (rows `offs[g-1]..offs[g]`, sorted by expert) by `weight[g]`; rows past the last
//! offset stay zero. XLA has no ragged product here, so every row is multiplied by every
//! expert's weight and its own expert's product kept: `E` times the flops of the ragged one.

use tpuc_ir::{BinaryOp, ComparisonDirection, DotDims};
use tpuc_pt2::DType;

use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::dtype::element_type;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support;

pub(super) const OPS: &[OpDef] = &[aten(
    "transformers::grouped_mm_fallback(Tensor input, Tensor weight, Tensor offs) -> Tensor",
    grouped_mm,
)];

fn grouped_mm(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let (x, w, offs) = (
        args.tensor("input")?,
        args.tensor("weight")?,
        args.tensor("offs")?,
    );
    let b = &mut *cx.b;
    let (rows, weights, ends) = (
        support::shape(b, x)?,
        support::shape(b, w)?,
        support::shape(b, offs)?,
    );
    let ([s, k], [e, k2, _], [e2]) = (&rows[..], &weights[..], &ends[..]) else {
        bail!(
            "grouped_mm_fallback takes input (S, K), weight (E, K, M) and offs (E), got \
             {rows:?}, {weights:?} and {ends:?}"
        );
    };
    if k != k2 || e != e2 {
        bail!("grouped_mm_fallback: input {rows:?}, weight {weights:?} and offs {ends:?} disagree");
    }
    let (s, e) = (*s, *e);
    // [S, E, M]: every row times every expert.
    let every = support::dot(b, x, w, DotDims::contracting(1, 1))?;
    // Row i's expert is the number of experts whose rows end at or before it.
    let i64 = element_type(DType::I64)?;
    let pairs = [s, e];
    let row = b.iota(support::tensor_type(i64, &pairs), 0)?;
    let offs = support::convert(b, offs, DType::I64)?;
    let ends = support::broadcast_in_dim(b, offs, &[1], &pairs)?;
    let ended = b.compare(ComparisonDirection::Le, ends, row)?;
    let ended = support::convert(b, ended, DType::I64)?;
    let expert = support::reduce(b, BinaryOp::Add, ended, &[1], false)?;
    let expert = support::broadcast_in_dim(b, expert, &[0], &pairs)?;
    let index = b.iota(support::tensor_type(i64, &pairs), 1)?;
    let own = b.compare(ComparisonDirection::Eq, expert, index)?;
    // Each row's own product (a select, so another expert's inf or NaN cannot leak in), zero
    // past the last expert's rows.
    let shape = support::shape(b, every)?;
    let own = support::broadcast_in_dim(b, own, &[0, 1], &shape)?;
    let zero = support::like(b, every, Scalar::Int(0))?;
    let kept = b.select(own, every, zero)?;
    one(support::reduce(b, BinaryOp::Add, kept, &[1], false)?)
}
