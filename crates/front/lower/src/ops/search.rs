//! Binning. `bucketize` and `searchsorted`: where values would be inserted into a sorted
//! sequence. Every value is compared with every element of its sequence and the elements before
//! the insertion point are counted (XLA has no binary search; on a sorted sequence the count is
//! the point). The predicates are torch's own, so a NaN value goes after every element.
//! `histc`: counts of values in equal bins, each value's bin compared with every bin.

use tpuc_ir::{BinaryOp, ComparisonDirection, FunctionBuilder, Value};
use tpuc_pt2::DType;

use super::indexing::gather_along;
use super::one;
use crate::args::{Args, Operand};
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
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
    aten(
        "histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor",
        histc,
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

/// How many elements fall in each of `bins` equal bins over `[min, max]` (over the elements'
/// own range when `min == max`, widened by 1 each way if that is one value), as torch's CPU
/// kernel bins them: `trunc((x - min) · bins / (max - min))` in the input's type, `max` itself
/// in the last bin, elements outside the range (and NaN) left out.
fn histc(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let bins = args.int("bins")?;
    let (min, max) = (args.scalar("min")?.as_f64(), args.scalar("max")?.as_f64());
    let b = &mut *cx.b;
    let dtype = support::dtype(b, x)?;
    if !dtype.is_float() {
        bail!("histc counts floating-point tensors (torch's CPU kernel), not {dtype}");
    }
    if bins <= 0 || min > max {
        bail!("histc needs bins > 0 and min <= max, got {bins} bins over [{min}, {max}]");
    }
    let n = support::numel(&support::shape(b, x)?);
    let x = support::reshape(b, x, &[n])?;
    let (low, high) = if min == max {
        let low = support::reduce_extremum(b, false, x, &[0], false)?;
        let high = support::reduce_extremum(b, true, x, &[0], false)?;
        let same = b.compare(ComparisonDirection::Eq, low, high)?;
        let one_ = support::like(b, low, Scalar::Float(1.0))?;
        let below = b.subtract(low, one_)?;
        let above = b.add(high, one_)?;
        (b.select(same, below, low)?, b.select(same, above, high)?)
    } else {
        let splat = |b: &mut FunctionBuilder, v| support::splat(b, dtype, &[], Scalar::Float(v));
        (splat(b, min)?, splat(b, max)?)
    };
    let lows = support::broadcast_to(b, low, &[n])?;
    let highs = support::broadcast_to(b, high, &[n])?;
    let offset = b.subtract(x, lows)?;
    let count = support::like(b, offset, Scalar::Float(bins as f64))?;
    let scaled = b.multiply(offset, count)?;
    let width = b.subtract(highs, lows)?;
    let position = b.divide(scaled, width)?;
    let position = support::convert(b, position, DType::I64)?;
    let last = support::like(b, position, Scalar::Int(bins - 1))?;
    let position = b.minimum(position, last)?;
    let above_low = b.compare(ComparisonDirection::Ge, x, lows)?;
    let below_high = b.compare(ComparisonDirection::Le, x, highs)?;
    let inside = b.and(above_low, below_high)?;
    let pairs = [n, bins];
    let position = support::broadcast_in_dim(b, position, &[0], &pairs)?;
    let inside = support::broadcast_in_dim(b, inside, &[0], &pairs)?;
    let i64 = crate::dtype::element_type(DType::I64)?;
    let bin = b.iota(support::tensor_type(i64, &pairs), 1)?;
    let hit = b.compare(ComparisonDirection::Eq, position, bin)?;
    let hit = b.and(hit, inside)?;
    let hit = support::convert(b, hit, dtype)?;
    one(reduce(b, BinaryOp::Add, hit, &[0], false)?)
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
