//! The masks attention applies to its scores: causal (`key ≤ query`, from iotas, as a `select`
//! or as an additive `0/-inf` mask) or given (a boolean `select` operand or an added one).
//! Scores have any rank; their last two dimensions are the query and key positions.

use tpuc_ir::{BinaryOp, ComparisonDirection, Function, OpKind, Value};

use super::matcher::{Taker, rank, splat_value};

/// A finite fill at or below this masks a causal entry out as `-inf` does: `exp` of anything
/// that far below the row's maximum (a causal row always keeps its diagonal) is exactly 0 in
/// f32 and bf16. JAX's own attention examples fill with `-1e9`.
const MASKED_OUT: f64 = -1e8;

/// A mask on the scores: what was masked and how.
pub enum Mask {
    None,
    Causal,
    /// Boolean (`select(mask, s, -inf)`) or additive (`s + mask`), given as an operand.
    Operand(Value),
}

/// `value` with the broadcasts defining it peeled: the value inside and, per its dimension,
/// the dimension of `value` it becomes.
fn through_broadcasts(f: &Function, value: Value) -> Option<(Value, Vec<i64>)> {
    let mut map: Vec<i64> = (0..rank(f, value)? as i64).collect();
    let mut inner = value;
    while let Some(op) = f.defining_op(inner).map(|op| f.op(op)) {
        let OpKind::BroadcastInDim { dims } = &op.kind else {
            break;
        };
        map = dims.iter().map(|&d| map[d as usize]).collect();
        inner = op.operands[0];
    }
    Some((inner, map))
}

/// The dimension of `value` along which an iota (possibly broadcast) counts.
fn position_dim(f: &Function, value: Value) -> Option<i64> {
    let (inner, map) = through_broadcasts(f, value)?;
    match f.op(f.defining_op(inner)?).kind {
        OpKind::Iota { dimension } => map.get(dimension as usize).copied(),
        _ => None,
    }
}

/// Whether the boolean `pred` (a constant expression, possibly broadcast) is true exactly
/// where the key position (the scores' last dimension) is at most the query position (the
/// one before); `outer` maps `pred`'s dimensions to those of the scores, of rank `rank`.
fn is_causal_in(f: &Function, pred: Value, outer: &[i64], rank: usize) -> bool {
    let Some((compare, inner)) = through_broadcasts(f, pred) else {
        return false;
    };
    let Some(cmp) = f.defining_op(compare).map(|op| f.op(op)) else {
        return false;
    };
    let OpKind::Compare { direction, .. } = cmp.kind else {
        return false;
    };
    let at = |v| {
        position_dim(f, v)
            .and_then(|d| inner.get(d as usize).copied())
            .and_then(|d| outer.get(d as usize).copied())
    };
    let (Some(a), Some(b)) = (at(cmp.operands[0]), at(cmp.operands[1])) else {
        return false;
    };
    let (query, key) = (rank as i64 - 2, rank as i64 - 1);
    (a, b, direction) == (key, query, ComparisonDirection::Le)
        || (a, b, direction) == (query, key, ComparisonDirection::Ge)
}

fn is_causal(f: &Function, pred: Value) -> bool {
    let Some(r) = rank(f, pred) else { return false };
    let identity: Vec<i64> = (0..r as i64).collect();
    super::is_constant_expr(f, pred) && is_causal_in(f, pred, &identity, r)
}

/// Whether `fill` masks out: `-inf`, or (`causal` only) a finite value at most [`MASKED_OUT`].
fn masks_out(f: &Function, fill: Value, causal: bool) -> bool {
    splat_value(f, fill).is_some_and(|x| x == f64::NEG_INFINITY || (causal && x <= MASKED_OUT))
}

/// Whether the additive `mask` (a constant expression) is `0` where causal and masks out
/// elsewhere.
fn is_additive_causal(f: &Function, mask: Value) -> bool {
    let Some((select, map)) = through_broadcasts(f, mask) else {
        return false;
    };
    let (Some(op), Some(r)) = (f.defining_op(select).map(|op| f.op(op)), rank(f, mask)) else {
        return false;
    };
    super::is_constant_expr(f, mask)
        && op.kind == OpKind::Select
        && splat_value(f, op.operands[1]) == Some(0.0)
        && masks_out(f, op.operands[2], true)
        && is_causal_in(f, op.operands[0], &map, r)
}

/// Peels one `select(pred, s, fill)` mask off `scores`: the scores before it.
fn peel_select(t: &mut Taker<'_>, scores: Value) -> Option<(Value, Mask)> {
    let f = t.f;
    let op = f.op(f.defining_op(scores)?);
    let [pred, s, fill] = op.operands[..] else {
        return None;
    };
    if op.kind != OpKind::Select || rank(f, pred)? != rank(f, scores)? {
        return None;
    }
    let mask = if is_causal(f, pred) && masks_out(f, fill, true) {
        Mask::Causal
    } else if masks_out(f, fill, false) {
        Mask::Operand(pred)
    } else {
        return None;
    };
    t.take(scores, |_| true)?;
    Some((s, mask))
}

/// Peels `s + mask` off `scores`, `s` the operand `is_scores` recognises: `s` and the mask.
fn peel_added(
    t: &mut Taker<'_>,
    scores: Value,
    is_scores: impl Fn(Value) -> bool,
) -> Option<(Value, Mask)> {
    let (a, b) = t.peek_binary(scores, BinaryOp::Add)?;
    let (s, mask) = if is_scores(a) {
        (a, b)
    } else if is_scores(b) {
        (b, a)
    } else {
        return None;
    };
    t.binary(scores, BinaryOp::Add)?;
    if is_additive_causal(t.f, mask) {
        return Some((s, Mask::Causal));
    }
    Some((s, Mask::Operand(mask)))
}

/// The mask applied to `scores`, if any, and the scores before it; `None` when the masks
/// cannot be expressed by one composite (a causal mask under a given one).
pub fn peel(
    t: &mut Taker<'_>,
    scores: Value,
    is_scores: impl Fn(Value) -> bool,
) -> Option<(Value, Mask)> {
    let found = peel_select(t, scores).or_else(|| peel_added(t, scores, is_scores));
    let Some((s, mask)) = found else {
        return Some((scores, Mask::None));
    };
    if matches!(mask, Mask::Operand(_))
        && let Some((_, Mask::Causal)) = peel_select(&mut t.fork(), s)
    {
        return None;
    }
    Some((s, mask))
}
