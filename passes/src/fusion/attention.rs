//! Scaled dot-product attention: `softmax(mask(logits)) · v`, the logits `q·kᵀ · scale`
//! possibly soft-capped and biased (attention_logits.rs), over up to two leading batch-like
//! dimensions (`[B, H, S, D]`, `[H, S, D]` or `[B·H, S, D]`, or none), with an optional mask
//! (attention_mask.rs), f32 softmax upcast and grouped-query keys and values (kv heads
//! broadcast to the heads). Either operand of `p·v` may be the probabilities; reshapes
//! that only add or drop leading size-1 dimensions (a batch of one squeezed out) are read
//! through.
//! The composite always takes `q [B, H, L, E]`, `k [B, KVH, S, E]`, `v [B, KVH, S, Ev]`:
//! operands in another layout are transposed into it outside the composite, and products
//! with fewer batch dimensions get size-1 ones prepended (`[H, S, D]` is read as
//! `[1, H, S, D]`); the decomposition undoes both.

use tpuc_ir::{Attribute, BinaryOp, ComparisonDirection, DotDims, NamedAttrs, OpKind, Value};
use tpuc_ir::{Function, OpId};

use super::attention_logits::{self, Bias};
use super::attention_mask::{self, Mask};
use super::matcher::{Taker, element, f32_attr, i64_attr, rank, shape, splat_value};
use super::names;
use super::outline::{Match, Operand, is_identity};
use super::softmax::softmax_of;

/// The composite's operand rank: `[B, H, S, D]`.
const RANK: usize = 4;

/// How one operand of a dot product is laid out: its dims in `[batch.., free, contracted]`
/// order (at most two batch dimensions).
fn layout(dims: &DotDims, lhs: bool, operand_rank: usize) -> Option<Vec<i64>> {
    let (batch, contract) = if lhs {
        (&dims.lhs_batching, &dims.lhs_contracting)
    } else {
        (&dims.rhs_batching, &dims.rhs_contracting)
    };
    let &[c] = contract.as_slice() else {
        return None;
    };
    if batch.len() > RANK - 2 || operand_rank != batch.len() + 2 {
        return None;
    }
    let free = (0..operand_rank as i64).find(|d| !batch.contains(d) && *d != c)?;
    let mut order = batch.clone();
    order.extend([free, c]);
    Some(order)
}

/// Prepends size-1 dimensions to `shape` up to the composite's rank.
fn padded(shape: Vec<u64>) -> Vec<u64> {
    let mut out = vec![1; RANK.saturating_sub(shape.len())];
    out.extend(shape);
    out
}

/// `value` as a composite operand: transposed by `perm`, then reshaped to rank 4 when it has
/// fewer (batch) dimensions.
fn canonical(f: &Function, value: Value, perm: &[i64]) -> Option<Operand> {
    let operand = Operand::permuted(value, perm);
    if perm.len() == RANK {
        return Some(operand);
    }
    let s = shape(f, value)?;
    Some(operand.reshaped(padded(perm.iter().map(|&d| s[d as usize]).collect())))
}

fn strip_leading_ones(shape: &[u64]) -> &[u64] {
    let ones = shape.iter().take_while(|&&d| d == 1).count();
    &shape[ones..]
}

/// Skips (taking them) the reshapes defining `value` that only add or drop leading size-1
/// dimensions: the value before them.
pub(super) fn through_leading_ones(t: &mut Taker<'_>, mut value: Value) -> Value {
    let f = t.f;
    while let Some(op) = f.defining_op(value).map(|op| f.op(op))
        && op.kind == OpKind::Reshape
        && let (Some(from), Some(to)) = (shape(f, op.operands[0]), shape(f, value))
        && strip_leading_ones(&from) == strip_leading_ones(&to)
        && t.take(value, |_| true).is_some()
    {
        value = op.operands[0];
    }
    value
}

pub(super) fn dot<'f>(t: &mut Taker<'f>, value: Value) -> Option<(Value, Value, DotDims)> {
    let op = t.take(value, |k| matches!(k, OpKind::DotGeneral { .. }))?;
    let OpKind::DotGeneral { dims, .. } = &op.kind else {
        return None;
    };
    Some((op.operands[0], op.operands[1], dims.clone()))
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
    let last = rank(f, value)? as i64 - 1;
    let mut probe = Taker::new(f);
    let reduced = probe.broadcast_back(all_masked, &[last])?;
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
    if dims != [last] || splat_value(f, inf) != Some(f64::NEG_INFINITY) || softmax_input != x {
        return None;
    }
    t.take(value, |_| true)?;
    t.ops.extend(probe.ops);
    Some(p)
}

/// The size of the heads dimension (the last batch dimension) of an operand laid out as
/// `layout` says; 1 without batch dimensions.
fn heads_of(f: &Function, value: Value, layout: &[i64]) -> Option<(u64, Option<i64>)> {
    let Some(&dim) = layout.len().checked_sub(3).map(|i| &layout[i]) else {
        return Some((1, None));
    };
    Some((shape(f, value)?[dim as usize], Some(dim)))
}

/// The bias as a composite operand: in the shape of the scores it is added to (reshaped out
/// of the view it was added in), with size-1 batch dimensions prepended up to rank 4.
fn bias_operand(f: &Function, bias: &Bias) -> Option<Operand> {
    let operand = Operand::plain(bias.value);
    let target = padded(bias.scores_shape.clone());
    if shape(f, bias.value)? == target {
        return Some(operand);
    }
    Some(operand.reshaped(target))
}

pub fn attention(f: &Function, root: OpId) -> Option<Match> {
    let out = *f.op(root).results.first()?;
    [true, false]
        .into_iter()
        .find_map(|p_is_lhs| attention_with(f, out, p_is_lhs))
}

/// The attention computing `out`, whose `p·v` product has the probabilities on the left
/// (`p_is_lhs`) or on the right.
fn attention_with(f: &Function, out: Value, p_is_lhs: bool) -> Option<Match> {
    let mut t = Taker::new(f);
    let (lhs, rhs, pv_dims) = dot(&mut t, out)?;
    let (p, v) = if p_is_lhs { (lhs, rhs) } else { (rhs, lhs) };
    let (p_batch, p_contract) = if p_is_lhs {
        (&pv_dims.lhs_batching, &pv_dims.lhs_contracting)
    } else {
        (&pv_dims.rhs_batching, &pv_dims.rhs_contracting)
    };
    // The probabilities are laid out `[batch.., L, S]` and contracted over the keys.
    let n = p_batch.len() as i64;
    if !is_identity(p_batch) || *p_contract != [n + 1] || rank(f, p)? as i64 != n + 2 {
        return None;
    }
    let v_layout = layout(&pv_dims, !p_is_lhs, rank(f, v)?)?;
    // `p·v` is `[batch.., L, Ev]`, `v·p` is `[batch.., Ev, L]`.
    let result_perm = (!p_is_lhs).then(|| (0..n).chain([n + 1, n]).collect::<Vec<_>>());
    let p = through_leading_ones(&mut t, p);
    let (p, narrowed) = t.maybe_convert(p);
    let p = through_leading_ones(&mut t, p);
    let p = safe_softmax(&mut t, p).unwrap_or(p);
    let (scores, axis) = softmax_of(&mut t, p)?;
    if axis + 1 != rank(f, p)? as i64 {
        return None;
    }
    let (scores, widened) = t.maybe_convert(scores);
    if narrowed != widened || (widened && element(f, scores) == element(f, p)) {
        return None;
    }
    let scores = through_leading_ones(&mut t, scores);
    let (scores, mask) =
        attention_mask::peel(&mut t, scores, |s| attention_logits::is_logits(f, s))?;
    let logits = attention_logits::read(&mut t, scores);
    let (q, k, qk_dims) = dot(&mut t, logits.product)?;
    let q_layout = layout(&qk_dims, true, rank(f, q)?)?;
    let k_layout = layout(&qk_dims, false, rank(f, k)?)?;
    let (heads, _) = heads_of(f, q, &q_layout)?;
    let (k_heads, k_head_dim) = heads_of(f, k, &k_layout)?;
    let (v_heads, v_head_dim) = heads_of(f, v, &v_layout)?;
    let repeated = match (k_head_dim, v_head_dim) {
        (Some(kd), Some(vd)) if k_heads == heads && v_heads == heads => {
            let mut probe = t.fork();
            match (
                repeated_heads(&mut probe, k, kd),
                repeated_heads(&mut probe, v, vd),
            ) {
                (Some(k0), Some(v0)) => {
                    t = probe;
                    Some((k0, v0, shape(f, k0)?[kd as usize]))
                }
                _ => None,
            }
        }
        _ => None,
    };
    let (k, v, kv_heads) = repeated.unwrap_or((k, v, heads));
    let v_perm = match v_layout[..] {
        [ref batch @ .., free, contracted] => batch.iter().copied().chain([contracted, free]),
        _ => return None,
    };
    let mut operands = vec![
        canonical(f, q, &q_layout)?,
        canonical(f, k, &k_layout)?,
        canonical(f, v, &v_perm.collect::<Vec<_>>())?,
    ];
    if let Some(bias) = &logits.bias {
        operands.push(bias_operand(f, bias)?);
    }
    let causal = matches!(mask, Mask::Causal);
    if let Mask::Operand(m) = mask {
        let identity: Vec<i64> = (0..rank(f, m)? as i64).collect();
        operands.push(canonical(f, m, &identity)?);
    }
    // Fewer batch dimensions: the composite's result is `[1.., H, L, Ev]`.
    let result_shape = if rank(f, out)? < RANK {
        let s = shape(f, out)?;
        Some(padded(match &result_perm {
            Some(perm) => perm.iter().map(|&d| s[d as usize]).collect(),
            None => s,
        }))
    } else {
        None
    };
    let mut attributes = NamedAttrs::new()
        .with("scale", f32_attr(logits.scale))
        .with("causal", Attribute::Bool(causal))
        .with("heads", i64_attr(heads as i64))
        .with("kv_heads", i64_attr(kv_heads as i64))
        .with("softmax_f32", Attribute::Bool(widened));
    // Version 2 adds the bias operand and the soft cap; an attention with neither stays at
    // version 1, which every consumer of version 1 reads as before.
    let extended = logits.bias.is_some() || logits.soft_cap.is_some();
    if extended {
        attributes = attributes.with("bias", Attribute::Bool(logits.bias.is_some()));
    }
    if let Some(cap) = logits.soft_cap {
        attributes = attributes.with("attn_logits_soft_cap", f32_attr(cap));
    }
    Some(Match {
        name: names::ATTENTION,
        version: if extended { 2 } else { 1 },
        attributes,
        ops: t.ops,
        operands,
        results: vec![out],
        result_perm,
        result_shape,
    })
}
