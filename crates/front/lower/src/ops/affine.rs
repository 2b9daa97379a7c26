//! torchao's quantization primitives (`torchao/quantization/quant_primitives.py`), as its
//! reference implementations compute them in eager, and `_int_mm`. `choose_qparams_affine`,
//! `quantize_affine` and `dequantize_affine` give each block of `block_size` elements one scale
//! and zero point (a block entry 1, the whole dimension or a divisor of it: per tensor, per row,
//! per group), the parameters one value per block in row-major order whatever their shape. Each
//! step computes in the type torch does (the input's, half types included, or two operands'
//! promotion), rounding half to even, with [`super::quantized`]'s quantize and dequantize
//! arithmetic; the integer data stays narrow up to its conversion. `_int_mm` is one
//! `dot_general` of int8 (or uint8 times int8) operands accumulated in int32.

use tpuc_ir::{ComparisonDirection, DotDims, FunctionBuilder, Value};
use tpuc_pt2::DType;

use super::one;
use super::quantized::{
    at_least, dequantize_values, divide_by, per_block, quantize_values, range_with_zero,
};
use crate::args::{Args, Operand};
use crate::cx::Cx;
use crate::dtype::element_type;
use crate::env::Val;
use crate::error::{OpError, OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::{Scalar, promote_types};
use crate::support;

pub(super) const OPS: &[OpDef] = &[
    aten(
        "torchao::choose_qparams_affine(Tensor? input, str mapping_type, SymInt[] block_size, ScalarType target_dtype, Scalar? quant_min=None, Scalar? quant_max=None, float? eps=None, ScalarType? scale_dtype=None, ScalarType? zero_point_dtype=None, bool keepdim=False) -> (Tensor, Tensor)",
        choose_qparams,
    ),
    aten(
        "torchao::quantize_affine(Tensor input, SymInt[] block_size, Tensor scale, Tensor? zero_point, ScalarType output_dtype, Scalar? quant_min=None, Scalar? quant_max=None) -> Tensor",
        quantize,
    ),
    aten(
        "torchao::dequantize_affine(Tensor input, SymInt[] block_size, Tensor scale, Tensor? zero_point, ScalarType input_dtype, Scalar? quant_min=None, Scalar? quant_max=None, ScalarType output_dtype=6) -> Tensor",
        dequantize,
    ),
    aten("_int_mm(Tensor self, Tensor mat2) -> Tensor", int_mm),
];

/// `block_size`, checked against `shape`: an entry per dimension, each 1, the whole dimension or
/// a divisor of it.
fn blocks(args: &Args<'_>, shape: &[i64]) -> OpResult<Vec<i64>> {
    let block = args.ints("block_size")?;
    let fits = |(&k, &s): (&i64, &i64)| k >= 1 && s % k == 0;
    if block.len() != shape.len() || !block.iter().zip(shape).all(fits) {
        bail!("block_size {block:?} does not divide a tensor of shape {shape:?} into blocks");
    }
    Ok(block)
}

/// `quant_min` and `quant_max`, by default the range of `dtype`, within it.
fn bounds(args: &Args<'_>, dtype: DType) -> OpResult<(f64, f64)> {
    let (lowest, highest) = match dtype {
        DType::U8 => (0.0, 255.0),
        DType::I8 => (-128.0, 127.0),
        DType::I16 => (-32768.0, 32767.0),
        DType::I32 => (i32::MIN as f64, i32::MAX as f64),
        DType::F8E4M3FN => (-448.0, 448.0),
        DType::F8E5M2 | DType::F8E5M2FNUZ => (-57344.0, 57344.0),
        DType::F8E4M3FNUZ => (-240.0, 240.0),
        other => bail!(
            "torchao quantizes to uint8, int8, int16, int32 and the float8 types, not {other}"
        ),
    };
    let given = |name| Ok::<_, OpError>(args.opt_scalar(name)?.map(Scalar::as_f64));
    let low = given("quant_min")?.unwrap_or(lowest);
    let high = given("quant_max")?.unwrap_or(highest);
    if low < lowest || high > highest {
        bail!("quant_min {low} and quant_max {high} leave {dtype}'s range [{lowest}, {highest}]");
    }
    Ok((low, high))
}

/// A zero point; one without elements is none, as torchao takes it.
fn given_zero_point(b: &FunctionBuilder, args: &Args<'_>) -> OpResult<Option<Value>> {
    Ok(match args.opt_tensor("zero_point")? {
        Some(z) if support::numel(&support::shape(b, z)?) > 0 => Some(z),
        _ => None,
    })
}

/// `torch.finfo(dtype).smallest_normal`.
fn smallest_normal(dtype: DType) -> OpResult<f64> {
    Ok(match dtype {
        DType::F32 | DType::BF16 => f32::MIN_POSITIVE as f64,
        DType::F16 => 2f64.powi(-14),
        DType::F64 => f64::MIN_POSITIVE,
        other => bail!("choose_qparams_affine of a {other} tensor (torch.finfo takes float types)"),
    })
}

/// The scale and zero point of each block: the block's range, widened to include 0, mapped onto
/// `[quant_min, quant_max]` symmetrically about the middle or (ASYMMETRIC) end to end, the scale
/// at least `eps`. In the input's type; the scale then in `scale_dtype` (the input's by
/// default), the zero point in `zero_point_dtype` (by default int32 for ASYMMETRIC, else the
/// input's type).
fn choose_qparams(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args
        .opt_tensor("input")?
        .ok_or_else(|| OpError::new("choose_qparams_affine needs an input tensor"))?;
    let mapping = args.str("mapping_type")?;
    let target = args
        .opt_dtype("target_dtype")?
        .ok_or_else(|| OpError::new("choose_qparams_affine needs a target_dtype"))?;
    let (low, high) = bounds(args, target)?;
    let keepdim = args.bool("keepdim")?;
    let b = &mut *cx.b;
    let (dtype, shape) = (support::dtype(b, x)?, support::shape(b, x)?);
    let block = blocks(args, &shape)?;
    let eps = match args.opt_float("eps")? {
        Some(eps) => eps,
        None => smallest_normal(dtype)?,
    };
    let scale_dtype = args.opt_dtype("scale_dtype")?.unwrap_or(dtype);
    let zero_point_dtype = args.opt_dtype("zero_point_dtype")?;

    // A dimension split into blocks is viewed as (blocks, block size) and reduced over the
    // second; a whole-dimension block is reduced over it.
    let (mut view, mut dims) = (Vec::new(), Vec::new());
    for (&s, &k) in shape.iter().zip(&block) {
        if k > 1 && k < s {
            view.extend([s / k, k]);
            dims.push(view.len() - 1);
        } else {
            if k != 1 {
                dims.push(view.len());
            }
            view.push(s);
        }
    }
    // torchao's `amin(dim=[])` (every block one element) reduces every dimension.
    if dims.is_empty() {
        dims = (0..view.len()).collect();
    }
    let v = support::reshape(b, x, &view)?;
    let range = range_with_zero(b, v, &dims)?;

    let (scale, zero_point, zero_point_default) = match mapping {
        "SYMMETRIC" | "SYMMETRIC_NO_CLIPPING_ERR" => {
            let scale = if mapping == "SYMMETRIC" {
                range.symmetric_scale(b, high - low)?
            } else {
                let below = divide_by(b, range.below(), low)?;
                let above = divide_by(b, range.above(), high)?;
                let larger = b.compare(ComparisonDirection::Gt, below, above)?;
                b.select(larger, below, above)?
            };
            let middle = Scalar::Float(((high + low + 1.0) / 2.0).trunc());
            let zero_point = support::like(b, scale, middle)?;
            (at_least(b, scale, eps)?, zero_point, None)
        }
        "ASYMMETRIC" => {
            let scale = range.asymmetric_scale(b, high - low)?;
            let scale = at_least(b, scale, eps)?;
            let offset = range.offset(b, scale)?;
            let low_ = support::like(b, offset, Scalar::Float(low))?;
            let high_ = support::like(b, offset, Scalar::Float(high))?;
            let zero_point = b.subtract(low_, offset)?;
            let zero_point = b.clamp(low_, zero_point, high_)?;
            (scale, zero_point, Some(DType::I32))
        }
        other => {
            return Err(OpError::unsupported(format!(
                "choose_qparams_affine with mapping type `{other}` (tpuc lowers SYMMETRIC, \
                 SYMMETRIC_NO_CLIPPING_ERR and ASYMMETRIC)"
            )));
        }
    };
    let mut scale = support::convert(b, scale, scale_dtype)?;
    let mut zero_point = match zero_point_dtype.or(zero_point_default) {
        Some(dtype) => support::convert(b, zero_point, dtype)?,
        None => zero_point,
    };
    if keepdim {
        let grid: Vec<i64> = shape.iter().zip(&block).map(|(&s, &k)| s / k).collect();
        scale = support::reshape(b, scale, &grid)?;
        zero_point = support::reshape(b, zero_point, &grid)?;
    }
    Ok(vec![Val::Tensor(scale), Val::Tensor(zero_point)])
}

/// `clamp(round(x · (1/scale)) + zero_point, quant_min, quant_max)` as `output_dtype`: the
/// reciprocal in the scale's type, the product in the promotion of the input's and the
/// scale's. Without a zero point (where torchao fails) nothing is added.
fn quantize(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("input")?;
    let scale = args.tensor("scale")?;
    let dtype = args
        .opt_dtype("output_dtype")?
        .ok_or_else(|| OpError::new("quantize_affine needs an output_dtype"))?;
    let (low, high) = bounds(args, dtype)?;
    let zero_point = given_zero_point(cx.b, args)?;
    let b = &mut *cx.b;
    let (input, shape) = (support::dtype(b, x)?, support::shape(b, x)?);
    if !matches!(input, DType::F32 | DType::F16 | DType::BF16) {
        bail!("quantize_affine of a {input} tensor (torchao takes float32, float16 or bfloat16)");
    }
    let block = blocks(args, &shape)?;
    let one_ = support::like(b, scale, Scalar::Float(1.0))?;
    let inverse = b.divide(one_, scale)?;
    let inverse = per_block(b, inverse, &block, &shape)?;
    let product = promote_types(input, support::dtype(b, inverse)?)?;
    let x = support::convert(b, x, product)?;
    let inverse = support::convert(b, inverse, product)?;
    let zero_point = match zero_point {
        Some(z) => Some(per_block(b, z, &block, &shape)?),
        None => None,
    };
    let range = (
        Operand::Scalar(Scalar::Float(low)),
        Operand::Scalar(Scalar::Float(high)),
    );
    one(quantize_values(b, x, inverse, zero_point, range, dtype)?)
}

/// `(q - zero_point) · scale` as `output_dtype` (float32 unless given): `q` and the zero point
/// converted to it, the product in its promotion with the scale's type.
fn dequantize(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let q = args.tensor("input")?;
    let scale = args.tensor("scale")?;
    let input = args
        .opt_dtype("input_dtype")?
        .ok_or_else(|| OpError::new("dequantize_affine needs an input_dtype"))?;
    bounds(args, input)?;
    // The signature's default `6` is c10's number for float32.
    let out = if args.given("output_dtype") {
        args.opt_dtype("output_dtype")?.unwrap_or(DType::F32)
    } else {
        DType::F32
    };
    if !matches!(out, DType::F32 | DType::F16 | DType::BF16) {
        bail!("dequantize_affine to {out} (torchao returns float32, float16 or bfloat16)");
    }
    let zero_point = given_zero_point(cx.b, args)?;
    let b = &mut *cx.b;
    let (dtype, shape) = (support::dtype(b, q)?, support::shape(b, q)?);
    if dtype != input {
        bail!("dequantize_affine of {dtype} data declared {input}");
    }
    let block = blocks(args, &shape)?;
    let scale = per_block(b, scale, &block, &shape)?;
    let zero_point = match zero_point {
        Some(z) => Some(per_block(b, z, &block, &shape)?),
        None => None,
    };
    one(dequantize_values(b, q, zero_point, scale, out, out)?)
}

/// `self · mat2` of an int8 or uint8 matrix and an int8 one, accumulated and returned in int32.
fn int_mm(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let (a, m) = (args.tensor("self")?, args.tensor("mat2")?);
    let b = &mut *cx.b;
    for (v, dtypes) in [(a, &[DType::I8, DType::U8][..]), (m, &[DType::I8][..])] {
        let (dtype, rank) = (support::dtype(b, v)?, support::rank(b, v)?);
        if !dtypes.contains(&dtype) || rank != 2 {
            bail!(
                "_int_mm takes a 2-D int8 or uint8 matrix times a 2-D int8 one, not a {rank}-D \
                 {dtype} tensor"
            );
        }
    }
    let dims = DotDims::contracting(1, 0);
    let i32 = element_type(DType::I32)?;
    one(support::dot_into(b, a, m, dims, Some(i32))?)
}
