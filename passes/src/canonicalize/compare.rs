//! Comparisons of positions.

use tpuc_ir::{BinaryOp, ElementValue, OpId, OpKind, Value};

use crate::rewrite::{Pattern, Rewriter, constant_of};

/// Whether `value` holds positions: an iota, or a broadcast or reshape of one. Positions are
/// small non-negative integers, so their differences never overflow.
fn is_position(rw: &Rewriter<'_>, value: Value) -> bool {
    let Some((_, producer)) = rw.producer(value) else {
        return false;
    };
    match producer.kind {
        OpKind::Iota { .. } => true,
        OpKind::BroadcastInDim { .. } | OpKind::Reshape => is_position(rw, producer.operands[0]),
        _ => false,
    }
}

/// `compare(i - j, 0)` of integer positions is `compare(i, j)` (a causal mask's `j - i <= 0`).
pub(crate) struct CompareOfPositionDifference;

impl Pattern for CompareOfPositionDifference {
    fn name(&self) -> &'static str {
        "compare-of-position-difference"
    }

    fn rewrite(&self, rw: &mut Rewriter<'_>, op: OpId) -> bool {
        let f = rw.function();
        if !matches!(f.op(op).kind, OpKind::Compare { .. }) {
            return false;
        }
        let [difference, zero] = f.op(op).operands[..] else {
            return false;
        };
        let is_zero = constant_of(f, zero).is_some_and(|c| {
            c.is_splat()
                && matches!(
                    f.value_type(zero)
                        .as_tensor()
                        .map(|t| c.value(t.element, 0)),
                    Some(ElementValue::Signed(0) | ElementValue::Unsigned(0))
                )
        });
        let Some((_, producer)) = rw.producer(difference) else {
            return false;
        };
        if !is_zero || producer.kind != OpKind::Binary(BinaryOp::Subtract) {
            return false;
        }
        let [i, j] = producer.operands[..] else {
            return false;
        };
        if !is_position(rw, i) || !is_position(rw, j) {
            return false;
        }
        rw.set_operand(op, 0, i);
        rw.set_operand(op, 1, j);
        true
    }
}
