//! Elementwise ops moved across the reshapes around them.

use tpuc_ir::{OpId, OpKind, TensorType, Value};

use crate::rewrite::{Pattern, Rewriter, constant_of};

/// `reshape(f(reshape(x), c))` for an elementwise `f` and splat constants `c` computes `f` on `x`
/// directly: the inner reshape goes and the outer one merges with the new one.
pub(crate) struct ElementwiseThroughReshape;

impl Pattern for ElementwiseThroughReshape {
    fn name(&self) -> &'static str {
        "elementwise-through-reshape"
    }

    fn rewrite(&self, rw: &mut Rewriter<'_>, op: OpId) -> bool {
        let f = rw.function();
        let operation = f.op(op);
        if !operation.kind.is_elementwise() || operation.results.len() != 1 {
            return false;
        }
        let result = operation.results[0];
        let only_user_reshapes =
            matches!(f.uses(result), [u] if f.op(u.op).kind == OpKind::Reshape);
        if !only_user_reshapes {
            return false;
        }
        // Every operand is a single-use reshape from one shape, or a splat constant.
        let mut source_shape: Option<Vec<tpuc_ir::Dim>> = None;
        let mut operands: Vec<Operand> = Vec::new();
        for &value in &operation.operands {
            if constant_of(f, value).is_some_and(|c| c.is_splat()) {
                operands.push(Operand::Splat(value));
                continue;
            }
            let Some((_, producer)) = rw.producer(value) else {
                return false;
            };
            if producer.kind != OpKind::Reshape || f.uses(value).len() != 1 {
                return false;
            }
            let source = producer.operands[0];
            let Some(shape) = f.value_type(source).as_tensor().map(|t| t.shape.clone()) else {
                return false;
            };
            if source_shape.get_or_insert_with(|| shape.clone()) != &shape {
                return false;
            }
            operands.push(Operand::Reshaped(source));
        }
        let Some(shape) = source_shape else {
            return false;
        };
        let kind = operation.kind.clone();
        let result_type = f.value_type(result).clone();
        let mut b = rw.builder_before(op);
        let mut new_operands = Vec::with_capacity(operands.len());
        for operand in operands {
            let value = match operand {
                Operand::Reshaped(source) => source,
                Operand::Splat(value) => {
                    let f = b.function();
                    let (Some(data), Some(ty)) =
                        (constant_of(f, value), f.value_type(value).as_tensor())
                    else {
                        return false;
                    };
                    let ty = TensorType::new(shape.clone(), ty.element);
                    let data = data.clone();
                    match b.constant(ty, data) {
                        Ok(v) => v,
                        Err(_) => return false,
                    }
                }
            };
            new_operands.push(value);
        }
        let Ok(computed) = b.op(kind, &new_operands, Vec::new(), None) else {
            return false;
        };
        let Some(result_ty) = result_type.as_tensor() else {
            return false;
        };
        let Ok(reshaped) = b.reshape(computed[0], result_ty.shape.clone()) else {
            return false;
        };
        rw.replace_op(op, &[reshaped]);
        true
    }
}

enum Operand {
    Reshaped(Value),
    Splat(Value),
}
