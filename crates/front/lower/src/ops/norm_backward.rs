//! The gradients of layer and group normalisation that joint graphs keep
//! (`native_layer_norm_backward`, `native_group_norm_backward`), from the statistics the
//! forward saved. With `x̂ = (x - mean) · rstd` over a group of `n` elements and `ĝ` the
//! gradient of `x̂`: `dx = rstd · (ĝ - mean(ĝ) - x̂ · mean(ĝ · x̂))`; the weight's gradient sums
//! `g · x̂`, the bias's `g`, over everything but the channel. Half types compute in float32.

use tpuc_ir::{BinaryOp, FunctionBuilder, Value};

use super::backward::output_mask;
use super::norm::compute_dtype;
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::support::{self, broadcast_back, reduce, reduce_mean};

pub(super) const OPS: &[OpDef] = &[
    aten(
        "native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, \
         Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) \
         -> (Tensor, Tensor, Tensor)",
        layer_norm_backward,
    ),
    aten(
        "native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, \
         Tensor? weight, SymInt N, SymInt C, SymInt HxW, int group, bool[3] output_mask) \
         -> (Tensor, Tensor, Tensor)",
        group_norm_backward,
    ),
];

/// `rstd · (ĝ - mean(ĝ) - x̂ · mean(ĝ · x̂))`, the means over `dims` of `x̂`'s shape.
fn input_gradient(
    b: &mut FunctionBuilder,
    g_hat: Value,
    x_hat: Value,
    rstd: Value,
    dims: &[usize],
) -> OpResult<Value> {
    let shape = support::shape(b, x_hat)?;
    let mean_g = reduce_mean(b, g_hat, dims)?;
    let mean_g = broadcast_back(b, mean_g, dims, &shape)?;
    let product = b.multiply(g_hat, x_hat)?;
    let mean_gx = reduce_mean(b, product, dims)?;
    let mean_gx = broadcast_back(b, mean_gx, dims, &shape)?;
    let centred = b.subtract(g_hat, mean_g)?;
    let along = b.multiply(x_hat, mean_gx)?;
    let inner = b.subtract(centred, along)?;
    Ok(b.multiply(rstd, inner)?)
}

/// `v` in the computation's type.
fn wide(b: &mut FunctionBuilder, v: Value) -> OpResult<Value> {
    let dtype = support::dtype(b, v)?;
    support::convert(b, v, compute_dtype(dtype))
}

fn layer_norm_backward(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let mask = output_mask(args)?;
    let normalized = args.ints("normalized_shape")?;
    let weight = args.opt_tensor("weight")?;
    let bias = args.opt_tensor("bias")?;
    let g_in = args.tensor("grad_out")?;
    let x_in = args.tensor("input")?;
    let b = &mut *cx.b;
    let dtype = support::dtype(b, x_in)?;
    let shape = support::shape(b, x_in)?;
    let r = shape.len();
    let k = normalized.len();
    if k > r || shape[r - k..] != normalized[..] {
        bail!("normalized shape {normalized:?} is not the end of the input's {shape:?}");
    }
    let (g, x) = (wide(b, g_in)?, wide(b, x_in)?);
    // mean and rstd are [batch..., 1, ..., 1].
    let mean = wide(b, args.tensor("mean")?)?;
    let rstd = wide(b, args.tensor("rstd")?)?;
    let mean = support::broadcast_to(b, mean, &shape)?;
    let rstd = support::broadcast_to(b, rstd, &shape)?;
    let centred = b.subtract(x, mean)?;
    let x_hat = b.multiply(centred, rstd)?;
    let norm_dims: Vec<usize> = (r - k..r).collect();
    let batch_dims: Vec<usize> = (0..r - k).collect();
    let trailing: Vec<i64> = (r - k..r).map(|d| d as i64).collect();
    let input = if mask[0] {
        let g_hat = match weight {
            Some(w) => {
                let w = wide(b, w)?;
                let w = support::broadcast_in_dim(b, w, &trailing, &shape)?;
                b.multiply(g, w)?
            }
            None => g,
        };
        let dx = input_gradient(b, g_hat, x_hat, rstd, &norm_dims)?;
        Val::Tensor(support::convert(b, dx, dtype)?)
    } else {
        Val::None
    };
    let weight_grad = match (mask[1], weight) {
        (true, Some(w)) => {
            let product = b.multiply(g, x_hat)?;
            let sum = reduce(b, BinaryOp::Add, product, &batch_dims, false)?;
            Val::Tensor(support::convert(b, sum, support::dtype(b, w)?)?)
        }
        _ => Val::None,
    };
    let bias_grad = match (mask[2], bias) {
        (true, Some(bias)) => {
            let sum = reduce(b, BinaryOp::Add, g, &batch_dims, false)?;
            Val::Tensor(support::convert(b, sum, support::dtype(b, bias)?)?)
        }
        _ => Val::None,
    };
    Ok(vec![input, weight_grad, bias_grad])
}

fn group_norm_backward(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let mask = output_mask(args)?;
    let weight = args.opt_tensor("weight")?;
    let (n, c, hw, groups) = (
        args.int("N")?,
        args.int("C")?,
        args.int("HxW")?,
        args.int("group")?,
    );
    let g_in = args.tensor("grad_out")?;
    let x_in = args.tensor("input")?;
    let b = &mut *cx.b;
    let dtype = support::dtype(b, x_in)?;
    let shape = support::shape(b, x_in)?;
    if groups <= 0 || c % groups != 0 || support::numel(&shape) != n * c * hw {
        bail!("group norm of {groups} groups over N={n}, C={c}, HxW={hw}: input {shape:?}");
    }
    // [N, G, C/G, HxW]: statistics per (n, group), the weight per channel.
    let grouped = [n, groups, c / groups, hw];
    let g = wide(b, g_in)?;
    let g = support::reshape(b, g, &grouped)?;
    let x = wide(b, x_in)?;
    let x = support::reshape(b, x, &grouped)?;
    let stat = |b: &mut FunctionBuilder, v: Value| -> OpResult<Value> {
        let v = wide(b, v)?;
        let v = support::reshape(b, v, &[n, groups])?;
        support::broadcast_in_dim(b, v, &[0, 1], &grouped)
    };
    let mean = stat(b, args.tensor("mean")?)?;
    let rstd = stat(b, args.tensor("rstd")?)?;
    let centred = b.subtract(x, mean)?;
    let x_hat = b.multiply(centred, rstd)?;
    let channel = |b: &mut FunctionBuilder, w: Value| -> OpResult<Value> {
        let w = wide(b, w)?;
        let w = support::reshape(b, w, &[groups, c / groups])?;
        support::broadcast_in_dim(b, w, &[1, 2], &grouped)
    };
    let input = if mask[0] {
        let g_hat = match weight {
            Some(w) => {
                let w = channel(b, w)?;
                b.multiply(g, w)?
            }
            None => g,
        };
        let dx = input_gradient(b, g_hat, x_hat, rstd, &[2, 3])?;
        let dx = support::reshape(b, dx, &shape)?;
        Val::Tensor(support::convert(b, dx, dtype)?)
    } else {
        Val::None
    };
    // Per channel: summed over N and HxW.
    let per_channel = |b: &mut FunctionBuilder, v: Value| -> OpResult<Value> {
        let sum = reduce(b, BinaryOp::Add, v, &[0, 3], false)?;
        support::reshape(b, sum, &[c])
    };
    let weight_grad = if mask[1] {
        let product = b.multiply(g, x_hat)?;
        let sum = per_channel(b, product)?;
        Val::Tensor(support::convert(b, sum, dtype)?)
    } else {
        Val::None
    };
    let bias_grad = if mask[2] {
        let sum = per_channel(b, g)?;
        Val::Tensor(support::convert(b, sum, dtype)?)
    } else {
        Val::None
    };
    Ok(vec![input, weight_grad, bias_grad])
}
