//! `torchvision::roi_align`: each region's `[PH, PW]` bins average a grid of bilinear samples
//! of its image's feature map, as torchvision's CPU kernel computes them. Bilinear sampling
//! and the bins' averages are separable, so each region becomes two products: its `[PH, H]`
//! row weights and `[PW, W]` column weights (sample positions, validity, bilinear weights and
//! the `1/count` of the bin folded in) against its image's `[C, H, W]` features.
//!
//! With `sampling_ratio <= 0` torchvision takes `ceil(roi_size / pooled_size)` samples per bin,
//! a number that depends on the boxes; tpuc gives each bin room for
//! `ceil((size + 1) / pooled_size)` samples, which is exact for every box within the feature
//! map (and takes that many for a larger one).

use tpuc_ir::{ComparisonDirection, DotDims, FunctionBuilder, GatherDims, Value};
use tpuc_pt2::DType;

use super::norm::compute_dtype;
use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support;

pub(super) const OPS: &[OpDef] = &[aten(
    "torchvision::roi_align(Tensor input, Tensor rois, float spatial_scale, SymInt pooled_height, SymInt pooled_width, int sampling_ratio, bool aligned) -> Tensor",
    roi_align,
)];

/// The settings shared by both axes.
struct Sampling {
    scale: f64,
    ratio: i64,
    aligned: bool,
    regions: i64,
}

/// `rois[:, column]` as `[K]`.
fn column(b: &mut FunctionBuilder, rois: Value, column: i64, regions: i64) -> OpResult<Value> {
    let c = b.slice(rois, &[0, column], &[regions, column + 1], &[1, 1])?;
    support::reshape(b, c, &[regions])
}

/// One axis's `[K, P, size]` weights: for region `k` and bin `p`, how much each position along
/// the axis contributes to the bin's average, from the region's `start` and `end` (`[K]`,
/// in input coordinates).
fn axis_weights(
    b: &mut FunctionBuilder,
    sampling: &Sampling,
    (start, end): (Value, Value),
    pooled: i64,
    size: i64,
) -> OpResult<Value> {
    let k = sampling.regions;
    let dtype = support::dtype(b, start)?;
    let scalar = |b: &mut FunctionBuilder, shape: &[i64], v: f64| {
        support::splat(b, dtype, shape, Scalar::Float(v))
    };
    let scale = scalar(b, &[k], sampling.scale)?;
    let offset = scalar(b, &[k], if sampling.aligned { 0.5 } else { 0.0 })?;
    let start = b.multiply(start, scale)?;
    let start = b.subtract(start, offset)?;
    let end = b.multiply(end, scale)?;
    let end = b.subtract(end, offset)?;
    let mut extent = b.subtract(end, start)?;
    if !sampling.aligned {
        let one_ = scalar(b, &[k], 1.0)?;
        extent = b.maximum(extent, one_)?;
    }
    let bins = scalar(b, &[k], pooled as f64)?;
    let bin = b.divide(extent, bins)?;
    // Samples per bin: given, or ceil(bin) within room for `slots`.
    let (grid, slots) = if sampling.ratio > 0 {
        (scalar(b, &[k], sampling.ratio as f64)?, sampling.ratio)
    } else {
        ((b.ceil(bin))?, ((size + 1) + pooled - 1) / pooled)
    };
    let slots = slots.max(1);
    let room = scalar(b, &[k], slots as f64)?;
    let grid = b.minimum(grid, room)?;
    // y[k, p, i] = start + p·bin + (i + ½)·bin/grid
    let shape = [k, pooled, slots];
    let index_type = support::tensor_type(tpuc_ir::ElementType::I64, &shape);
    let p = b.iota(index_type.clone(), 1)?;
    let p = support::convert(b, p, dtype)?;
    let i = b.iota(index_type, 2)?;
    let i = support::convert(b, i, dtype)?;
    let along = |b: &mut FunctionBuilder, v: Value| support::broadcast_in_dim(b, v, &[0], &shape);
    let (start3, bin3, grid3) = (along(b, start)?, along(b, bin)?, along(b, grid)?);
    let half = scalar(b, &shape, 0.5)?;
    let i_half = b.add(i, half)?;
    let step = b.divide(bin3, grid3)?;
    let within = b.multiply(i_half, step)?;
    let base = b.multiply(p, bin3)?;
    let y = b.add(start3, base)?;
    let y = b.add(y, within)?;
    // Samples outside [-1, size] and slots past the grid count nothing.
    let minus_one = scalar(b, &shape, -1.0)?;
    let limit = scalar(b, &shape, size as f64)?;
    let below = b.compare(ComparisonDirection::Lt, y, minus_one)?;
    let above = b.compare(ComparisonDirection::Gt, y, limit)?;
    let outside = b.or(below, above)?;
    let used = b.compare(ComparisonDirection::Lt, i, grid3)?;
    let inside = b.not(outside)?;
    let counted = b.and(inside, used)?;
    // The bilinear neighbours, clamped as the kernel does.
    let zero = scalar(b, &shape, 0.0)?;
    let y = b.maximum(y, zero)?;
    let low = b.floor(y)?;
    let last = scalar(b, &shape, (size - 1) as f64)?;
    let at_edge = b.compare(ComparisonDirection::Ge, low, last)?;
    let low = b.select(at_edge, last, low)?;
    let y = b.select(at_edge, last, y)?;
    let one3 = scalar(b, &shape, 1.0)?;
    let next = b.add(low, one3)?;
    let high = b.select(at_edge, last, next)?;
    let frac = b.subtract(y, low)?;
    let rest = b.subtract(one3, frac)?;
    // Each sample's share of the bin's average.
    let ones = scalar(b, &[k], 1.0)?;
    let count = b.maximum(grid, ones)?;
    let share = b.divide(ones, count)?;
    let share = along(b, share)?;
    let share = b.select(counted, share, zero)?;
    let (low_w, high_w) = (b.multiply(rest, share)?, b.multiply(frac, share)?);
    // [K, P, slots, size]: the weight each sample puts on each position, summed over samples.
    let full = [k, pooled, slots, size];
    let positions = b.iota(support::tensor_type(tpuc_ir::ElementType::I64, &full), 3)?;
    let positions = support::convert(b, positions, dtype)?;
    let spread = |b: &mut FunctionBuilder, at: Value, weight: Value| -> OpResult<Value> {
        let at = support::broadcast_in_dim(b, at, &[0, 1, 2], &full)?;
        let weight = support::broadcast_in_dim(b, weight, &[0, 1, 2], &full)?;
        let hit = b.compare(ComparisonDirection::Eq, positions, at)?;
        let none = support::zeros(b, dtype, &full)?;
        Ok(b.select(hit, weight, none)?)
    };
    let low_part = spread(b, low, low_w)?;
    let high_part = spread(b, high, high_w)?;
    let weights = b.add(low_part, high_part)?;
    support::reduce(b, tpuc_ir::BinaryOp::Add, weights, &[2], false)
}

fn roi_align(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let input = args.tensor("input")?;
    let rois = args.tensor("rois")?;
    let (ph, pw) = (args.int("pooled_height")?, args.int("pooled_width")?);
    let b = &mut *cx.b;
    let shape = support::shape(b, input)?;
    let r_shape = support::shape(b, rois)?;
    let &[_, channels, height, width] = &shape[..] else {
        bail!("roi_align takes an [N, C, H, W] input, got {shape:?}");
    };
    let &[regions, 5] = &r_shape[..] else {
        bail!("roi_align takes [K, 5] regions (batch index, x1, y1, x2, y2), got {r_shape:?}");
    };
    if ph <= 0 || pw <= 0 {
        bail!("roi_align pools to a positive size, got {ph}x{pw}");
    }
    let sampling = Sampling {
        scale: args.float("spatial_scale")?,
        ratio: args.int("sampling_ratio")?,
        aligned: args.bool("aligned")?,
        regions,
    };
    let dtype = support::dtype(b, input)?;
    let compute = compute_dtype(dtype);
    let input = support::convert(b, input, compute)?;
    let rois = support::convert(b, rois, compute)?;
    let cols: Vec<Value> = (0..5)
        .map(|c| column(b, rois, c, regions))
        .collect::<OpResult<_>>()?;
    let rows = axis_weights(b, &sampling, (cols[2], cols[4]), ph, height)?;
    let columns = axis_weights(b, &sampling, (cols[1], cols[3]), pw, width)?;
    // Each region's image: [K, C, H, W].
    let image = support::convert(b, cols[0], DType::I64)?;
    let image = support::reshape(b, image, &[regions, 1])?;
    let dims = GatherDims {
        offset_dims: vec![1, 2, 3],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 1,
        ..GatherDims::default()
    };
    let features = b.gather(input, image, dims, &[1, channels, height, width], false)?;
    let by_rows = DotDims {
        lhs_batching: vec![0],
        rhs_batching: vec![0],
        lhs_contracting: vec![2],
        rhs_contracting: vec![2],
    };
    let t = support::dot(b, rows, features, by_rows)?; // [K, PH, C, W]
    let by_columns = DotDims {
        lhs_batching: vec![0],
        rhs_batching: vec![0],
        lhs_contracting: vec![3],
        rhs_contracting: vec![2],
    };
    let t = support::dot(b, t, columns, by_columns)?; // [K, PH, C, PW]
    let out = support::transpose(b, t, &[0, 2, 1, 3])?;
    one(support::convert(b, out, dtype)?)
}
