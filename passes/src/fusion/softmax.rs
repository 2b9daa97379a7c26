//! Softmax over one axis: `exp(x - max(x)) / sum(exp(x - max(x)))`.

use tpuc_ir::{BinaryOp, Function, NamedAttrs, OpId, OpKind, UnaryOp, Value};

use super::matcher::{Taker, i64_attr};
use super::names;
use super::outline::{Match, Operand};

/// The softmax computing `value`: its input and axis.
pub fn softmax_of(t: &mut Taker<'_>, value: Value) -> Option<(Value, i64)> {
    let (e, sum) = t.binary(value, BinaryOp::Divide)?;
    let dims = reduced_dims(t.f, sum)?;
    let [axis] = dims[..] else { return None };
    let total = t.broadcast_back(sum, &dims)?;
    let (summed, _) = t.reduce(total, BinaryOp::Add, Some(0.0))?;
    if summed != e {
        return None;
    }
    let shifted = t.unary(e, UnaryOp::Exponential)?;
    let (x, max) = t.binary(shifted, BinaryOp::Subtract)?;
    let max = t.broadcast_back(max, &dims)?;
    let (maxed, max_dims) = t.reduce(max, BinaryOp::Maximum, Some(f64::NEG_INFINITY))?;
    (maxed == x && max_dims == dims).then_some((x, axis))
}

/// The dimensions reduced by the reduction a broadcast (of it, or of it reshaped to keep the
/// reduced dimensions) re-expands.
fn reduced_dims(f: &Function, broadcast: Value) -> Option<Vec<i64>> {
    let op = f.op(f.defining_op(broadcast)?);
    if !matches!(op.kind, OpKind::BroadcastInDim { .. }) {
        return None;
    }
    let mut inner = f.op(f.defining_op(op.operands[0])?);
    if inner.kind == OpKind::Reshape {
        inner = f.op(f.defining_op(inner.operands[0])?);
    }
    match &inner.kind {
        OpKind::Reduce { dimensions } => Some(dimensions.clone()),
        _ => None,
    }
}

pub fn softmax(f: &Function, root: OpId) -> Option<Match> {
    let out = *f.op(root).results.first()?;
    let mut t = Taker::new(f);
    let (x, axis) = softmax_of(&mut t, out)?;
    let m = Match {
        name: names::SOFTMAX,
        version: 1,
        attributes: NamedAttrs::new().with("axis", i64_attr(axis)),
        ops: t.ops,
        operands: vec![Operand::plain(x)],
        results: vec![out],
        result_perm: None,
        result_shape: None,
    };
    Some(super::widen_upcast(f, m))
}
