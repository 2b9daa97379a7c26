//! Upsampling (`F.interpolate`): nearest, (bi/tri)linear and bicubic over the trailing 1-3
//! dimensions.
//! Shapes are static, so the source positions and weights of every output position are worked
//! out here, in float32 as torch's CPU kernels do, and the resize becomes gathers (or a
//! broadcast for an integer nearest upscale) and weighted sums, one spatial dimension at a time.

use tpuc_ir::{DenseElements, FunctionBuilder, GatherDims, Value};
use tpuc_pt2::DType;
use tpuc_pt2::schema::Argument;

use super::norm::compute_dtype;
use crate::args::Args;
use crate::cx::Cx;
use crate::dtype::element_type;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::support;

pub(super) const OPS: &[OpDef] = &[
    aten(
        "upsample_nearest1d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor",
        nearest,
    ),
    aten(
        "upsample_nearest2d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor",
        nearest,
    ),
    aten(
        "upsample_nearest3d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor",
        nearest,
    ),
    aten(
        "upsample_nearest1d(Tensor self, SymInt[1] output_size, float? scales=None) -> Tensor",
        nearest,
    ),
    aten(
        "upsample_nearest2d(Tensor self, SymInt[2] output_size, float? scales_h=None, float? scales_w=None) -> Tensor",
        nearest,
    ),
    aten(
        "upsample_nearest3d(Tensor self, SymInt[3] output_size, float? scales_d=None, float? scales_h=None, float? scales_w=None) -> Tensor",
        nearest,
    ),
    aten(
        "upsample_linear1d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor",
        linear,
    ),
    aten(
        "upsample_bilinear2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor",
        linear,
    ),
    aten(
        "upsample_trilinear3d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor",
        linear,
    ),
    aten(
        "upsample_linear1d(Tensor self, SymInt[1] output_size, bool align_corners, float? scales=None) -> Tensor",
        linear,
    ),
    aten(
        "upsample_bilinear2d(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor",
        linear,
    ),
    aten(
        "upsample_trilinear3d(Tensor self, SymInt[3] output_size, bool align_corners, float? scales_d=None, float? scales_h=None, float? scales_w=None) -> Tensor",
        linear,
    ),
    aten(
        "upsample_bicubic2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor",
        bicubic,
    ),
    aten(
        "upsample_bicubic2d(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor",
        bicubic,
    ),
];

/// The per-scale argument names of the `.default` overloads, by spatial rank.
const SCALE_ARGS: [&[&str]; 3] = [
    &["scales"],
    &["scales_h", "scales_w"],
    &["scales_d", "scales_h", "scales_w"],
];

/// One resized dimension: its position, input and output sizes, and the scale factor torch
/// passes to its kernel, if any.
struct Axis {
    dim: usize,
    input: i64,
    output: i64,
    scale: Option<f64>,
}

/// The input and its resized (trailing) axes, from either overload's arguments.
fn axes(cx: &Cx<'_>, args: &Args<'_>) -> OpResult<(Value, Vec<Axis>)> {
    let vec = args.raw("input").is_ok();
    let x = args.tensor(if vec { "input" } else { "self" })?;
    let shape = support::shape(cx.b, x)?;
    let sizes = args.opt_ints("output_size")?;
    let (spatial, scales) = if vec {
        let factors = match args.raw("scale_factors")? {
            Argument::AsFloats(f) => Some(f.iter().map(|f| f.0).collect::<Vec<_>>()),
            Argument::AsNone(_) => None,
            other => bail!("argument `scale_factors` must be a list of floats, got {other:?}"),
        };
        let spatial = match (&sizes, &factors) {
            (Some(s), _) => s.len(),
            (None, Some(f)) => f.len(),
            (None, None) => bail!("give either `output_size` or `scale_factors`"),
        };
        let scales = match (&sizes, factors) {
            (Some(_), Some(_)) => bail!("give only one of `output_size` and `scale_factors`"),
            (_, Some(f)) => f.into_iter().map(Some).collect(),
            (_, None) => vec![None; spatial],
        };
        (spatial, scales)
    } else {
        let spatial = sizes.as_ref().map_or(0, Vec::len);
        let names = SCALE_ARGS
            .get(spatial.wrapping_sub(1))
            .copied()
            .unwrap_or(&[]);
        let scales = names
            .iter()
            .map(|n| args.opt_float(n))
            .collect::<OpResult<Vec<_>>>()?;
        (spatial, scales)
    };
    if spatial == 0 || spatial > 3 || spatial + 2 != shape.len() || scales.len() != spatial {
        bail!(
            "cannot resize a tensor of shape {shape:?} over {spatial} dimensions: the input must \
             be [N, C, ...] with one size or scale per spatial dimension"
        );
    }
    let axes = (0..spatial)
        .map(|i| {
            let dim = 2 + i;
            let input = shape[dim];
            let output = match &sizes {
                Some(s) => s[i],
                None => (input as f64 * scales[i].unwrap_or(1.0)).floor() as i64,
            };
            Axis {
                dim,
                input,
                output,
                scale: scales[i],
            }
        })
        .collect::<Vec<_>>();
    if let Some(a) = axes.iter().find(|a| a.output <= 0 || a.input <= 0) {
        bail!(
            "cannot resize dimension {} from {} to {} elements",
            a.dim,
            a.input,
            a.output
        );
    }
    Ok((x, axes))
}

impl Axis {
    /// Output position to input position: `1 / scale` when torch was given the scale, else
    /// `input / output`.
    fn step(&self) -> f32 {
        match self.scale {
            Some(s) if s > 0.0 => (1.0 / s) as f32,
            _ => self.input as f32 / self.output as f32,
        }
    }

    /// The nearest input position of each output position (torch's `nearest_idx`).
    fn nearest(&self) -> Vec<i64> {
        let step = self.step();
        (0..self.output)
            .map(|o| {
                if self.output == self.input {
                    o
                } else if self.output == 2 * self.input {
                    o / 2
                } else {
                    ((o as f32 * step).floor() as i64).min(self.input - 1)
                }
            })
            .collect()
    }

    /// The two input positions of each output position and the weight of the second (torch's
    /// `area_pixel_compute_source_index` and `guard_index_and_lambda`).
    fn linear(&self, align_corners: bool) -> (Vec<i64>, Vec<i64>, Vec<f32>) {
        let step = match (align_corners, self.output > 1) {
            (true, true) => (self.input - 1) as f32 / (self.output - 1) as f32,
            (true, false) => 0.0,
            (false, _) => self.step(),
        };
        let mut low = Vec::new();
        let mut high = Vec::new();
        let mut weight = Vec::new();
        for o in 0..self.output {
            let source = if align_corners {
                step * o as f32
            } else {
                (step * (o as f32 + 0.5) - 0.5).max(0.0)
            };
            let i0 = (source as i64).min(self.input - 1);
            low.push(i0);
            high.push((i0 + 1).min(self.input - 1));
            weight.push((source - i0 as f32).clamp(0.0, 1.0));
        }
        (low, high, weight)
    }
}

impl Axis {
    /// The four input positions (clamped into the input) and weights of each output position
    /// (torch's bicubic kernel: Keys' cubic convolution with `A = -0.75`).
    fn cubic(&self, align_corners: bool) -> ([Vec<i64>; 4], [Vec<f32>; 4]) {
        const A: f32 = -0.75;
        let near = |x: f32| ((A + 2.0) * x - (A + 3.0)) * x * x + 1.0;
        let far = |x: f32| ((A * x - 5.0 * A) * x + 8.0 * A) * x - 4.0 * A;
        let step = match (align_corners, self.output > 1) {
            (true, true) => (self.input - 1) as f32 / (self.output - 1) as f32,
            (true, false) => 0.0,
            (false, _) => self.step(),
        };
        let mut index: [Vec<i64>; 4] = Default::default();
        let mut weight: [Vec<f32>; 4] = Default::default();
        for o in 0..self.output {
            let source = if align_corners {
                step * o as f32
            } else {
                step * (o as f32 + 0.5) - 0.5
            };
            let base = source.floor();
            let t = source - base;
            let w = [far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)];
            for k in 0..4 {
                index[k].push((base as i64 - 1 + k as i64).clamp(0, self.input - 1));
                weight[k].push(w[k]);
            }
        }
        (index, weight)
    }
}

/// `x` gathered along `dim` at the constant positions `index`.
fn take(b: &mut FunctionBuilder, x: Value, dim: usize, index: &[i64]) -> OpResult<Value> {
    let shape = support::shape(b, x)?;
    if index.len() as i64 == shape[dim] && index.iter().enumerate().all(|(i, &p)| p == i as i64) {
        return Ok(x);
    }
    // Each input repeated `k` times in order: a broadcast on a new dimension and a reshape.
    let k = index.len() as i64 / shape[dim];
    let repeats = k > 1
        && index.len() as i64 == k * shape[dim]
        && index.iter().enumerate().all(|(i, &p)| p == i as i64 / k);
    let mut to = shape.clone();
    to[dim] = index.len() as i64;
    if repeats {
        let mut spread = shape.clone();
        spread.insert(dim + 1, k);
        let dims: Vec<i64> = (0..shape.len() as i64)
            .map(|d| if d > dim as i64 { d + 1 } else { d })
            .collect();
        let v = support::broadcast_in_dim(b, x, &dims, &spread)?;
        return support::reshape(b, v, &to);
    }
    let ty = support::tensor_type(element_type(DType::I64)?, &[index.len() as i64, 1]);
    let positions = b.constant(ty.clone(), DenseElements::from_i64s(&ty, index)?)?;
    let rank = shape.len() as i64;
    let mut slice = shape;
    slice[dim] = 1;
    let dims = GatherDims {
        offset_dims: (0..rank).filter(|&d| d != dim as i64).collect(),
        collapsed_slice_dims: vec![dim as i64],
        start_index_map: vec![dim as i64],
        index_vector_dim: 1,
        ..GatherDims::default()
    };
    Ok(b.gather(x, positions, dims, &slice, true)?)
}

fn nearest(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let (x, axes) = axes(cx, args)?;
    let mut y = x;
    for axis in axes.iter().rev() {
        y = take(cx.b, y, axis.dim, &axis.nearest())?;
    }
    super::one(y)
}

/// The input's dtype and the input in the dtype interpolation computes in (float32 for half
/// types).
fn float_input(b: &mut FunctionBuilder, x: Value, what: &str) -> OpResult<(DType, Value)> {
    let dtype = support::dtype(b, x)?;
    if !support::element(b, x)?.is_float() {
        bail!("{what} interpolation needs a floating tensor, got {dtype}");
    }
    Ok((dtype, support::convert(b, x, compute_dtype(dtype))?))
}

/// Linear interpolation along each axis, innermost first, in float32 for half types:
/// `x[i0] * (1 - w) + x[i1] * w`.
fn linear(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let (x, axes) = axes(cx, args)?;
    let align_corners = args.bool("align_corners")?;
    let b = &mut *cx.b;
    let (dtype, mut y) = float_input(b, x, "linear")?;
    let compute = compute_dtype(dtype);
    for axis in axes.iter().rev() {
        let (low, high, weight) = axis.linear(align_corners);
        let near = take(b, y, axis.dim, &low)?;
        if weight.iter().all(|&w| w == 0.0) {
            y = near;
            continue;
        }
        let far = take(b, y, axis.dim, &high)?;
        let shape = support::shape(b, near)?;
        let element = element_type(compute)?;
        let ty = support::tensor_type(element, &[axis.output]);
        let w1: Vec<f64> = weight.iter().map(|&w| w as f64).collect();
        let w0: Vec<f64> = weight.iter().map(|&w| (1.0 - w) as f64).collect();
        let mut weighted = |v: Value, w: &[f64]| -> OpResult<Value> {
            let w = b.constant(ty.clone(), DenseElements::from_f64s(&ty, w)?)?;
            let w = support::broadcast_in_dim(b, w, &[axis.dim as i64], &shape)?;
            Ok(b.multiply(v, w)?)
        };
        let near = weighted(near, &w0)?;
        let far = weighted(far, &w1)?;
        y = b.add(near, far)?;
    }
    super::one(support::convert(b, y, dtype)?)
}

/// Bicubic interpolation along each axis, innermost first: four taps per output position.
fn bicubic(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let (x, axes) = axes(cx, args)?;
    let align_corners = args.bool("align_corners")?;
    let b = &mut *cx.b;
    let (dtype, mut y) = float_input(b, x, "bicubic")?;
    let compute = compute_dtype(dtype);
    for axis in axes.iter().rev() {
        let (index, weight) = axis.cubic(align_corners);
        let element = element_type(compute)?;
        let ty = support::tensor_type(element, &[axis.output]);
        let mut sum = None;
        for k in 0..4 {
            let tap = take(b, y, axis.dim, &index[k])?;
            let shape = support::shape(b, tap)?;
            let w: Vec<f64> = weight[k].iter().map(|&w| w as f64).collect();
            let w = b.constant(ty.clone(), DenseElements::from_f64s(&ty, &w)?)?;
            let w = support::broadcast_in_dim(b, w, &[axis.dim as i64], &shape)?;
            let term = b.multiply(tap, w)?;
            sum = Some(match sum {
                Some(acc) => b.add(acc, term)?,
                None => term,
            });
        }
        y = sum.unwrap_or(y);
    }
    super::one(support::convert(b, y, dtype)?)
}
