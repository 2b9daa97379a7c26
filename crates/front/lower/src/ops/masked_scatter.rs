//! `masked_scatter`: the masked elements of `self`, in row-major order, take the leading
//! elements of `source` in turn. The `k`-th masked element reads `source.flatten()[k]`, `k`
//! being the running count of the mask; one gather.

use tpuc_ir::BinaryOp;
use tpuc_pt2::DType;

use super::indexing::gather_along;
use super::one;
use super::reduction::running;
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support;

pub(super) const OPS: &[OpDef] = &[aten(
    "masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor",
    masked_scatter,
)];

fn masked_scatter(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let mask = args.tensor("mask")?;
    let source = args.tensor("source")?;
    let b = &mut *cx.b;
    let shape = support::broadcast_shapes(&support::shape(b, x)?, &support::shape(b, mask)?)?;
    let x = support::broadcast_to(b, x, &shape)?;
    let mask = support::broadcast_to(b, mask, &shape)?;
    let available = support::numel(&support::shape(b, source)?);
    let count = support::numel(&shape);
    if available == 0 {
        if count == 0 {
            return one(x);
        }
        bail!("masked_scatter: `source` is empty; a mask that selects nothing needs none");
    }
    let flat_mask = support::reshape(b, mask, &[count])?;
    let ones = support::convert(b, flat_mask, DType::I64)?;
    // The position in `source` of each masked element: how many masked elements precede it.
    let taken = running(b, ones, 0, BinaryOp::Add)?;
    let one_ = support::like(b, taken, Scalar::Int(1))?;
    let position = b.subtract(taken, one_)?;
    let first = support::like(b, position, Scalar::Int(0))?;
    let last = support::like(b, position, Scalar::Int(available - 1))?;
    let position = b.clamp(first, position, last)?;
    let dtype = support::dtype(b, x)?;
    let source = support::convert(b, source, dtype)?;
    let source = support::reshape(b, source, &[available])?;
    let values = gather_along(b, source, 0, position)?;
    let values = support::reshape(b, values, &shape)?;
    one(b.select(mask, values, x)?)
}
