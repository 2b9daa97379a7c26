//! Normalisations: layer, RMS, batch (inference) and group norm, computed in the input's dtype
//! (float32 for narrower floats), never in float64.

use tpuc_ir::{FunctionBuilder, Value};
use tpuc_pt2::DType;

use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpError, OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support::{self, broadcast_back, numel, reduce_mean};

pub(super) const OPS: &[OpDef] = &[
    aten(
        "layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor",
        layer_norm,
    ),
    aten(
        "native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)",
        native_layer_norm,
    ),
    aten(
        "rms_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor",
        rms_norm,
    ),
    aten(
        // torch's signature leaves the writes unannotated; in training mode the running
        // statistics are updated in place, which the annotations here say.
        "batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!)? running_mean, Tensor(b!)? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor",
        batch_norm,
    ),
    aten(
        "_native_batch_norm_legit_no_training(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, Tensor running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
        native_batch_norm_no_training,
    ),
    aten(
        "group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enabled=True) -> Tensor",
        group_norm,
    ),
    aten(
        "native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW, int group, float eps) -> (Tensor, Tensor, Tensor)",
        native_group_norm,
    ),
];

/// The dtype normalisations compute in: float32 for half types.
pub(crate) fn compute_dtype(dtype: DType) -> DType {
    match dtype {
        DType::BF16 | DType::F16 => DType::F32,
        other => other,
    }
}

/// A tensor standardized per row, and the statistics of each row.
struct Standardized {
    /// `x`'s shape.
    out: Value,
    /// `[rows]`.
    mean: Value,
    /// `[rows]`, the biased variance, without `eps`.
    var: Value,
}

/// `(x - mean) * rsqrt(var + eps)` over each of `rows` equal, contiguous slices of `x`'s
/// elements (the trailing dimensions of layer norm, the groups of group norm). One
/// `batch_norm_training` of `x` as `[1, rows, row length]`, whose feature dimension is the row,
/// computes mean and biased variance in one pass (`E[x^2] - E[x]^2` where it is expanded, as
/// torch_xla's layer norm).
fn standardize_rows(
    b: &mut FunctionBuilder,
    x: Value,
    rows: i64,
    eps: f64,
) -> OpResult<Standardized> {
    let shape = support::shape(b, x)?;
    let dtype = support::dtype(b, x)?;
    let as_rows = support::reshape(b, x, &[1, rows, numel(&shape) / rows])?;
    let scale = support::splat(b, dtype, &[rows], Scalar::Int(1))?;
    let offset = support::zeros(b, dtype, &[rows])?;
    let [out, mean, var] = b.batch_norm_training(as_rows, scale, offset, eps as f32, 1)?[..] else {
        unreachable!("batch_norm_training has three results")
    };
    Ok(Standardized {
        out: support::reshape(b, out, &shape)?,
        mean,
        var,
    })
}

/// `y * weight + bias` with the affine parameters broadcast along the trailing dimensions.
fn affine_trailing(
    b: &mut FunctionBuilder,
    y: Value,
    weight: Option<Value>,
    bias: Option<Value>,
) -> OpResult<Value> {
    let shape = support::shape(b, y)?;
    let dtype = support::dtype(b, y)?;
    let mut out = y;
    if let Some(w) = weight {
        let w = support::convert(b, w, dtype)?;
        let w = support::broadcast_to(b, w, &shape)?;
        out = b.multiply(out, w)?;
    }
    if let Some(bias) = bias {
        let bias = support::convert(b, bias, dtype)?;
        let bias = support::broadcast_to(b, bias, &shape)?;
        out = b.add(out, bias)?;
    }
    Ok(out)
}

fn trailing_dims(b: &FunctionBuilder, x: Value, normalized: &[i64]) -> OpResult<Vec<usize>> {
    let shape = support::shape(b, x)?;
    if normalized.len() > shape.len() || shape[shape.len() - normalized.len()..] != *normalized {
        bail!(
            "normalized_shape {normalized:?} does not match the input's trailing dimensions {shape:?}"
        );
    }
    Ok((shape.len() - normalized.len()..shape.len()).collect())
}

struct LayerNorm {
    out: Value,
    mean: Value,
    var: Value,
    eps: f64,
}

fn layer_norm_values(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<LayerNorm> {
    let x = args.tensor("input")?;
    let dims = trailing_dims(cx.b, x, &args.ints("normalized_shape")?)?;
    let weight = args.opt_tensor("weight")?;
    let bias = args.opt_tensor("bias")?;
    let eps = args.float("eps")?;
    let dtype = support::dtype(cx.b, x)?;
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    let rows = numel(&shape[..shape.len() - dims.len()]);
    let xc = support::convert(b, x, compute_dtype(dtype))?;
    let standardized = standardize_rows(b, xc, rows, eps)?;
    let y = affine_trailing(b, standardized.out, weight, bias)?;
    Ok(LayerNorm {
        out: support::convert(b, y, dtype)?,
        mean: standardized.mean,
        var: standardized.var,
        eps,
    })
}

fn layer_norm(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let ln = layer_norm_values(cx, args)?;
    Ok(vec![Val::Tensor(ln.out)])
}

/// Also returns mean and rstd (shape `[..., 1, ...]`), when something uses them.
fn native_layer_norm(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let ln = layer_norm_values(cx, args)?;
    let mut outputs = vec![Val::Tensor(ln.out)];
    outputs.extend(mean_and_rstd_outputs(cx, ln.mean, ln.var, ln.eps)?);
    Ok(outputs)
}

/// Outputs 1 and 2 of a native norm, the per-row mean and `rsqrt(var + eps)`, each reshaped to
/// and in the dtype of torch's output, or `None` where nothing uses it.
fn mean_and_rstd_outputs(cx: &mut Cx<'_>, mean: Value, var: Value, eps: f64) -> OpResult<Vec<Val>> {
    let mut outputs = Vec::with_capacity(2);
    for i in [1, 2] {
        if !cx.used(i) {
            outputs.push(Val::None);
            continue;
        }
        let stat = if i == 1 {
            mean
        } else {
            let eps = support::like(cx.b, var, Scalar::Float(eps))?;
            let var_eps = cx.b.add(var, eps)?;
            cx.b.rsqrt(var_eps)?
        };
        let shape = cx.out_shape(i)?;
        let dtype = cx.out_dtype(i)?;
        let v = support::reshape(cx.b, stat, &shape)?;
        outputs.push(Val::Tensor(support::convert(cx.b, v, dtype)?));
    }
    Ok(outputs)
}

/// `torch.finfo(dtype).eps`.
fn finfo_eps(dtype: DType) -> f64 {
    match dtype {
        DType::BF16 => 0.0078125,
        DType::F16 => 0.0009765625,
        DType::F64 => f64::EPSILON,
        _ => f32::EPSILON as f64,
    }
}

fn rms_norm(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("input")?;
    let dims = trailing_dims(cx.b, x, &args.ints("normalized_shape")?)?;
    let weight = args.opt_tensor("weight")?;
    let dtype = support::dtype(cx.b, x)?;
    let eps = args.opt_float("eps")?.unwrap_or(finfo_eps(dtype));
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    let xc = support::convert(b, x, compute_dtype(dtype))?;
    let squared = b.multiply(xc, xc)?;
    let mean = reduce_mean(b, squared, &dims)?;
    let e = support::like(b, mean, Scalar::Float(eps))?;
    let shifted = b.add(mean, e)?;
    let r = b.rsqrt(shifted)?;
    let r = broadcast_back(b, r, &dims, &shape)?;
    let y = b.multiply(xc, r)?;
    let y = affine_trailing(b, y, weight, None)?;
    super::one(support::convert(b, y, dtype)?)
}

/// Inference batch norm over dimension 1 as one `batch_norm_inference`.
fn batch_norm_inference(
    b: &mut FunctionBuilder,
    x: Value,
    weight: Option<Value>,
    bias: Option<Value>,
    mean: Value,
    var: Value,
    eps: f64,
) -> OpResult<Value> {
    let shape = support::shape(b, x)?;
    if shape.len() < 2 {
        bail!("batch norm needs an input with a channel dimension, got {shape:?}");
    }
    let dtype = support::dtype(b, x)?;
    let channels = [shape[1]];
    let param = |b: &mut FunctionBuilder, v: Option<Value>, fill: i64| -> OpResult<Value> {
        match v {
            Some(v) => support::convert(b, v, dtype),
            None => support::splat(b, dtype, &channels, Scalar::Int(fill)),
        }
    };
    let scale = param(b, weight, 1)?;
    let offset = param(b, bias, 0)?;
    let mean = support::convert(b, mean, dtype)?;
    let var = support::convert(b, var, dtype)?;
    Ok(b.batch_norm_inference(x, scale, offset, mean, var, eps as f32, 1)?)
}

fn batch_norm(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("input")?;
    if args.bool("training")? {
        return super::one(super::batch_stats::batch_norm_training(cx, args)?);
    }
    let (Some(mean), Some(var)) = (
        args.opt_tensor("running_mean")?,
        args.opt_tensor("running_var")?,
    ) else {
        return Err(OpError::unsupported(
            "batch norm without running statistics",
        ));
    };
    let y = batch_norm_inference(
        cx.b,
        x,
        args.opt_tensor("weight")?,
        args.opt_tensor("bias")?,
        mean,
        var,
        args.float("eps")?,
    )?;
    super::one(y)
}

fn native_batch_norm_no_training(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    if cx.used(1) || cx.used(2) {
        return Err(OpError::unsupported(
            "the saved statistics of `_native_batch_norm_legit_no_training`",
        ));
    }
    let x = args.tensor("input")?;
    let y = batch_norm_inference(
        cx.b,
        x,
        args.opt_tensor("weight")?,
        args.opt_tensor("bias")?,
        args.tensor("running_mean")?,
        args.tensor("running_var")?,
        args.float("eps")?,
    )?;
    Ok(vec![Val::Tensor(y), Val::None, Val::None])
}

/// Group norm over `[N, C, ...]` with per-channel affine parameters; the statistics are per
/// `(n, group)` row.
fn group_norm_values(
    b: &mut FunctionBuilder,
    x: Value,
    groups: i64,
    weight: Option<Value>,
    bias: Option<Value>,
    eps: f64,
) -> OpResult<Standardized> {
    let dtype = support::dtype(b, x)?;
    let shape = support::shape(b, x)?;
    if shape.len() < 2 || groups <= 0 || shape[1] % groups != 0 {
        bail!("group norm with {groups} groups does not divide the channels of {shape:?}");
    }
    let xc = support::convert(b, x, compute_dtype(dtype))?;
    let standardized = standardize_rows(b, xc, shape[0] * groups, eps)?;
    let mut out = standardized.out;
    // Per-channel affine: the channel is dimension 1.
    let cdtype = support::dtype(b, out)?;
    if let Some(w) = weight {
        let w = support::convert(b, w, cdtype)?;
        let w = support::broadcast_in_dim(b, w, &[1], &shape)?;
        out = b.multiply(out, w)?;
    }
    if let Some(bias) = bias {
        let bias = support::convert(b, bias, cdtype)?;
        let bias = support::broadcast_in_dim(b, bias, &[1], &shape)?;
        out = b.add(out, bias)?;
    }
    Ok(Standardized {
        out: support::convert(b, out, dtype)?,
        ..standardized
    })
}

fn group_norm(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let y = group_norm_values(
        cx.b,
        args.tensor("input")?,
        args.int("num_groups")?,
        args.opt_tensor("weight")?,
        args.opt_tensor("bias")?,
        args.float("eps")?,
    )?;
    super::one(y.out)
}

/// Also returns mean and rstd (`[N, group]`), when something uses them.
fn native_group_norm(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let eps = args.float("eps")?;
    let gn = group_norm_values(
        cx.b,
        args.tensor("input")?,
        args.int("group")?,
        args.opt_tensor("weight")?,
        args.opt_tensor("bias")?,
        eps,
    )?;
    let mut outputs = vec![Val::Tensor(gn.out)];
    outputs.extend(mean_and_rstd_outputs(cx, gn.mean, gn.var, eps)?);
    Ok(outputs)
}
