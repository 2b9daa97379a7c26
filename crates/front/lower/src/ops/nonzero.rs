//! `nonzero_static`: the multi-indices of the first `size` nonzero elements in row-major order,
//! the rows past the last one filled with `fill_value` — `nonzero` with a static result shape.
//! Each nonzero element's flat position is scattered to its rank among the nonzero elements
//! (its running count); the flat positions are then unravelled dimension by dimension.

use tpuc_ir::{BinaryOp, ComparisonDirection, ScatterDims};
use tpuc_pt2::DType;

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
    "nonzero_static(Tensor self, *, SymInt size, int fill_value=-1) -> Tensor",
    nonzero_static,
)];

fn nonzero_static(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let size = args.int("size")?;
    let fill = args.int("fill_value")?;
    if size < 0 {
        bail!("nonzero_static takes a non-negative size, got {size}");
    }
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    let count = support::numel(&shape);
    let rank = shape.len() as i64;
    let flat = support::reshape(b, x, &[count])?;
    let zero = support::like(b, flat, Scalar::Int(0))?;
    let nonzero = b.compare(ComparisonDirection::Ne, flat, zero)?;
    let ones = support::convert(b, nonzero, DType::I64)?;
    let rank_of = running(b, ones, 0, BinaryOp::Add)?;
    // Slot `rank - 1` for a nonzero element among the first `size`; slot `size` (dropped)
    // for the others.
    let one_ = support::like(b, rank_of, Scalar::Int(1))?;
    let slot = b.subtract(rank_of, one_)?;
    let limit = support::like(b, slot, Scalar::Int(size))?;
    let within = b.compare(ComparisonDirection::Lt, slot, limit)?;
    let kept = b.and(nonzero, within)?;
    let slot = b.select(kept, slot, limit)?;
    let positions = b.iota(support::tensor_type(tpuc_ir::ElementType::I64, &[count]), 0)?;
    let unfilled = support::splat(b, DType::I64, &[size + 1], Scalar::Int(-1))?;
    let slots = support::reshape(b, slot, &[count, 1])?;
    let dims = ScatterDims {
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..ScatterDims::default()
    };
    let placed = b.scatter(
        &[unfilled],
        slots,
        &[positions],
        dims,
        false,
        false,
        |_, a| Ok(vec![a[1]]),
    )?;
    let placed = b.slice(placed[0], &[0], &[size], &[1])?;
    // Unravel: dimension d's index is (position / stride_d) % shape_d; empty rows keep `fill`.
    let empty = support::like(b, placed, Scalar::Int(-1))?;
    let missing = b.compare(ComparisonDirection::Eq, placed, empty)?;
    let mut columns = Vec::new();
    let mut stride = count.max(1);
    for &extent in &shape {
        stride /= extent.max(1);
        let s = support::like(b, placed, Scalar::Int(stride))?;
        let e = support::like(b, placed, Scalar::Int(extent.max(1)))?;
        let index = b.divide(placed, s)?;
        let index = b.remainder(index, e)?;
        let filler = support::like(b, index, Scalar::Int(fill))?;
        let index = b.select(missing, filler, index)?;
        columns.push(support::reshape(b, index, &[size, 1])?);
    }
    if columns.is_empty() {
        return one(support::splat(b, DType::I64, &[size, 0], Scalar::Int(0))?);
    }
    let out = if rank == 1 {
        columns[0]
    } else {
        b.concatenate(&columns, 1)?
    };
    one(out)
}
