//! Scaled dot-product attention: `softmax(mask(q·kᵀ · scale)) · v` over two batch dimensions
//! (batch, heads), with an optional causal mask (from iotas), boolean or additive mask,
//! f32 softmax upcast and grouped-query keys and values (kv heads broadcast to the heads).
//! The composite takes `q [B, H, L, E]`, `k [B, KVH, S, E]`, `v [B, KVH, S, Ev]` (transposed
//! into that layout outside the composite when the dot products read another one).

use tpuc_ir::{
    Attribute, BinaryOp, ComparisonDirection, DotDims, Function, NamedAttrs, OpId, OpKind, Value,
};

use super::matcher::{Taker, element, f32_attr, i64_attr, rank, shape, splat_value};
use super::names;
use super::outline::{Match, Operand};
use super::softmax::softmax_of;

/// How one operand of a dot product is laid out: its dims in `[batch0, batch1, free,
/// contracted]` order.
fn layout(dims: &DotDims, lhs: bool, operand_rank: usize) -> Option<[i64; 4]> {
    let (batch, contract) = if lhs {
        (&dims.lhs_batching, &dims.lhs_contracting)
    } else {
        (&dims.rhs_batching, &dims.rhs_contracting)
    };
    let (&[b0, b1], &[c]) = (batch.as_slice(), contract.as_slice()) else {
        return None;
    };
    if operand_rank != 4 {
        return None;
    }
    let free = (0..4).find(|d| ![b0, b1, c].contains(d))?;
    Some([b0, b1, free, c])
}

fn dot<'f>(t: &mut Taker<'f>, value: Value) -> Option<(Value, Value, DotDims)> {
    let op = t.take(value, |k| matches!(k, OpKind::DotGeneral { .. }))?;
    let OpKind::DotGeneral { dims, .. } = &op.kind else {
        return None;
    };
    Some((op.operands[0], op.operands[1], dims.clone()))
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
/// where the key position (score dim 3) is at most the query position (dim 2); `outer` maps
/// `pred`'s dimensions to the scores'.
fn is_causal_in(f: &Function, pred: Value, outer: &[i64]) -> bool {
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
    matches!(
        (a, b, direction),
        (3, 2, ComparisonDirection::Le) | (2, 3, ComparisonDirection::Ge)
    )
}

fn is_causal(f: &Function, pred: Value) -> bool {
    is_causal_in(f, pred, &[0, 1, 2, 3])
}

/// Whether the additive `mask` (a constant expression) is `0` where causal and `-inf`
/// elsewhere.
fn is_additive_causal(f: &Function, mask: Value) -> bool {
    let Some((select, map)) = through_broadcasts(f, mask) else {
        return false;
    };
    let Some(op) = f.defining_op(select).map(|op| f.op(op)) else {
        return false;
    };
    op.kind == OpKind::Select
        && splat_value(f, op.operands[1]) == Some(0.0)
        && splat_value(f, op.operands[2]) == Some(f64::NEG_INFINITY)
        && is_causal_in(f, op.operands[0], &map)
}

/// A mask on the scores: what was masked and how.
enum Mask {
    None,
    Causal,
    /// Boolean (`select(mask, s, -inf)`) or additive (`s + mask`), given as an operand.
    Operand(Value),
}

/// Peels one mask off `scores`: the scores before it.
fn peel_mask(t: &mut Taker<'_>, scores: Value) -> Option<(Value, Mask)> {
    let f = t.f;
    if let Some(op) = f.defining_op(scores).map(|op| f.op(op))
        && op.kind == OpKind::Select
        && splat_value(f, op.operands[2]) == Some(f64::NEG_INFINITY)
    {
        let [pred, s, _] = op.operands[..] else {
            return None;
        };
        t.take(scores, |_| true)?;
        let constant = super::is_constant_expr(f, pred);
        if constant && is_causal(f, pred) {
            return Some((s, Mask::Causal));
        }
        return Some((s, Mask::Operand(pred)));
    }
    None
}

fn additive_mask(t: &mut Taker<'_>, scores: Value) -> Option<(Value, Value)> {
    let (a, b) = t.peek_binary(scores, BinaryOp::Add)?;
    // The mask is the operand that is not the scaled product of the queries and keys.
    let is_scores = |v: Value| {
        let mut probe = Taker::new(t.f);
        let (s, _) = probe.with_splat(v, BinaryOp::Multiply).unwrap_or((v, 1.0));
        dot(&mut probe, s).is_some()
    };
    let (s, mask) = if is_scores(a) {
        (a, b)
    } else if is_scores(b) {
        (b, a)
    } else {
        return None;
    };
    t.binary(scores, BinaryOp::Add)?;
    Some((s, mask))
}

/// `reshape(broadcast_in_dim(kv))` repeating the head dimension `head_dim` of `kv` (grouped-
/// query attention): `kv` with its original heads.
fn repeated_heads(t: &mut Taker<'_>, value: Value, head_dim: i64) -> Option<Value> {
    let f = t.f;
    let mut probe = Taker::new(f);
    let reshape = probe.take(value, |k| *k == OpKind::Reshape)?;
    let expanded = reshape.operands[0];
    let broadcast = probe.take(expanded, |k| matches!(k, OpKind::BroadcastInDim { .. }))?;
    let OpKind::BroadcastInDim { dims } = &broadcast.kind else {
        return None;
    };
    let kv = broadcast.operands[0];
    let (out, wide, narrow) = (shape(f, value)?, shape(f, expanded)?, shape(f, kv)?);
    let h = head_dim as usize;
    // `wide` is `out` with the head dimension split into `[kv heads, repeats]` (the repeats
    // a new broadcast dimension right after the kv heads), `kv` is `wide` without it.
    let kv_heads = narrow.get(h).copied()?;
    let mut expect_wide = out.clone();
    expect_wide.splice(h..=h, [kv_heads, out[h].checked_div(kv_heads)?]);
    let expect_dims: Vec<i64> = (0..narrow.len() as i64)
        .map(|d| if d > head_dim { d + 1 } else { d })
        .collect();
    if wide != expect_wide || *dims != expect_dims || kv_heads * (out[h] / kv_heads) != out[h] {
        return None;
    }
    t.ops.extend(probe.ops);
    Some(kv)
}

/// `select(all(x == -inf), 0, p)` over the last axis, `p` the softmax of `x` (a row with every
/// key masked gives zeros): `p`.
fn safe_softmax(t: &mut Taker<'_>, value: Value) -> Option<Value> {
    let f = t.f;
    let op = f.op(f.defining_op(value)?);
    if op.kind != OpKind::Select || splat_value(f, op.operands[1]) != Some(0.0) {
        return None;
    }
    let [all_masked, _, p] = op.operands[..] else {
        return None;
    };
    let mut probe = Taker::new(f);
    let reduced = probe.broadcast_back(all_masked, &[3])?;
    let (masked, dims) = probe.reduce(reduced, BinaryOp::And, None)?;
    let cmp = probe.take(masked, |k| {
        matches!(
            k,
            OpKind::Compare {
                direction: ComparisonDirection::Eq,
                ..
            }
        )
    })?;
    let [x, inf] = cmp.operands[..] else {
        return None;
    };
    let mut inner = Taker::new(f);
    let (softmax_input, _) = softmax_of(&mut inner, p)?;
    if dims != [3] || splat_value(f, inf) != Some(f64::NEG_INFINITY) || softmax_input != x {
        return None;
    }
    t.take(value, |_| true)?;
    t.ops.extend(probe.ops);
    Some(p)
}

pub fn attention(f: &Function, root: OpId) -> Option<Match> {
    let out = *f.op(root).results.first()?;
    let mut t = Taker::new(f);
    let (p, v, pv_dims) = dot(&mut t, out)?;
    if pv_dims.lhs_batching != [0, 1] || pv_dims.lhs_contracting != [3] {
        return None;
    }
    let v_layout = layout(&pv_dims, false, rank(f, v)?)?;
    let (p, narrowed) = t.maybe_convert(p);
    let p = safe_softmax(&mut t, p).unwrap_or(p);
    let (scores, axis) = softmax_of(&mut t, p)?;
    if axis != 3 {
        return None;
    }
    let (scores, widened) = t.maybe_convert(scores);
    if narrowed != widened || (widened && element(f, scores) == element(f, p)) {
        return None;
    }
    let (mut scores, mut mask) = match peel_mask(&mut t, scores) {
        Some(found) => found,
        None => match additive_mask(&mut t, scores) {
            Some((s, m)) if super::is_constant_expr(f, m) && is_additive_causal(f, m) => {
                (s, Mask::Causal)
            }
            Some((s, m)) => (s, Mask::Operand(m)),
            None => (scores, Mask::None),
        },
    };
    if matches!(mask, Mask::Operand(_))
        && let Some((s, Mask::Causal)) = peel_mask(&mut t, scores)
    {
        // A causal mask under a given one: both cannot be expressed by one composite.
        let _ = s;
        return None;
    }
    if let Mask::None = mask
        && let Some((s, inner)) = peel_mask(&mut t, scores)
    {
        scores = s;
        mask = inner;
    }
    let (qk, scale) = t
        .with_splat(scores, BinaryOp::Multiply)
        .unwrap_or((scores, 1.0));
    let (q, k, qk_dims) = dot(&mut t, qk)?;
    let q_layout = layout(&qk_dims, true, rank(f, q)?)?;
    let k_layout = layout(&qk_dims, false, rank(f, k)?)?;
    let q_shape = shape(f, q)?;
    let heads = q_shape[q_layout[1] as usize] as i64;
    let (k, v, kv_heads) = match (
        repeated_heads(&mut t, k, k_layout[1]),
        repeated_heads(&mut t, v, v_layout[1]),
    ) {
        (Some(k0), Some(v0)) => {
            let kv_heads = shape(f, k0)?[k_layout[1] as usize] as i64;
            (k0, v0, kv_heads)
        }
        _ => (k, v, heads),
    };
    let mut operands = vec![
        Operand::permuted(q, q_layout),
        Operand::permuted(k, k_layout),
        Operand::permuted(v, [v_layout[0], v_layout[1], v_layout[3], v_layout[2]]),
    ];
    let causal = matches!(mask, Mask::Causal);
    if let Mask::Operand(m) = mask {
        operands.push(Operand::plain(m));
    }
    let attributes = NamedAttrs::new()
        .with("scale", f32_attr(scale))
        .with("causal", Attribute::Bool(causal))
        .with("heads", i64_attr(heads))
        .with("kv_heads", i64_attr(kv_heads))
        .with("softmax_f32", Attribute::Bool(widened));
    Some(Match {
        name: names::ATTENTION,
        attributes,
        ops: t.ops,
        operands,
        results: vec![out],
        result_shape: None,
    })
}
