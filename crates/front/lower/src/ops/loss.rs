//! Loss functions the "TRAINING" dialect keeps whole: `cross_entropy_loss`, `nll_loss`,
//! `mse_loss`.

use tpuc_ir::{BinaryOp, ComparisonDirection, FunctionBuilder, TensorType, Value};
use tpuc_pt2::DType;

use super::one;
use super::reduction::log_softmax_of;
use crate::args::Args;
use crate::cx::Cx;
use crate::dtype::element_type;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::{Scalar, promote_types};
use crate::support::{self, broadcast_back, reduce};

pub(crate) const OPS: &[OpDef] = &[
    aten(
        "cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, \
         SymInt ignore_index=-100, float label_smoothing=0.0) -> Tensor",
        cross_entropy,
    ),
    aten(
        "nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, \
         SymInt ignore_index=-100) -> Tensor",
        nll_loss,
    ),
    aten(
        "mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor",
        mse_loss,
    ),
];

/// torch's `Reduction` enum.
const NONE: i64 = 0;
const MEAN: i64 = 1;
const SUM: i64 = 2;

fn cross_entropy(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    // Losses run in float32 under `torch.autocast`.
    let [x] = cx.autocast_f32([args.tensor("self")?])?;
    let smoothing = args.float("label_smoothing")?;
    let b = &mut *cx.b;
    let dtype = support::dtype(b, x)?;
    let class_dim = usize::from(support::rank(b, x)? > 1);
    let log_probs = log_softmax_of(b, x, class_dim)?;
    let target = args.tensor("target")?;
    if support::dtype(b, target)? != DType::I64 && support::dtype(b, target)? != DType::I32 {
        // Class probabilities: -sum_c w_c t_c log p_c.
        if args.opt_tensor("weight")?.is_some() || smoothing != 0.0 {
            bail!("cross entropy with class probabilities, weights or label smoothing");
        }
        let target = support::convert(b, target, dtype)?;
        let product = b.multiply(log_probs, target)?;
        let summed = reduce(b, BinaryOp::Add, product, &[class_dim], false)?;
        let losses = b.negate(summed)?;
        let reduction = args.int("reduction")?;
        let count = support::numel(&support::shape(b, losses)?);
        return one(reduced(b, losses, None, reduction, count)?);
    }
    if smoothing != 0.0 {
        bail!("cross entropy with label smoothing");
    }
    nll(cx, args, log_probs, class_dim)
}

fn nll_loss(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let [x] = cx.autocast_f32([args.tensor("self")?])?;
    let class_dim = usize::from(support::rank(cx.b, x)? > 1);
    nll(cx, args, x, class_dim)
}

/// `-w[t] * log_probs[t]` per element whose target is not `ignore_index`, reduced as asked
/// (a mean divides by the sum of the targets' weights, as torch does).
fn nll(cx: &mut Cx<'_>, args: &Args<'_>, log_probs: Value, class_dim: usize) -> OpResult<Vec<Val>> {
    let target = args.tensor("target")?;
    let weight = match args.opt_tensor("weight")? {
        Some(weight) => Some(cx.autocast_f32([weight])?[0]),
        None => None,
    };
    let ignore = args.int("ignore_index")?;
    let reduction = args.int("reduction")?;
    let b = &mut *cx.b;
    let shape = support::shape(b, log_probs)?;
    let target = support::convert(b, target, DType::I64)?;
    let target_shape = support::shape(b, target)?;
    let expected: Vec<i64> = shape
        .iter()
        .enumerate()
        .filter(|&(d, _)| d != class_dim || shape.len() == 1)
        .map(|(_, &size)| size)
        .collect();
    if shape.len() > 1 && target_shape != expected {
        bail!("the target has shape {target_shape:?}, but input {shape:?} needs {expected:?}");
    }
    // One-hot selection of the target class: differentiable, no gather.
    let classes = TensorType::new(support::ir_shape(&shape), element_type(DType::I64)?);
    let iota = b.iota(classes, class_dim as i64)?;
    let target_b = broadcast_back(b, target, &[class_dim], &shape)?;
    let hit = b.compare(ComparisonDirection::Eq, iota, target_b)?;
    let zero = support::like(b, log_probs, Scalar::Float(0.0))?;
    let mut picked = b.select(hit, log_probs, zero)?;
    let mut target_weight = None;
    if let Some(weight) = weight {
        let weight = support::convert(b, weight, support::dtype(b, log_probs)?)?;
        let weight = support::broadcast_in_dim(b, weight, &[class_dim as i64], &shape)?;
        picked = b.multiply(picked, weight)?;
        let weights = b.select(hit, weight, zero)?;
        target_weight = Some(reduce(b, BinaryOp::Add, weights, &[class_dim], false)?);
    }
    let summed = reduce(b, BinaryOp::Add, picked, &[class_dim], false)?;
    let losses = b.negate(summed)?;
    let ignored = support::like(b, target, Scalar::Int(ignore))?;
    let valid = b.compare(ComparisonDirection::Ne, target, ignored)?;
    let zero = support::like(b, losses, Scalar::Float(0.0))?;
    let losses = b.select(valid, losses, zero)?;
    let unit = support::like(b, losses, Scalar::Float(1.0))?;
    let counted = b.select(valid, target_weight.unwrap_or(unit), zero)?;
    let count = support::numel(&support::shape(b, losses)?);
    one(reduced(b, losses, Some(counted), reduction, count)?)
}

/// `(self - target)²`, broadcast and promoted like `sub`, then reduced.
fn mse_loss(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let (x, target) = (args.tensor("self")?, args.tensor("target")?);
    let b = &mut *cx.b;
    let dtype = promote_types(support::dtype(b, x)?, support::dtype(b, target)?)?;
    let x = support::convert(b, x, dtype)?;
    let target = support::convert(b, target, dtype)?;
    let difference = support::binary(b, BinaryOp::Subtract, x, target)?;
    let squares = b.multiply(difference, difference)?;
    let count = support::numel(&support::shape(b, squares)?);
    one(reduced(b, squares, None, args.int("reduction")?, count)?)
}

/// `none`, `sum` or `mean` of per-element losses; a mean divides by the sum of `weights` when
/// given, else by `count`.
fn reduced(
    b: &mut FunctionBuilder,
    losses: Value,
    weights: Option<Value>,
    reduction: i64,
    count: i64,
) -> OpResult<Value> {
    let all: Vec<usize> = (0..support::rank(b, losses)?).collect();
    match reduction {
        NONE => Ok(losses),
        SUM => reduce(b, BinaryOp::Add, losses, &all, false),
        MEAN => {
            let total = reduce(b, BinaryOp::Add, losses, &all, false)?;
            let denominator = match weights {
                Some(weights) => reduce(b, BinaryOp::Add, weights, &all, false)?,
                None => support::like(b, total, Scalar::Float(count as f64))?,
            };
            Ok(b.divide(total, denominator)?)
        }
        other => bail!("reduction {other} (torch knows 0: none, 1: mean, 2: sum)"),
    }
}
