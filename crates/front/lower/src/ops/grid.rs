//! Spatial transformer ops: `affine_grid_generator` (the sampling grid of a batch of 2-d affine
//! maps) and `grid_sampler` (sampling an image at grid positions, bilinear or nearest, with
//! zeros, border or reflection padding), as torch's CPU kernels compute them.

use tpuc_ir::{ComparisonDirection, DenseElements, DotDims, FunctionBuilder, Value};
use tpuc_pt2::DType;

use super::indexing::index_values;
use super::one;
use super::shape::slice_dim;
use crate::args::Args;
use crate::cx::Cx;
use crate::dtype::element_type;
use crate::env::Val;
use crate::error::{OpError, OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support;

pub(super) const OPS: &[OpDef] = &[
    aten(
        "affine_grid_generator(Tensor theta, SymInt[] size, bool align_corners) -> Tensor",
        affine_grid,
    ),
    aten(
        "grid_sampler(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners) -> Tensor",
        grid_sampler,
    ),
    aten(
        "grid_sampler_2d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners) -> Tensor",
        grid_sampler,
    ),
];

/// The normalised coordinates of `n` pixels (torch's `linspace_from_neg_one`).
fn unit_positions(n: i64, align_corners: bool) -> Vec<f64> {
    if n <= 1 {
        return vec![0.0; n.max(0) as usize];
    }
    (0..n)
        .map(|i| {
            let x = -1.0 + 2.0 * i as f64 / (n - 1) as f64;
            if align_corners {
                x
            } else {
                x * (n - 1) as f64 / n as f64
            }
        })
        .collect()
}

/// `[N, H, W, 2]`: each pixel's `(x, y, 1)` mapped by `theta` (`[N, 2, 3]`).
fn affine_grid(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let theta = args.tensor("theta")?;
    let size = args.ints("size")?;
    let align_corners = args.bool("align_corners")?;
    let [n, _, h, w] = size[..] else {
        return Err(OpError::unsupported(
            "affine grids other than 2-d (`size` of 4)",
        ));
    };
    let b = &mut *cx.b;
    let dtype = support::dtype(b, theta)?;
    let (xs, ys) = (
        unit_positions(w, align_corners),
        unit_positions(h, align_corners),
    );
    let mut base = Vec::with_capacity((h * w * 3) as usize);
    for y in &ys {
        for x in &xs {
            base.extend([*x, *y, 1.0]);
        }
    }
    let ty = support::tensor_type(element_type(dtype)?, &[h * w, 3]);
    let base = b.constant(ty.clone(), DenseElements::from_f64s(&ty, &base)?)?;
    let dims = DotDims {
        lhs_batching: Vec::new(),
        rhs_batching: Vec::new(),
        lhs_contracting: vec![2],
        rhs_contracting: vec![1],
    };
    let grid = support::dot(b, theta, base, dims)?; // [N, 2, H*W]
    let grid = support::transpose(b, grid, &[0, 2, 1])?;
    one(support::reshape(b, grid, &[n, h, w, 2])?)
}

fn k(b: &mut FunctionBuilder, like: Value, value: f64) -> OpResult<Value> {
    support::like(b, like, Scalar::Float(value))
}

/// torch's `reflect_coordinates`: `x` folded into `[low, high]` (given doubled).
fn reflect(b: &mut FunctionBuilder, x: Value, twice_low: i64, twice_high: i64) -> OpResult<Value> {
    if twice_low == twice_high {
        return k(b, x, 0.0);
    }
    let min = k(b, x, twice_low as f64 / 2.0)?;
    let span_value = (twice_high - twice_low) as f64 / 2.0;
    let span = k(b, x, span_value)?;
    let shifted = b.subtract(x, min)?;
    let x = b.abs(shifted)?;
    let flips = b.divide(x, span)?;
    let flips = b.floor(flips)?;
    let whole = b.multiply(flips, span)?;
    let extra = b.subtract(x, whole)?;
    let two = k(b, x, 2.0)?;
    let half = b.divide(flips, two)?;
    let half = b.floor(half)?;
    let even = b.multiply(half, two)?;
    let is_even = b.compare(ComparisonDirection::Eq, even, flips)?;
    let up = b.add(extra, min)?;
    let down = b.subtract(span, extra)?;
    let down = b.add(down, min)?;
    Ok(b.select(is_even, up, down)?)
}

/// Normalised grid coordinates to input pixel positions along a dimension of `size`, padded as
/// `padding` says (0 zeros, 1 border, 2 reflection).
fn source_positions(
    b: &mut FunctionBuilder,
    coord: Value,
    size: i64,
    padding: i64,
    align_corners: bool,
) -> OpResult<Value> {
    let one_k = k(b, coord, 1.0)?;
    let shifted = b.add(coord, one_k)?;
    let x = if align_corners {
        let scale = k(b, coord, (size - 1) as f64 / 2.0)?;
        b.multiply(shifted, scale)?
    } else {
        let scale = k(b, coord, size as f64)?;
        let scaled = b.multiply(shifted, scale)?;
        let scaled = b.subtract(scaled, one_k)?;
        let two = k(b, coord, 2.0)?;
        b.divide(scaled, two)?
    };
    let clip = |b: &mut FunctionBuilder, x: Value| -> OpResult<Value> {
        let low = k(b, x, 0.0)?;
        let high = k(b, x, (size - 1) as f64)?;
        Ok(b.clamp(low, x, high)?)
    };
    match padding {
        0 => Ok(x),
        1 => clip(b, x),
        2 => {
            let folded = if align_corners {
                reflect(b, x, 0, 2 * (size - 1))?
            } else {
                reflect(b, x, -1, 2 * size - 1)?
            };
            clip(b, folded)
        }
        other => bail!("grid_sampler padding mode {other} is not 0, 1 or 2"),
    }
}

/// The input (`[N, H, W, C]`) at integer positions `(y, x)` (`[N, Ho, Wo]`, float), zero where
/// a position lies outside the input: `[N, Ho, Wo, C]`.
fn sample(
    b: &mut FunctionBuilder,
    image: Value,
    batch: Value,
    y: Value,
    x: Value,
    (h, w): (i64, i64),
) -> OpResult<Value> {
    let clamp_index = |b: &mut FunctionBuilder, v: Value, size: i64| -> OpResult<(Value, Value)> {
        let low = k(b, v, 0.0)?;
        let high = k(b, v, (size - 1) as f64)?;
        let ge = b.compare(ComparisonDirection::Ge, v, low)?;
        let le = b.compare(ComparisonDirection::Le, v, high)?;
        let ok = b.and(ge, le)?;
        let clamped = b.clamp(low, v, high)?;
        Ok((ok, support::convert(b, clamped, DType::I64)?))
    };
    let (y_ok, yi) = clamp_index(b, y, h)?;
    let (x_ok, xi) = clamp_index(b, x, w)?;
    let ok = b.and(y_ok, x_ok)?;
    let values = index_values(b, image, &[Some(batch), Some(yi), Some(xi)])?;
    let shape = support::shape(b, values)?;
    let dtype = support::dtype(b, values)?;
    let ok = support::convert(b, ok, dtype)?;
    let ok = support::broadcast_in_dim(b, ok, &[0, 1, 2], &shape)?;
    Ok(b.multiply(values, ok)?)
}

fn grid_sampler(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("input")?;
    let grid = args.tensor("grid")?;
    let mode = args.int("interpolation_mode")?;
    let padding = args.int("padding_mode")?;
    let align_corners = args.bool("align_corners")?;
    if mode == 2 {
        return Err(OpError::unsupported("bicubic grid sampling"));
    }
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    let gshape = support::shape(b, grid)?;
    let (&[n, _, h, w], &[_, ho, wo, 2]) = (&shape[..], &gshape[..]) else {
        bail!("grid_sampler takes a [N, C, H, W] input and a [N, Ho, Wo, 2] grid");
    };
    let dtype = support::dtype(b, x)?;
    let grid = support::convert(b, grid, dtype)?;
    let coordinate = |b: &mut FunctionBuilder, i: i64| -> OpResult<Value> {
        let c = slice_dim(b, grid, 3, i, i + 1, 1)?;
        support::reshape(b, c, &[n, ho, wo])
    };
    let gx = coordinate(b, 0)?;
    let gy = coordinate(b, 1)?;
    let ix = source_positions(b, gx, w, padding, align_corners)?;
    let iy = source_positions(b, gy, h, padding, align_corners)?;
    let image = support::transpose(b, x, &[0, 2, 3, 1])?;
    let batch_ty = support::tensor_type(element_type(DType::I64)?, &[n, ho, wo]);
    let batch = b.iota(batch_ty, 0)?;
    let out = if mode == 1 {
        let ix = b.round_nearest_even(ix)?;
        let iy = b.round_nearest_even(iy)?;
        sample(b, image, batch, iy, ix, (h, w))?
    } else {
        let x0 = b.floor(ix)?;
        let y0 = b.floor(iy)?;
        let one_k = k(b, ix, 1.0)?;
        let x1 = b.add(x0, one_k)?;
        let y1 = b.add(y0, one_k)?;
        let east = b.subtract(ix, x0)?;
        let west = b.subtract(x1, ix)?;
        let south = b.subtract(iy, y0)?;
        let north = b.subtract(y1, iy)?;
        let mut acc: Option<Value> = None;
        for (yy, xx, wy, wx) in [
            (y0, x0, north, west),
            (y0, x1, north, east),
            (y1, x0, south, west),
            (y1, x1, south, east),
        ] {
            let v = sample(b, image, batch, yy, xx, (h, w))?;
            let weight = b.multiply(wy, wx)?;
            let vshape = support::shape(b, v)?;
            let weight = support::broadcast_in_dim(b, weight, &[0, 1, 2], &vshape)?;
            let term = b.multiply(v, weight)?;
            acc = Some(match acc {
                Some(a) => b.add(a, term)?,
                None => term,
            });
        }
        acc.unwrap_or(image)
    };
    one(support::transpose(b, out, &[0, 3, 1, 2])?)
}
