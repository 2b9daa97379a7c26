//! The attention logits a mask applies to: `q·kᵀ`, possibly scaled by a constant, then
//! possibly soft-capped (`tanh(s / cap) · cap`, as Gemma 2 writes it), then possibly biased
//! (`s + bias`, as ALiBi adds its per-head slopes; BLOOM adds its bias to a `[B·H, L, S]` view
//! of the scores, read through the reshape into that view and the one back). Only in this
//! order: a bias under the soft cap or a scale after it is another computation, left alone.

use tpuc_ir::{BinaryOp, Function, OpKind, UnaryOp, Value};

use super::attention::{dot, through_leading_ones};
use super::matcher::{Taker, shape, splat_value};

/// An additive bias on the logits.
pub struct Bias {
    pub value: Value,
    /// The shape of the scores it is added to: the bias's own, or the scores' outside the
    /// view it was added in.
    pub scores_shape: Vec<u64>,
}

pub struct Logits {
    /// `q·kᵀ` (the dot product's result).
    pub product: Value,
    /// The multiplier of the product (1.0 when absent).
    pub scale: f64,
    /// The cap `c` of `tanh(s / c) · c`.
    pub soft_cap: Option<f64>,
    pub bias: Option<Bias>,
}

/// Reads (taking them) the logits computing `scores`; the product is not checked.
pub fn read(t: &mut Taker<'_>, scores: Value) -> Logits {
    let (scores, bias) = match biased(t, scores) {
        Some((s, bias)) => (s, Some(bias)),
        None => (scores, None),
    };
    let (scores, soft_cap) = match soft_capped(t, scores) {
        Some((s, cap)) => (s, Some(cap)),
        None => (scores, None),
    };
    let (product, scale) = scaled_product(t, scores);
    Logits {
        product,
        scale,
        soft_cap,
        bias,
    }
}

/// Whether `value` is attention logits computed from a dot product.
pub fn is_logits(f: &Function, value: Value) -> bool {
    let mut probe = Taker::new(f);
    let logits = read(&mut probe, value);
    dot(&mut probe, logits.product).is_some()
}

/// Whether `value` is unbiased logits: a scaled product, possibly soft-capped.
fn is_unbiased_logits(f: &Function, value: Value) -> bool {
    let mut probe = Taker::new(f);
    let value = soft_capped(&mut probe, value).map_or(value, |(s, _)| s);
    let (product, _) = scaled_product(&mut probe, value);
    dot(&mut probe, product).is_some()
}

/// `s + bias` (either order) with `s` unbiased logits, or the same added in another view of
/// the scores: `reshape(reshape(s) + bias)`, the reshapes inverse to each other. `s` and the
/// bias.
fn biased(t: &mut Taker<'_>, scores: Value) -> Option<(Value, Bias)> {
    let f = t.f;
    let scores_shape = shape(f, scores)?;
    let mut probe = t.fork();
    let view = probe
        .take(scores, |k| *k == OpKind::Reshape)
        .map(|op| op.operands[0]);
    let sum = view.unwrap_or(scores);
    for (viewed, bias) in probe.both_orders(sum, BinaryOp::Add)? {
        let mut attempt = probe.fork();
        let s = match view {
            Some(_) => match attempt.take(viewed, |k| *k == OpKind::Reshape) {
                Some(op) if shape(f, op.operands[0]).as_ref() == Some(&scores_shape) => {
                    op.operands[0]
                }
                _ => continue,
            },
            None => viewed,
        };
        if is_unbiased_logits(f, s) && attempt.binary(sum, BinaryOp::Add).is_some() {
            *t = attempt;
            let bias = Bias {
                value: bias,
                scores_shape,
            };
            return Some((s, bias));
        }
    }
    None
}

/// `tanh(s / c) · c` (either order of the product) for one splat `c > 0` that is exactly an
/// f32: `s` and `c`. Two different constants are not a soft cap.
fn soft_capped(t: &mut Taker<'_>, value: Value) -> Option<(Value, f64)> {
    let f = t.f;
    let mut probe = t.fork();
    let (capped, cap) = probe.with_splat(value, BinaryOp::Multiply)?;
    let ratio = probe.unary(capped, UnaryOp::Tanh)?;
    let (s, divisor) = probe.peek_binary(ratio, BinaryOp::Divide)?;
    let exact = cap.is_finite() && cap > 0.0 && f64::from(cap as f32) == cap;
    if !exact || splat_value(f, divisor) != Some(cap) || splat_value(f, s).is_some() {
        return None;
    }
    probe.binary(ratio, BinaryOp::Divide)?;
    *t = probe;
    Some((s, cap))
}

/// `x · c`, `c · x` or `x / c` for a splat `c`: `x` and the multiplier (`1 / c` for a
/// division).
fn scaled(t: &mut Taker<'_>, value: Value) -> Option<(Value, f64)> {
    if let Some(found) = t.with_splat(value, BinaryOp::Multiply) {
        return Some(found);
    }
    let (x, c) = t.peek_binary(value, BinaryOp::Divide)?;
    let c = splat_value(t.f, c).filter(|c| c.is_finite() && *c != 0.0)?;
    if splat_value(t.f, x).is_some() {
        return None;
    }
    t.binary(value, BinaryOp::Divide)?;
    Some((x, 1.0 / c))
}

/// `q·kᵀ`, possibly scaled, possibly through leading-ones reshapes: the product's value and
/// the scale.
fn scaled_product(t: &mut Taker<'_>, scores: Value) -> (Value, f64) {
    let scores = through_leading_ones(t, scores);
    let (product, scale) = scaled(t, scores).unwrap_or((scores, 1.0));
    (through_leading_ones(t, product), scale)
}
