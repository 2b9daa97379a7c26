//! `bucketize` and `searchsorted`: where values would be inserted into a sorted sequence. Every
//! value is compared with every element of its sequence and the elements before the insertion
//! point are counted (XLA has no binary search; on a sorted sequence the count is the point).
//! The predicates are torch's own, so a NaN value goes after every element.

use tpuc_ir::{BinaryOp, ComparisonDirection, FunctionBuilder, Value};
use tpuc_pt2::DType;

use super::indexing::gather_along;
use super::one;
use crate::args::{Args, Operand};
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::support::{self, reduce};

pub(super) const OPS: &[OpDef] = &[
    aten(
        "bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor",
        bucketize,
    ),
    aten(
        "bucketize.Scalar(Scalar self, Tensor boundaries, *, bool out_int32=False, bool right=False) -> Tensor",
        bucketize,
    ),
    aten(
        "searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, bool right=False, str? side=None, Tensor? sorter=None) -> Tensor",
        searchsorted,
    ),
    aten(
        "searchsorted.Scalar(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, bool right=False, str? side=None, Tensor? sorter=None) -> Tensor",
        searchsorted,
    ),
];

/// The search: `right` finds the first element greater than the value, otherwise the first
/// element not less than it.
struct Search {
    right: bool,
    out_int32: bool,
}

fn bucketize(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let boundaries = args.tensor("boundaries")?;
    let rank = support::shape(cx.b, boundaries)?.len();
    if rank != 1 {
        bail!("bucketize takes 1-D boundaries, got {rank} dimensions");
    }
    let search = Search {
        right: args.bool("right")?,
        out_int32: args.bool("out_int32")?,
    };
    one(insertion_points(
        cx.b,
        boundaries,
        args.operand("self")?,
        &search,
    )?)
}

fn searchsorted(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let mut sorted = args.tensor("sorted_sequence")?;
    let right = match args.opt_str("side")? {
        None => args.bool("right")?,
        Some("right") => true,
        Some("left") if !args.bool("right")? => false,
        Some("left") => bail!("searchsorted: side='left' contradicts right=True"),
        Some(other) => bail!("searchsorted: side must be 'left' or 'right', got {other:?}"),
    };
    if let Some(sorter) = args.opt_tensor("sorter")? {
        let shape = support::shape(cx.b, sorted)?;
        let Some(last) = shape.len().checked_sub(1) else {
            bail!("searchsorted takes a sequence of at least 1 dimension");
        };
        cx.check_index(sorter, 0, shape[last])?;
        sorted = gather_along(cx.b, sorted, last, sorter)?;
    }
    let search = Search {
        right,
        out_int32: args.bool("out_int32")?,
    };
    one(insertion_points(
        cx.b,
        sorted,
        args.operand("self")?,
        &search,
    )?)
}

/// For each value, how many elements of its sequence go before it: a 1-D `sorted` serves
/// every value; otherwise `sorted[..., N]` and `values[..., M]` agree on their leading
/// dimensions, one sequence per row.
fn insertion_points(
    b: &mut FunctionBuilder,
    sorted: Value,
    values: Operand,
    search: &Search,
) -> OpResult<Value> {
    let dtype = support::result_type(b, &[Operand::Tensor(sorted), values])?;
    let sorted = support::convert(b, sorted, dtype)?;
    let values = match values {
        Operand::Tensor(v) => support::convert(b, v, dtype)?,
        Operand::Scalar(s) => support::splat(b, dtype, &[], s)?,
    };
    let seq = support::shape(b, sorted)?;
    let vals = support::shape(b, values)?;
    let Some((&n, leading)) = seq.split_last() else {
        bail!("searchsorted takes a sequence of at least 1 dimension");
    };
    let rows = !leading.is_empty();
    if rows && (vals.len() != seq.len() || vals[..leading.len()] != *leading) {
        bail!(
            "the sorted sequence {seq:?} and the values {vals:?} must agree on every dimension \
             but the last"
        );
    }
    let r = vals.len() as i64;
    let mut pairs = vals.clone();
    pairs.push(n);
    let mut seq_dims: Vec<i64> = (0..leading.len() as i64).collect();
    seq_dims.push(r);
    let elements = support::broadcast_in_dim(b, sorted, &seq_dims, &pairs)?;
    let value_dims: Vec<i64> = (0..r).collect();
    let values = support::broadcast_in_dim(b, values, &value_dims, &pairs)?;
    // torch's binary search moves past an element while `!(element >= value)` (left) or
    // `!(element > value)` (right).
    let direction = if search.right {
        ComparisonDirection::Gt
    } else {
        ComparisonDirection::Ge
    };
    let stops = b.compare(direction, elements, values)?;
    let before = b.not(stops)?;
    let out = if search.out_int32 {
        DType::I32
    } else {
        DType::I64
    };
    let before = support::convert(b, before, out)?;
    reduce(b, BinaryOp::Add, before, &[r as usize], false)
}
