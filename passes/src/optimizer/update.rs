//! PyTorch's update formulas (`torch/optim/sgd.py`, `adam.py`: the single-tensor, non-fused
//! paths) as StableHLO, one parameter at a time.

use tpuc_ir::{BinaryOp, ComparisonDirection, ElementType, OpBuilder, Result, Value};

use super::spec::{OptimizerSpec, Rule};

/// The shared step count before this step (`step`, float32 scalar) and after it.
pub(super) struct StepCount {
    pub before: Value,
    pub after: Value,
}

/// `clip_grad_norm_(parameters, max_norm)`: every gradient scaled by
/// `min(1, max_norm / (total_norm + 1e-6))`, the total norm over all gradients.
pub(super) fn clip(b: &mut OpBuilder<'_>, gradients: &mut [Value], max_norm: f64) -> Result<()> {
    let mut total: Option<Value> = None;
    for &gradient in gradients.iter() {
        let squares = b.multiply(gradient, gradient)?;
        let squares = to_f32(b, squares)?;
        let zero = b.splat(ElementType::F32, [], 0.0)?;
        let rank = b.tensor_type(squares)?.rank() as i64;
        let dims: Vec<i64> = (0..rank).collect();
        let sum = b.reduce_with(BinaryOp::Add, squares, zero, &dims)?;
        total = Some(match total {
            Some(total) => b.add(total, sum)?,
            None => sum,
        });
    }
    let Some(total) = total else {
        return Ok(());
    };
    let norm = b.sqrt(total)?;
    let tiny = b.splat(ElementType::F32, [], 1e-6)?;
    let denominator = b.add(norm, tiny)?;
    let limit = b.splat(ElementType::F32, [], max_norm)?;
    let coefficient = b.divide(limit, denominator)?;
    let one = b.splat(ElementType::F32, [], 1.0)?;
    let coefficient = b.minimum(coefficient, one)?;
    for gradient in gradients.iter_mut() {
        let scale = spread(b, coefficient, *gradient)?;
        *gradient = b.multiply(*gradient, scale)?;
    }
    Ok(())
}

/// What one parameter's update reads: the parameter, its gradient, its state (in
/// [`OptimizerSpec::slots`] order) and the shared step count.
pub(super) struct Inputs<'a> {
    pub parameter: Value,
    pub gradient: Value,
    pub state: &'a [Value],
    pub step: &'a StepCount,
}

/// One parameter's update: its new value and new state (in [`OptimizerSpec::slots`] order).
pub(super) fn update(
    b: &mut OpBuilder<'_>,
    spec: &OptimizerSpec,
    inputs: Inputs<'_>,
) -> Result<(Value, Vec<Value>)> {
    match spec.rule {
        Rule::Sgd {
            momentum,
            dampening,
            nesterov,
        } => sgd(b, spec, inputs, momentum, dampening, nesterov),
        Rule::Adam {
            decoupled,
            beta1,
            beta2,
            eps,
        } => adam(b, spec, inputs, decoupled, (beta1, beta2), eps),
    }
}

fn sgd(
    b: &mut OpBuilder<'_>,
    spec: &OptimizerSpec,
    Inputs {
        parameter,
        gradient,
        state,
        step,
    }: Inputs<'_>,
    momentum: f64,
    dampening: f64,
    nesterov: bool,
) -> Result<(Value, Vec<Value>)> {
    let mut direction = gradient;
    if spec.weight_decay != 0.0 {
        let decay = times(b, parameter, spec.weight_decay)?;
        direction = b.add(direction, decay)?;
    }
    let mut new_state = Vec::new();
    if momentum != 0.0 {
        let buffer = state[0];
        // The buffer starts as the first gradient, then follows
        // `momentum * buffer + (1 - dampening) * gradient`.
        let kept = times(b, buffer, momentum)?;
        let fresh = times(b, direction, 1.0 - dampening)?;
        let followed = b.add(kept, fresh)?;
        let zero = b.splat(ElementType::F32, [], 0.0)?;
        let first = b.compare(ComparisonDirection::Eq, step.before, zero)?;
        let shape = b.tensor_type(direction)?.shape.clone();
        let first = b.broadcast_in_dim(first, &[], shape)?;
        let buffer = b.select(first, direction, followed)?;
        new_state.push(buffer);
        direction = if nesterov {
            let ahead = times(b, buffer, momentum)?;
            b.add(direction, ahead)?
        } else {
            buffer
        };
    }
    let change = times(b, direction, spec.lr)?;
    Ok((b.subtract(parameter, change)?, new_state))
}

fn adam(
    b: &mut OpBuilder<'_>,
    spec: &OptimizerSpec,
    Inputs {
        parameter,
        gradient,
        state,
        step,
    }: Inputs<'_>,
    decoupled: bool,
    (beta1, beta2): (f64, f64),
    eps: f64,
) -> Result<(Value, Vec<Value>)> {
    let (exp_avg, exp_avg_sq) = (state[0], state[1]);
    let mut parameter = parameter;
    let mut gradient = gradient;
    if spec.weight_decay != 0.0 {
        if decoupled {
            parameter = times(b, parameter, 1.0 - spec.lr * spec.weight_decay)?;
        } else {
            let decay = times(b, parameter, spec.weight_decay)?;
            gradient = b.add(gradient, decay)?;
        }
    }
    // exp_avg.lerp_(grad, 1 - beta1)
    let difference = b.subtract(gradient, exp_avg)?;
    let moved = times(b, difference, 1.0 - beta1)?;
    let exp_avg = b.add(exp_avg, moved)?;
    // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    let kept = times(b, exp_avg_sq, beta2)?;
    let square = b.multiply(gradient, gradient)?;
    let fresh = times(b, square, 1.0 - beta2)?;
    let exp_avg_sq = b.add(kept, fresh)?;
    // step_size = lr / (1 - beta1^t); denom = sqrt(exp_avg_sq) / sqrt(1 - beta2^t) + eps
    let correction1 = bias_correction(b, beta1, step.after)?;
    let correction2 = bias_correction(b, beta2, step.after)?;
    let lr = b.splat(ElementType::F32, [], spec.lr)?;
    let step_size = b.divide(lr, correction1)?;
    let correction2_sqrt = b.sqrt(correction2)?;
    let root = b.sqrt(exp_avg_sq)?;
    let correction2_sqrt = spread(b, correction2_sqrt, root)?;
    let scaled = b.divide(root, correction2_sqrt)?;
    let epsilon = splat_like(b, scaled, eps)?;
    let denominator = b.add(scaled, epsilon)?;
    let ratio = b.divide(exp_avg, denominator)?;
    let step_size = spread(b, step_size, ratio)?;
    let change = b.multiply(ratio, step_size)?;
    let parameter = b.subtract(parameter, change)?;
    Ok((parameter, vec![exp_avg, exp_avg_sq]))
}

/// `1 - beta^t` (float32 scalar).
fn bias_correction(b: &mut OpBuilder<'_>, beta: f64, t: Value) -> Result<Value> {
    let beta = b.splat(ElementType::F32, [], beta)?;
    let power = b.power(beta, t)?;
    let one = b.splat(ElementType::F32, [], 1.0)?;
    b.subtract(one, power)
}

/// `value * factor`.
fn times(b: &mut OpBuilder<'_>, value: Value, factor: f64) -> Result<Value> {
    let factor = splat_like(b, value, factor)?;
    b.multiply(value, factor)
}

fn splat_like(b: &mut OpBuilder<'_>, like: Value, value: f64) -> Result<Value> {
    let ty = b.tensor_type(like)?.clone();
    b.splat(ty.element, ty.shape, value)
}

/// A float32 scalar broadcast to `like`'s shape and element type.
fn spread(b: &mut OpBuilder<'_>, scalar: Value, like: Value) -> Result<Value> {
    let ty = b.tensor_type(like)?.clone();
    let scalar = if ty.element == ElementType::F32 {
        scalar
    } else {
        b.convert(scalar, ty.element)?
    };
    b.broadcast_in_dim(scalar, &[], ty.shape)
}

fn to_f32(b: &mut OpBuilder<'_>, value: Value) -> Result<Value> {
    if b.tensor_type(value)?.element == ElementType::F32 {
        Ok(value)
    } else {
        b.convert(value, ElementType::F32)
    }
}
