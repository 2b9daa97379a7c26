//! Normalizations over the last axis: RMSNorm (`x * rsqrt(mean(x^2) + eps) [* w]`) and
//! LayerNorm (as the lowering writes it: `batch_norm_training` over rows, then `* w + b`).

use tpuc_ir::{BinaryOp, Function, NamedAttrs, OpId, OpKind, UnaryOp, Value};

use super::matcher::{Taker, f32_attr, i64_attr, is_rounded, rank, shape, splat_value};
use super::names;
use super::outline::{Match, Operand};

/// `value = op(y, broadcast_in_dim(w, dims = [last]))` in either order, `w` of rank 1: `y`, `w`.
fn affine<'f>(t: &mut Taker<'f>, value: Value, op: BinaryOp) -> Option<(Value, Value)> {
    let (a, b) = t.peek_binary(value, op)?;
    let last = rank(t.f, value)?.checked_sub(1)? as i64;
    let commutes = op == BinaryOp::Multiply || op == BinaryOp::Add;
    let orders: &[(Value, Value)] = if commutes {
        &[(a, b), (b, a)]
    } else {
        &[(a, b)]
    };
    for &(y, broadcast) in orders {
        let mut attempt = t.fork();
        let Some(op_w) = attempt.take(
            broadcast,
            |k| matches!(k, OpKind::BroadcastInDim { dims } if *dims == [last]),
        ) else {
            continue;
        };
        let w = op_w.operands[0];
        if rank(t.f, w) != Some(1) || splat_value(t.f, w).is_some() {
            continue;
        }
        attempt.binary(value, op)?;
        *t = attempt;
        return Some((y, w));
    }
    None
}

/// `mean(x * x)` over the last axis, as a sum times `1/N` or divided by `N`.
fn mean_square(t: &mut Taker<'_>, value: Value) -> Option<Value> {
    /// How the sum becomes a mean: times this constant, or divided by it.
    enum By {
        Times(f64),
        Over(f64),
    }
    let (sum, by) = if let Some((sum, k)) = t.with_splat(value, BinaryOp::Multiply) {
        (sum, By::Times(k))
    } else {
        let (sum, d) = t.peek_binary(value, BinaryOp::Divide)?;
        let d = splat_value(t.f, d)?;
        t.binary(value, BinaryOp::Divide)?;
        (sum, By::Over(d))
    };
    let sum = t.keepdim(sum).unwrap_or(sum);
    let (square, dims) = t.reduce(sum, BinaryOp::Add, Some(0.0))?;
    let (x, y) = t.binary(square, BinaryOp::Multiply)?;
    let last = rank(t.f, x)?.checked_sub(1)? as i64;
    let size = *shape(t.f, x)?.last()? as f64;
    let exact = match by {
        By::Times(k) => is_rounded(t.f, k, 1.0 / size, value),
        By::Over(d) => d == size,
    };
    (x == y && dims == [last] && exact).then_some(x)
}

/// `x * rsqrt(mean(x^2) + eps)`: `x` and `eps`.
fn rms_normalized(t: &mut Taker<'_>, value: Value) -> Option<(Value, f64)> {
    let (a, b) = t.peek_binary(value, BinaryOp::Multiply)?;
    for (x, scale) in [(a, b), (b, a)] {
        let mut attempt = t.fork();
        let last = rank(t.f, value)?.checked_sub(1)? as i64;
        let r = attempt
            .broadcast_back(scale, &[last])
            .or_else(|| attempt.expand_size_one(scale, last as usize));
        let Some(r) = r else {
            continue;
        };
        let Some(shifted) = attempt.unary(r, UnaryOp::Rsqrt) else {
            continue;
        };
        let Some((mean, eps)) = attempt.with_splat(shifted, BinaryOp::Add) else {
            continue;
        };
        if attempt.binary(value, BinaryOp::Multiply).is_none() {
            continue;
        }
        if mean_square(&mut attempt, mean) == Some(x) {
            *t = attempt;
            return Some((x, eps));
        }
    }
    None
}

pub fn rms_norm(f: &Function, root: OpId) -> Option<Match> {
    let out = *f.op(root).results.first()?;
    let mut t = Taker::new(f);
    let (normalized, weight) = match affine(&mut t, out, BinaryOp::Multiply) {
        Some((y, w)) => (t.maybe_convert(y).0, Some(w)),
        None => (out, None),
    };
    let (x, eps) = rms_normalized(&mut t, normalized)?;
    let (x, _) = t.maybe_convert(x);
    let mut operands = vec![Operand::plain(x)];
    operands.extend(weight.map(Operand::plain));
    Some(super::widen_upcast(
        f,
        Match {
            name: names::RMS_NORM,
            version: 1,
            attributes: NamedAttrs::new().with("epsilon", f32_attr(eps)),
            ops: t.ops,
            operands,
            results: vec![out],
            result_perm: None,
            result_shape: None,
        },
    ))
}

/// LayerNorm over the last axis as the lowering writes it: rows (reshaped to `[1, R, D]`
/// unless already so) through `batch_norm_training` with unit scale and zero offset over
/// feature 1, then optionally `* w` and `+ b`, optionally reshaped back. The composite keeps
/// the input's shape; when the rows are not reshaped back, its result is reshaped to them.
pub fn layer_norm(f: &Function, root: OpId) -> Option<Match> {
    let out = *f.op(root).results.first()?;
    let mut t = Taker::new(f);
    let rows = match t.take(out, |k| *k == OpKind::Reshape) {
        Some(op) => op.operands[0],
        None => out,
    };
    let (rows, bias) = match affine(&mut t, rows, BinaryOp::Add) {
        Some((y, b)) => (y, Some(b)),
        None => (rows, None),
    };
    let (rows, weight) = match affine(&mut t, rows, BinaryOp::Multiply) {
        Some((y, w)) => (y, Some(w)),
        None => (rows, None),
    };
    if bias.is_some() && weight.is_none() {
        return None;
    }
    let bn_op = f.defining_op(rows)?;
    if f.op(bn_op).results.first() != Some(&rows) {
        return None;
    }
    let bn = t.take(rows, |k| {
        matches!(
            k,
            OpKind::BatchNormTraining {
                feature_index: 1,
                ..
            }
        )
    })?;
    let OpKind::BatchNormTraining { epsilon: eps, .. } = bn.kind else {
        return None;
    };
    let [reshaped, scale, offset] = bn.operands[..] else {
        return None;
    };
    if splat_value(f, scale) != Some(1.0) || splat_value(f, offset) != Some(0.0) {
        return None;
    }
    let x = match t.take(reshaped, |k| *k == OpKind::Reshape) {
        Some(op) => op.operands[0],
        None => reshaped,
    };
    let (xs, rs) = (shape(f, x)?, shape(f, reshaped)?);
    let rows_count: u64 = xs[..xs.len().checked_sub(1)?].iter().product();
    if rs != [1, rows_count, *xs.last()?] {
        return None;
    }
    let result_shape = (shape(f, out)? != xs).then(|| xs.clone());
    let mut operands = vec![Operand::plain(x)];
    operands.extend(weight.map(Operand::plain));
    operands.extend(bias.map(Operand::plain));
    let axis = i64_attr(xs.len() as i64 - 1);
    Some(Match {
        name: names::LAYER_NORM,
        version: 1,
        attributes: NamedAttrs::new()
            .with("epsilon", f32_attr(f64::from(eps)))
            .with("axis", axis),
        ops: t.ops,
        operands,
        results: vec![out],
        result_perm: None,
        result_shape,
    })
}
