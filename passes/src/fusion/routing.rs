//! Mixture-of-experts top-k routing: `softmax(logits)` over the experts, its `k` largest
//! (a stable descending `sort` of the probabilities and their positions, sliced), and
//! optionally the selected weights renormalised to sum to one. Results: weights, indices.

use tpuc_ir::{
    Attribute, BinaryOp, ComparisonDirection, Function, NamedAttrs, OpId, OpKind, Value,
};

use super::matcher::{Taker, i64_attr, rank};
use super::names;
use super::outline::{Match, Operand};
use super::softmax::softmax_of;

/// Whether the sort's comparator orders the first operand descending: `a > b` (or, with the
/// lowering's NaN handling, `a > b || (b == b && a != a)`).
fn descending(f: &Function, sort: &tpuc_ir::Operation) -> bool {
    let Some(&region) = sort.regions.first() else {
        return false;
    };
    let Some(&block) = f.region(region).blocks.first() else {
        return false;
    };
    let args = &f.block(block).args;
    let ops: Vec<&tpuc_ir::Operation> = f.block(block).ops.iter().map(|&op| f.op(op)).collect();
    let Some((ret, body)) = ops.split_last() else {
        return false;
    };
    let gt = body.iter().find(|op| {
        matches!(
            op.kind,
            OpKind::Compare {
                direction: ComparisonDirection::Gt,
                ..
            }
        ) && op.operands == [args[0], args[1]]
    });
    let Some(gt) = gt else { return false };
    let returned = ret.operands.first().copied();
    if returned == gt.results.first().copied() {
        return body.len() == 1;
    }
    // The NaN tie-break must read only the two values.
    let reads_values = body.iter().all(|op| {
        op.operands
            .iter()
            .all(|v| [args[0], args[1]].contains(v) || body.iter().any(|o| o.results.contains(v)))
    });
    let kinds_ok = body.iter().all(|op| {
        matches!(
            op.kind,
            OpKind::Compare { .. } | OpKind::Binary(BinaryOp::And | BinaryOp::Or)
        )
    });
    let or_of_gt = body.iter().any(|op| {
        op.kind == OpKind::Binary(BinaryOp::Or)
            && op.results.first().copied() == returned
            && op.operands.contains(&gt.results[0])
    });
    reads_values && kinds_ok && or_of_gt
}

/// `slice(x)` keeping the first `k` along `dim` and everything else: `x` and `k`.
fn leading_slice(t: &mut Taker<'_>, value: Value, dim: usize) -> Option<(Value, i64)> {
    match t.slice_along(value, dim)? {
        (x, 0, k) => Some((x, k)),
        _ => None,
    }
}

pub fn top_k_routing(f: &Function, root: OpId) -> Option<Match> {
    let weights = *f.op(root).results.first()?;
    let last = rank(f, weights)?.checked_sub(1)?;
    let mut t = Taker::new(f);
    let (values, normalized) = match t.binary(weights, BinaryOp::Divide) {
        Some((values, total)) => {
            let sum = t.broadcast_back(total, &[last as i64])?;
            let (summed, dims) = t.reduce(sum, BinaryOp::Add, Some(0.0))?;
            if summed != values || dims != [last as i64] {
                return None;
            }
            (values, true)
        }
        None => (weights, false),
    };
    let (sorted, k) = leading_slice(&mut t, values, last)?;
    let sort = t.take(sorted, |k| matches!(k, OpKind::Sort { .. }))?;
    let OpKind::Sort {
        dimension,
        is_stable: true,
    } = sort.kind
    else {
        return None;
    };
    let [probs, positions] = sort.operands[..] else {
        return None;
    };
    let iota_along = matches!(f.op(f.defining_op(positions)?).kind, OpKind::Iota { dimension: d } if d == dimension);
    if dimension != last as i64 || sorted != sort.results[0] || !iota_along || !descending(f, sort)
    {
        return None;
    }
    let indices_slices: Vec<Value> = f
        .uses(sort.results[1])
        .iter()
        .filter_map(|u| f.op(u.op).results.first().copied())
        .collect();
    let [indices] = indices_slices[..] else {
        return None;
    };
    let (_, index_k) = leading_slice(&mut t, indices, last)?;
    if index_k != k {
        return None;
    }
    let (logits, axis) = softmax_of(&mut t, probs)?;
    if axis != last as i64 {
        return None;
    }
    let attributes = NamedAttrs::new()
        .with("k", i64_attr(k))
        .with("normalize", Attribute::Bool(normalized));
    Some(Match {
        name: names::TOP_K_ROUTING,
        version: 1,
        attributes,
        ops: t.ops,
        operands: vec![Operand::plain(logits)],
        results: vec![weights, indices],
        result_perm: None,
        result_shape: None,
    })
}
