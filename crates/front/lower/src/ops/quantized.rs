//! Quantized programs. PT2E quantization's `quantized_decomposed` ops (torchao's
//! `convert_pt2e` leaves them around the float ops): affine quantize and dequantize, per tensor
//! (scale and zero point as numbers or as tensors) and per channel, as torch's reference
//! implementations compute them (`torch/ao/quantization/fx/_decomposed.py`):
//! `clamp(round(x · (1/scale)) + zero_point)` rounding half to even, and
//! `(q - zero_point) · scale`. And float8's scaled product `_scaled_mm`: the float8 operands
//! go into the `dot_general` as they are, accumulated in float32, then scaled. Quantized
//! tensors keep their narrow type, so XLA sees `i8`/`u8`/`f8` weights and the conversion next
//! to their use.

use tpuc_ir::{BinaryOp, FunctionBuilder, Value};
use tpuc_pt2::DType;

use super::elementwise::extremum;
use super::norm::compute_dtype;
use super::one;
use crate::args::{Args, Operand};
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::{Scalar, promote_types};
use crate::support;

pub(super) const OPS: &[OpDef] = &[
    aten(
        "quantized_decomposed::quantize_per_tensor(Tensor input, float scale, int zero_point, int quant_min, int quant_max, ScalarType dtype) -> Tensor",
        quantize,
    ),
    aten(
        "quantized_decomposed::quantize_per_tensor.tensor(Tensor input, Tensor scale, Tensor zero_point, int quant_min, int quant_max, ScalarType dtype) -> Tensor",
        quantize,
    ),
    aten(
        "quantized_decomposed::quantize_per_tensor.tensor2(Tensor input, Tensor scale, Tensor zero_point, Tensor quant_min, Tensor quant_max, ScalarType dtype) -> Tensor",
        quantize,
    ),
    aten(
        "quantized_decomposed::dequantize_per_tensor(Tensor input, float scale, int zero_point, int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None) -> Tensor",
        dequantize,
    ),
    aten(
        "quantized_decomposed::dequantize_per_tensor.tensor(Tensor input, Tensor scale, Tensor zero_point, int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None) -> Tensor",
        dequantize,
    ),
    aten(
        "quantized_decomposed::dequantize_per_tensor.tensor2(Tensor input, Tensor scale, Tensor zero_point, Tensor quant_min, Tensor quant_max, ScalarType dtype, *, ScalarType? out_dtype=None) -> Tensor",
        dequantize,
    ),
    aten(
        "quantized_decomposed::quantize_per_channel(Tensor input, Tensor scales, Tensor zero_points, int axis, int quant_min, int quant_max, ScalarType dtype) -> Tensor",
        quantize,
    ),
    aten(
        "quantized_decomposed::dequantize_per_channel(Tensor input, Tensor scales, Tensor? zero_points, int axis, int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None) -> Tensor",
        dequantize,
    ),
    aten(
        "quantized_decomposed::choose_qparams.tensor(Tensor input, int quant_min, int quant_max, float eps, ScalarType dtype) -> (Tensor, Tensor)",
        |cx, args| choose_qparams(cx, args, false),
    ),
    aten(
        "quantized_decomposed::choose_qparams_symmetric.tensor(Tensor input, int quant_min, int quant_max, float eps, ScalarType dtype) -> (Tensor, Tensor)",
        |cx, args| choose_qparams(cx, args, true),
    ),
    aten(
        "_scaled_mm(Tensor self, Tensor mat2, Tensor scale_a, Tensor scale_b, Tensor? bias=None, Tensor? scale_result=None, ScalarType? out_dtype=None, bool use_fast_accum=False) -> Tensor",
        scaled_mm,
    ),
];

/// `v / c` as torch divides a tensor by a Python number: the quotient rounded to float32 (half
/// types then rounded again). XLA multiplies by a constant divisor's reciprocal, whose float32
/// product can be an ulp off the quotient (and a quantized value then one off); in float64 it
/// rounds to the float32 quotient, these divisors (integer bounds and their differences) having
/// few significant bits.
pub(super) fn divide_by(b: &mut FunctionBuilder, v: Value, c: f64) -> OpResult<Value> {
    let dtype = support::dtype(b, v)?;
    let wide = support::convert(b, v, DType::F64)?;
    let c = support::like(b, wide, Scalar::Float(c))?;
    let q = b.divide(wide, c)?;
    let q = support::convert(b, q, compute_dtype(dtype))?;
    support::convert(b, q, dtype)
}

/// The range of `x` over `dims` widened to include 0, as quantization parameters are chosen
/// from it (NaN-propagating, as torch's `min` and `max`).
pub(super) struct RangeWithZero {
    below: Value,
    above: Value,
}

pub(super) fn range_with_zero(
    b: &mut FunctionBuilder,
    x: Value,
    dims: &[usize],
) -> OpResult<RangeWithZero> {
    let min = support::reduce_extremum(b, false, x, dims, false)?;
    let max = support::reduce_extremum(b, true, x, dims, false)?;
    let zero = support::like(b, min, Scalar::Int(0))?;
    Ok(RangeWithZero {
        below: extremum(b, BinaryOp::Minimum, min, zero)?,
        above: extremum(b, BinaryOp::Maximum, max, zero)?,
    })
}

impl RangeWithZero {
    /// `max(-below, above) / (steps / 2)`: the range mapped about the middle of `steps`.
    pub(super) fn symmetric_scale(&self, b: &mut FunctionBuilder, steps: f64) -> OpResult<Value> {
        let magnitude = b.negate(self.below)?;
        let magnitude = extremum(b, BinaryOp::Maximum, magnitude, self.above)?;
        divide_by(b, magnitude, steps / 2.0)
    }

    /// `(above - below) / steps`: the range mapped end to end.
    pub(super) fn asymmetric_scale(&self, b: &mut FunctionBuilder, steps: f64) -> OpResult<Value> {
        let range = b.subtract(self.above, self.below)?;
        divide_by(b, range, steps)
    }

    /// `round(below / scale)`, half to even: how far the range starts below 0, in steps.
    pub(super) fn offset(&self, b: &mut FunctionBuilder, scale: Value) -> OpResult<Value> {
        let offset = b.divide(self.below, scale)?;
        Ok(b.round_nearest_even(offset)?)
    }

    pub(super) fn below(&self) -> Value {
        self.below
    }

    pub(super) fn above(&self) -> Value {
        self.above
    }
}

/// `max(scale, eps)`.
pub(super) fn at_least(b: &mut FunctionBuilder, scale: Value, eps: f64) -> OpResult<Value> {
    let eps = support::like(b, scale, Scalar::Float(eps))?;
    extremum(b, BinaryOp::Maximum, scale, eps)
}

/// PT2E's dynamic quantization parameters of a whole tensor, as torch's `determine_qparams`
/// computes them: the range widened to include 0, mapped onto `[quant_min, quant_max]` end to
/// end (the zero point rounding half to even, clamped) or, `symmetric`, about the middle (zero
/// point 0, or 128 for uint8); the scale at least `eps`. In the input's type; returned as
/// one-element float64 and int64 tensors.
fn choose_qparams(cx: &mut Cx<'_>, args: &Args<'_>, symmetric: bool) -> OpResult<Vec<Val>> {
    let x = args.tensor("input")?;
    let (low, high) = (args.int("quant_min")?, args.int("quant_max")?);
    let eps = args.float("eps")?;
    let target = args
        .opt_dtype("dtype")?
        .ok_or_else(|| crate::error::OpError::new("choose_qparams needs a dtype"))?;
    let b = &mut *cx.b;
    let dtype = support::dtype(b, x)?;
    if !matches!(dtype, DType::F32 | DType::F16 | DType::BF16) {
        bail!("choose_qparams of a {dtype} tensor (torch takes float32, float16 or bfloat16)");
    }
    if low > high {
        bail!("choose_qparams: quant_min {low} is above quant_max {high}");
    }
    let dims: Vec<usize> = (0..support::rank(b, x)?).collect();
    let range = range_with_zero(b, x, &dims)?;
    let steps = (high - low) as f64;
    let (scale, zero_point) = if symmetric {
        let scale = range.symmetric_scale(b, steps)?;
        let scale = at_least(b, scale, eps)?;
        let middle = if matches!(target, DType::U8) { 128 } else { 0 };
        let zero_point = support::splat(b, DType::I64, &[], Scalar::Int(middle))?;
        (scale, zero_point)
    } else {
        let scale = range.asymmetric_scale(b, steps)?;
        let scale = at_least(b, scale, eps)?;
        let offset = range.offset(b, scale)?;
        let offset = support::convert(b, offset, DType::I32)?;
        let low_ = support::like(b, offset, Scalar::Int(low))?;
        let high_ = support::like(b, offset, Scalar::Int(high))?;
        let zero_point = b.subtract(low_, offset)?;
        let zero_point = b.clamp(low_, zero_point, high_)?;
        (scale, support::convert(b, zero_point, DType::I64)?)
    };
    let scale = support::convert(b, scale, DType::F64)?;
    let scale = support::reshape(b, scale, &[1])?;
    let zero_point = support::reshape(b, zero_point, &[1])?;
    Ok(vec![Val::Tensor(scale), Val::Tensor(zero_point)])
}

/// A quantization parameter (a number, a one-element tensor, or with `axis` one value per
/// channel along that dimension) as a tensor of `dtype` broadcast to `shape`.
fn parameter(
    b: &mut FunctionBuilder,
    value: Operand,
    dtype: DType,
    axis: Option<usize>,
    shape: &[i64],
) -> OpResult<Value> {
    let v = match value {
        Operand::Scalar(s) => return support::splat(b, dtype, shape, s),
        Operand::Tensor(v) => support::convert(b, v, dtype)?,
    };
    let count = support::numel(&support::shape(b, v)?);
    let mut block = shape.to_vec();
    match axis {
        Some(axis) if shape.get(axis) == Some(&count) => block[axis] = 1,
        Some(axis) => {
            bail!("{count} per-channel quantization parameters for dimension {axis} of {shape:?}")
        }
        None if count == 1 => {}
        None => bail!("a per-tensor quantization parameter has {count} elements, not 1"),
    }
    per_block(b, v, &block, shape)
}

/// `v`, one value per block of `block` elements of `shape` (each `block[i]` 1, `shape[i]` or a
/// divisor of it), the blocks in row-major order whatever `v`'s shape, broadcast to `shape`.
pub(super) fn per_block(
    b: &mut FunctionBuilder,
    v: Value,
    block: &[i64],
    shape: &[i64],
) -> OpResult<Value> {
    let grid: Vec<i64> = shape
        .iter()
        .zip(block)
        .map(|(&s, &k)| if k >= s { 1 } else { s / k.max(1) })
        .collect();
    let count = support::numel(&support::shape(b, v)?);
    if count != support::numel(&grid) {
        bail!(
            "{count} quantization parameters for blocks of {block:?} in {shape:?}, which has {} blocks",
            support::numel(&grid)
        );
    }
    let v = support::reshape(b, v, &grid)?;
    // A dimension split into blocks becomes (blocks, block size); the parameter spans the first.
    let (mut dims, mut expanded) = (Vec::new(), Vec::new());
    for ((&s, &k), &g) in shape.iter().zip(block).zip(&grid) {
        dims.push(expanded.len() as i64);
        if k > 1 && k < s {
            expanded.extend([g, k]);
        } else {
            expanded.push(s);
        }
    }
    let v = support::broadcast_in_dim(b, v, &dims, &expanded)?;
    support::reshape(b, v, shape)
}

/// The channel dimension of a per-channel op on `x`, or `None` per tensor.
fn channel_axis(b: &FunctionBuilder, args: &Args<'_>, x: Value) -> OpResult<Option<usize>> {
    if args.raw("axis").is_err() {
        return Ok(None);
    }
    let rank = support::shape(b, x)?.len();
    Ok(Some(support::norm_dim(args.int("axis")?, rank)?))
}

/// `clamp(round(x · (1/scale)) + zero_point, quant_min, quant_max)` in float32 (float64 with
/// float64 per-channel scales), converted to `dtype`.
fn quantize(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("input")?;
    let dtype = args
        .opt_dtype("dtype")?
        .ok_or_else(|| crate::error::OpError::new("quantize needs a dtype"))?;
    let axis = channel_axis(cx.b, args, x)?;
    let (scale, zero_point) = match axis {
        Some(_) => (args.operand("scales")?, args.operand("zero_points")?),
        None => (args.operand("scale")?, args.operand("zero_point")?),
    };
    let (low, high) = (args.operand("quant_min")?, args.operand("quant_max")?);
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    // A per-tensor scale is a Python float (or `.item()` of one): its reciprocal is taken in
    // float64 and used as float32; per-channel scales divide in their own type.
    let compute = match (axis, scale) {
        (Some(_), Operand::Tensor(s)) => promote_types(DType::F32, support::dtype(b, s)?)?,
        _ => DType::F32,
    };
    let inverse = match (axis, scale) {
        (None, Operand::Scalar(s)) => {
            support::splat(b, compute, &shape, Scalar::Float(1.0 / s.as_f64()))?
        }
        (None, scale) => {
            let s = parameter(b, scale, DType::F64, None, &[])?;
            let one_ = support::like(b, s, Scalar::Float(1.0))?;
            let inverse = b.divide(one_, s)?;
            let inverse = support::convert(b, inverse, compute)?;
            support::broadcast_to(b, inverse, &shape)?
        }
        (Some(_), scale) => {
            let s = parameter(b, scale, compute, axis, &shape)?;
            let one_ = support::like(b, s, Scalar::Float(1.0))?;
            b.divide(one_, s)?
        }
    };
    let x = support::convert(b, x, compute)?;
    let zero_point = parameter(b, zero_point, compute, axis, &shape)?;
    one(quantize_values(
        b,
        x,
        inverse,
        Some(zero_point),
        (low, high),
        dtype,
    )?)
}

/// `clamp(round(x · inverse) + zero_point, low, high)` as `dtype`, rounding half to even: the
/// product in the type of `x` and `inverse` (the same), the sum and the clamp in the type the
/// product and the zero point promote to.
pub(super) fn quantize_values(
    b: &mut FunctionBuilder,
    x: Value,
    inverse: Value,
    zero_point: Option<Value>,
    (low, high): (Operand, Operand),
    dtype: DType,
) -> OpResult<Value> {
    let scaled = b.multiply(x, inverse)?;
    let mut q = b.round_nearest_even(scaled)?;
    if let Some(zero_point) = zero_point {
        let sum = promote_types(support::dtype(b, q)?, support::dtype(b, zero_point)?)?;
        let rounded = support::convert(b, q, sum)?;
        let zero_point = support::convert(b, zero_point, sum)?;
        q = b.add(rounded, zero_point)?;
    }
    let (shape, sum) = (support::shape(b, q)?, support::dtype(b, q)?);
    let low = parameter(b, low, sum, None, &shape)?;
    let high = parameter(b, high, sum, None, &shape)?;
    let clamped = b.clamp(low, q, high)?;
    support::convert(b, clamped, dtype)
}

/// `(q - zero_point) · scale` in `out_dtype` (float32 unless given).
fn dequantize(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let q = args.tensor("input")?;
    let out = args.opt_dtype("out_dtype")?.unwrap_or(DType::F32);
    let axis = channel_axis(cx.b, args, q)?;
    let (scale, zero_point) = match axis {
        Some(_) => (
            args.operand("scales")?,
            args.opt_tensor("zero_points")?.map(Operand::Tensor),
        ),
        None => (args.operand("scale")?, Some(args.operand("zero_point")?)),
    };
    let b = &mut *cx.b;
    // Per tensor, the input is converted first; per channel, the difference is integral and
    // the product takes the scales' type.
    let compute = match (axis, scale) {
        (Some(_), Operand::Tensor(s)) => promote_types(out, support::dtype(b, s)?)?,
        _ => out,
    };
    let shape = support::shape(b, q)?;
    let zero_point = match zero_point {
        Some(z) => Some(parameter(b, z, compute, axis, &shape)?),
        None => None,
    };
    let scale = parameter(b, scale, compute, axis, &shape)?;
    one(dequantize_values(b, q, zero_point, scale, compute, out)?)
}

/// `(q - zero_point) · scale` as `out`: the difference in `difference`, the product in the type
/// the difference and the scale promote to. `q` stays narrow up to its conversion.
pub(super) fn dequantize_values(
    b: &mut FunctionBuilder,
    q: Value,
    zero_point: Option<Value>,
    scale: Value,
    difference: DType,
    out: DType,
) -> OpResult<Value> {
    let mut value = support::convert(b, q, difference)?;
    if let Some(zero_point) = zero_point {
        let zero_point = support::convert(b, zero_point, difference)?;
        value = b.subtract(value, zero_point)?;
    }
    let product = promote_types(difference, support::dtype(b, scale)?)?;
    let value = support::convert(b, value, product)?;
    let scale = support::convert(b, scale, product)?;
    let value = b.multiply(value, scale)?;
    support::convert(b, value, out)
}

/// `(self · mat2) · scale_a · scale_b (+ bias)`, accumulated in float32; the scales are one
/// number each, or per row of `self` (`[M, 1]`) and per column of `mat2` (`[1, N]`).
fn scaled_mm(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let (a, m) = (args.tensor("self")?, args.tensor("mat2")?);
    let (scale_a, scale_b) = (args.tensor("scale_a")?, args.tensor("scale_b")?);
    if args.opt_tensor("scale_result")?.is_some() {
        return Err(crate::error::OpError::unsupported(
            "`_scaled_mm` with `scale_result` (a float8 result's own scale)",
        ));
    }
    let bias = args.opt_tensor("bias")?;
    let b = &mut *cx.b;
    let out = match args.opt_dtype("out_dtype")? {
        Some(dtype) => dtype,
        None => support::dtype(b, a)?,
    };
    let dims = tpuc_ir::DotDims {
        lhs_batching: Vec::new(),
        rhs_batching: Vec::new(),
        lhs_contracting: vec![1],
        rhs_contracting: vec![0],
    };
    let f32 = crate::dtype::element_type(DType::F32)?;
    let product = support::dot_into(b, a, m, dims, Some(f32))?;
    let shape = support::shape(b, product)?;
    let mut value = product;
    for scale in [scale_a, scale_b] {
        let scale = support::convert(b, scale, DType::F32)?;
        let scale = match support::numel(&support::shape(b, scale)?) {
            1 => support::reshape(b, scale, &[])?,
            _ => scale,
        };
        let scale = support::broadcast_to(b, scale, &shape)?;
        value = b.multiply(value, scale)?;
    }
    if let Some(bias) = bias {
        let bias = support::convert(b, bias, DType::F32)?;
        let bias = support::broadcast_to(b, bias, &shape)?;
        value = b.add(value, bias)?;
    }
    one(support::convert(b, value, out)?)
}
