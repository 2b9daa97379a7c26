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
    let (x_high, high_start, high_limit) = t.slice_along(high, last as usize)?;
    let (x_low, low_start, low_limit) = t.slice_along(low, last as usize)?;
    let size = *shape(f, x_high)?.last()? as i64;
    let halves = size % 2 == 0
        && (low_start, low_limit) == (0, size / 2)
        && (high_start, high_limit) == (size / 2, size);
    (x_high == x_low && halves).then_some(x_high)
}

pub fn rotary_embedding(f: &Function, root: OpId) -> Option<Match> {
    let out = *f.op(root).results.first()?;
    for (direct, rotated) in Taker::new(f).both_orders(out, BinaryOp::Add)? {
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
                version: 1,
                attributes: NamedAttrs::new()
                    .with("style", Attribute::String("rotate_half".into())),
                ops: attempt.ops,
                operands: vec![Operand::plain(x), Operand::plain(cos), Operand::plain(sin)],
                results: vec![out],
                result_perm: None,
                result_shape: None,
            });
        }
    }
    None
}
