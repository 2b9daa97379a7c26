//! Rotary position embeddings in the rotate-half form:
//! `x * cos + concat(-x[..., d/2:], x[..., :d/2]) * sin` over the last axis.

use tpuc_ir::{Attribute, BinaryOp, Function, NamedAttrs, OpId, OpKind, UnaryOp, Value};

use super::matcher::{Taker, rank, shape};
use super::names;
use super::outline::{Match, Operand};

/// `concat(-x[..., h:], x[..., :h])` over the last axis of `x` (size `2h`): `x`.
fn rotate_half(t: &mut Taker<'_>, value: Value) -> Option<Value> {
    let f = t.f;
    let last = rank(f, value)?.checked_sub(1)? as i64;
    let concat = t.take(
        value,
        |k| matches!(k, OpKind::Concatenate { dimension } if *dimension == last),
    )?;
    let [negated, low] = concat.operands[..] else {
        return None;
    };
    let high = t.unary(negated, UnaryOp::Negate)?;
    let (x_high, high_start) = half_slice(t, high, last)?;
    let (x_low, low_start) = half_slice(t, low, last)?;
    let size = *shape(f, x_high)?.last()?;
    (x_high == x_low && high_start == size / 2 && low_start == 0 && size % 2 == 0).then_some(x_high)
}

/// `slice(x)` taking half of the last axis with unit strides: `x` and where the half starts.
fn half_slice(t: &mut Taker<'_>, value: Value, last: i64) -> Option<(Value, u64)> {
    let f = t.f;
    let op = t.take(value, |k| matches!(k, OpKind::Slice { .. }))?;
    let OpKind::Slice {
        start,
        limit,
        strides,
    } = &op.kind
    else {
        return None;
    };
    let x = op.operands[0];
    let full = shape(f, x)?;
    let l = last as usize;
    let whole_elsewhere = (0..full.len())
        .filter(|&d| d != l)
        .all(|d| start[d] == 0 && limit[d] as u64 == full[d]);
    let half = full[l] / 2;
    let ok =
        whole_elsewhere && strides.iter().all(|&s| s == 1) && (limit[l] - start[l]) as u64 == half;
    ok.then_some((x, start[l] as u64))
}

pub fn rotary_embedding(f: &Function, root: OpId) -> Option<Match> {
    let out = *f.op(root).results.first()?;
    let probe = Taker::new(f);
    let (a, b) = probe.peek_binary(out, BinaryOp::Add)?;
    for (direct, rotated) in [(a, b), (b, a)] {
        let mut t = Taker::new(f);
        t.binary(out, BinaryOp::Add)?;
        let Some((r0, r1)) = t.binary(rotated, BinaryOp::Multiply) else {
            continue;
        };
        let Some((d0, d1)) = t.binary(direct, BinaryOp::Multiply) else {
            continue;
        };
        for (rot, sin) in [(r0, r1), (r1, r0)] {
            let mut attempt = t.fork();
            let Some(x) = rotate_half(&mut attempt, rot) else {
                continue;
            };
            let cos = match (d0 == x, d1 == x) {
                (true, false) => d1,
                (false, true) => d0,
                _ => continue,
            };
            return Some(Match {
                name: names::ROTARY,
                attributes: NamedAttrs::new()
                    .with("style", Attribute::String("rotate_half".into())),
                ops: attempt.ops,
                operands: vec![Operand::plain(x), Operand::plain(cos), Operand::plain(sin)],
                results: vec![out],
                result_shape: None,
            });
        }
    }
    None
}
