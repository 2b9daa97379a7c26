//! Reductions that absorb the elementwise op feeding them.

use tpuc_ir::{BinaryOp, DenseElements, ElementType, OpId, OpKind, TensorType, UnaryOp};

use crate::rewrite::{Pattern, Rewriter, constant_of, splat_operand_of};

/// Whether `op`'s single region computes `combine` of its two block arguments.
fn body_is(rw: &Rewriter<'_>, op: OpId, combine: BinaryOp) -> bool {
    rw.function().single_binary_body(op) == Some(combine)
}

/// A windowed `maximum` of `maximum(x, c)` (a max-pool after a ReLU) is the windowed maximum
/// of `x` started from `max(init, c)`: every window holds at least one element when there is
/// no padding, so both give `max(c, init, window of x)`.
pub(crate) struct WindowMaxOfMaxSplat;

impl Pattern for WindowMaxOfMaxSplat {
    fn name(&self) -> &'static str {
        "window-max-of-max-splat"
    }

    fn rewrite(&self, rw: &mut Rewriter<'_>, op: OpId) -> bool {
        let f = rw.function();
        let operation = f.op(op);
        let OpKind::ReduceWindow(window) = &operation.kind else {
            return false;
        };
        let unpadded = window.padding.iter().all(|&p| p == (0, 0))
            && window.base_dilations.iter().all(|&d| d == 1);
        let [input, init] = operation.operands[..] else {
            return false;
        };
        if !unpadded || f.uses(input).len() != 1 || !body_is(rw, op, BinaryOp::Maximum) {
            return false;
        }
        let Some((x, splat)) = splat_operand_of(f, input, BinaryOp::Maximum) else {
            return false;
        };
        let (Some(init_data), Some(splat_data)) = (constant_of(f, init), constant_of(f, splat))
        else {
            return false;
        };
        let Some(init_type) = f.value_type(init).as_tensor().cloned() else {
            return false;
        };
        let element = init_type.element;
        let scalar: tpuc_ir::Type = TensorType::new(Vec::new(), element).into();
        let operands = [init_data, splat_data].map(|data| tpuc_ir::FoldOperand {
            ty: &scalar,
            constant: Some(data),
        });
        let folded = OpKind::Binary(BinaryOp::Maximum).fold(&operands, &scalar);
        let Some(tpuc_ir::Folded::Constant(start)) = folded else {
            return false;
        };
        let Ok(start) = rw.builder_before(op).constant(init_type, start) else {
            return false;
        };
        rw.set_operand(op, 0, x);
        rw.set_operand(op, 1, start);
        true
    }
}

/// `not(reduce_or(not(x)))` is `reduce_and(x)` ("all masked", as the core decomposition of
/// attention asks "none unmasked").
pub(crate) struct NotOfReduceOrOfNot;

impl Pattern for NotOfReduceOrOfNot {
    fn name(&self) -> &'static str {
        "not-of-reduce-or-of-not"
    }

    fn rewrite(&self, rw: &mut Rewriter<'_>, op: OpId) -> bool {
        let f = rw.function();
        let not = OpKind::Unary(UnaryOp::Not);
        if f.op(op).kind != not {
            return false;
        }
        let reduced = f.op(op).operands[0];
        let Some((reduce, producer)) = rw.producer(reduced) else {
            return false;
        };
        let OpKind::Reduce { dimensions } = &producer.kind else {
            return false;
        };
        let [input, init] = producer.operands[..] else {
            return false;
        };
        let single_use = f.uses(reduced).len() == 1 && f.uses(input).len() == 1;
        let starts_false = constant_of(f, init).is_some_and(|c| {
            c.is_splat() && c.value(ElementType::I1, 0) == tpuc_ir::ElementValue::Bool(false)
        });
        if !single_use || !starts_false || !body_is(rw, reduce, BinaryOp::Or) {
            return false;
        }
        let Some((_, negation)) = rw.producer(input) else {
            return false;
        };
        if negation.kind != not {
            return false;
        }
        let (source, dimensions) = (negation.operands[0], dimensions.clone());
        let mut b = rw.builder_before(op);
        let Ok(all) = (|| {
            let start = b.constant(
                TensorType::new(Vec::new(), ElementType::I1),
                DenseElements::splat_i64(ElementType::I1, 1),
            )?;
            b.reduce(&[source], &[start], &dimensions, |b, a| {
                Ok(vec![b.and(a[0], a[1])?])
            })
        })() else {
            return false;
        };
        rw.replace_op(op, &[all[0]]);
        true
    }
}
