//! Batch norm with batch statistics (`training=True`): what weight standardisation and
//! `track_running_stats=False` layers export even from an eval-mode model. The running
//! statistics, when given, are updated as torch does (`momentum`, unbiased variance) and
//! written back to their buffers.

use tpuc_ir::{FunctionBuilder, Value};

use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support::{self, broadcast_back, reduce_mean};

pub(super) const OPS: &[OpDef] = &[
    aten(
        "_native_batch_norm_legit.no_stats(Tensor input, Tensor? weight, Tensor? bias, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
        native_no_stats,
    ),
    aten(
        "_native_batch_norm_legit(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean, Tensor(b!) running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
        native_with_stats,
    ),
    aten(
        "_native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, Tensor running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor, Tensor running_mean_out, Tensor running_var_out)",
        native_functional,
    ),
];

/// The normalised input and the batch's mean, biased variance and inverse standard deviation
/// per channel (dimension 1).
pub(crate) struct BatchStats {
    pub output: Value,
    pub mean: Value,
    pub var: Value,
    pub rstd: Value,
    /// Elements per channel.
    pub count: i64,
}

pub(crate) fn batch_stats(
    b: &mut FunctionBuilder,
    x: Value,
    weight: Option<Value>,
    bias: Option<Value>,
    eps: f64,
) -> OpResult<BatchStats> {
    let shape = support::shape(b, x)?;
    if shape.len() < 2 {
        bail!("batch norm needs an input with a channel dimension, got {shape:?}");
    }
    let dtype = support::dtype(b, x)?;
    let compute = super::norm::compute_dtype(dtype);
    let x = support::convert(b, x, compute)?;
    let dims: Vec<usize> = (0..shape.len()).filter(|&d| d != 1).collect();
    let count: i64 = dims.iter().map(|&d| shape[d]).product();
    let mean = reduce_mean(b, x, &dims)?;
    let centered = {
        let m = broadcast_back(b, mean, &dims, &shape)?;
        b.subtract(x, m)?
    };
    let squares = b.multiply(centered, centered)?;
    let var = reduce_mean(b, squares, &dims)?;
    let eps = support::like(b, var, Scalar::Float(eps))?;
    let shifted = b.add(var, eps)?;
    let rstd = b.rsqrt(shifted)?;
    let r = broadcast_back(b, rstd, &dims, &shape)?;
    let mut y = b.multiply(centered, r)?;
    for (param, add) in [(weight, false), (bias, true)] {
        if let Some(p) = param {
            let p = support::convert(b, p, compute)?;
            let p = support::broadcast_in_dim(b, p, &[1], &shape)?;
            y = if add { b.add(y, p)? } else { b.multiply(y, p)? };
        }
    }
    Ok(BatchStats {
        output: support::convert(b, y, dtype)?,
        mean,
        var,
        rstd,
        count,
    })
}

/// `(1 - momentum) * running + momentum * batch`, with the unbiased batch variance.
fn updated(
    b: &mut FunctionBuilder,
    running: Value,
    batch: Value,
    momentum: f64,
    unbias: Option<i64>,
) -> OpResult<Value> {
    let dtype = support::dtype(b, running)?;
    let mut batch = support::convert(b, batch, dtype)?;
    if let Some(n) = unbias {
        let k = support::like(b, batch, Scalar::Float(n as f64 / (n - 1).max(1) as f64))?;
        batch = b.multiply(batch, k)?;
    }
    let keep = support::like(b, running, Scalar::Float(1.0 - momentum))?;
    let take = support::like(b, batch, Scalar::Float(momentum))?;
    let old = b.multiply(running, keep)?;
    let new = b.multiply(batch, take)?;
    Ok(b.add(old, new)?)
}

fn stats(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<BatchStats> {
    if !args.bool("training")? {
        bail!("batch norm without running statistics needs `training=True`");
    }
    let x = args.tensor("input")?;
    batch_stats(
        cx.b,
        x,
        args.opt_tensor("weight")?,
        args.opt_tensor("bias")?,
        args.float("eps")?,
    )
}

/// The outputs in the dtypes the node gives them: the statistics are computed in float32 for
/// half types, but torch returns them in the input's dtype unless the weights are float32 (and
/// the core decomposition of the functional variant returns float32 running statistics).
fn outputs(cx: &mut Cx<'_>, values: &[Value]) -> OpResult<Vec<Val>> {
    let mut out = Vec::with_capacity(values.len());
    for (i, &v) in values.iter().enumerate() {
        let dtype = match cx.out_dtype(i) {
            Ok(dtype) => dtype,
            Err(_) => support::dtype(cx.b, v)?,
        };
        out.push(Val::Tensor(support::convert(cx.b, v, dtype)?));
    }
    Ok(out)
}

fn native_no_stats(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let s = stats(cx, args)?;
    outputs(cx, &[s.output, s.mean, s.rstd])
}

fn running_updates(cx: &mut Cx<'_>, args: &Args<'_>, s: &BatchStats) -> OpResult<(Value, Value)> {
    let momentum = args.float("momentum")?;
    let (mean, var) = (args.tensor("running_mean")?, args.tensor("running_var")?);
    let mean = updated(cx.b, mean, s.mean, momentum, None)?;
    let var = updated(cx.b, var, s.var, momentum, Some(s.count))?;
    Ok((mean, var))
}

/// `batch_norm(training=True)`: normalised with the batch's statistics; the running
/// statistics, when given, updated and written back.
pub(crate) fn batch_norm_training(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Value> {
    let s = stats(cx, args)?;
    if args.opt_tensor("running_mean")?.is_some() && args.opt_tensor("running_var")?.is_some() {
        let (mean, var) = running_updates(cx, args, &s)?;
        cx.write("running_mean", mean);
        cx.write("running_var", var);
    }
    Ok(s.output)
}

fn native_with_stats(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let s = stats(cx, args)?;
    let (mean, var) = running_updates(cx, args, &s)?;
    cx.write("running_mean", mean);
    cx.write("running_var", var);
    outputs(cx, &[s.output, s.mean, s.rstd])
}

fn native_functional(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let s = stats(cx, args)?;
    let (mean, var) = running_updates(cx, args, &s)?;
    outputs(cx, &[s.output, s.mean, s.rstd, mean, var])
}
