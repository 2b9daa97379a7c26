//! Elementwise ops moved above the reshapes and transposes that feed them, so that layout ops
//! gather next to each other (and merge) or next to the contraction that absorbs them.

use tpuc_ir::{OpId, OpKind, TensorType, Value};

use crate::rewrite::{Pattern, Rewriter, constant_of, splat_operand_of};

/// `f(layout(x), c)` is `layout(f(x, c'))` for an elementwise `f`, splat constants `c` and one
/// reshape or transpose `layout` shared by every other operand (each used only here).
pub(crate) struct ElementwiseBeforeLayout;

enum Operand {
    Moved(Value),
    Splat(Value),
    /// `broadcast_in_dim(source, dims)` into the trailing dimensions a reshape keeps.
    Broadcast(Value, Vec<i64>),
}

impl Pattern for ElementwiseBeforeLayout {
    fn name(&self) -> &'static str {
        "elementwise-before-layout"
    }

    fn rewrite(&self, rw: &mut Rewriter<'_>, op: OpId) -> bool {
        let f = rw.function();
        let operation = f.op(op);
        if !operation.kind.is_elementwise() || operation.results.len() != 1 {
            return false;
        }
        let mut layout: Option<(OpKind, Vec<tpuc_ir::Dim>)> = None;
        let mut operands = Vec::with_capacity(operation.operands.len());
        let mut broadcasts = Vec::new();
        for (index, &value) in operation.operands.iter().enumerate() {
            if constant_of(f, value).is_some_and(|c| c.is_splat()) {
                operands.push(Operand::Splat(value));
                continue;
            }
            let Some((_, producer)) = rw.producer(value) else {
                return false;
            };
            if let OpKind::BroadcastInDim { dims } = &producer.kind {
                broadcasts.push(index);
                operands.push(Operand::Broadcast(producer.operands[0], dims.clone()));
                continue;
            }
            let movable = matches!(producer.kind, OpKind::Reshape | OpKind::Transpose { .. });
            if !movable || f.uses(value).len() != 1 {
                return false;
            }
            let source = producer.operands[0];
            let Some(shape) = f.value_type(source).as_tensor().map(|t| t.shape.clone()) else {
                return false;
            };
            let this = (producer.kind.clone(), shape);
            if *layout.get_or_insert_with(|| this.clone()) != this {
                return false;
            }
            operands.push(Operand::Moved(source));
        }
        let Some((layout, shape)) = layout else {
            return false;
        };
        // A broadcast follows the reshape when it only fills dimensions the reshape keeps at the
        // end; it is rebuilt in the source shape.
        if !broadcasts.is_empty() {
            let Some(to) = f.value_type(operation.results[0]).as_tensor() else {
                return false;
            };
            let kept = common_suffix(&shape, &to.shape);
            let first_kept = to.shape.len() - kept;
            let fits = layout == OpKind::Reshape
                && operands.iter().all(|o| match o {
                    Operand::Broadcast(_, dims) => dims.iter().all(|&d| d as usize >= first_kept),
                    _ => true,
                });
            if !fits {
                return false;
            }
            let shift = shape.len() as i64 - to.shape.len() as i64;
            for operand in &mut operands {
                if let Operand::Broadcast(_, dims) = operand {
                    dims.iter_mut().for_each(|d| *d += shift);
                }
            }
        }
        let kind = operation.kind.clone();
        let Some(result_type) = f.value_type(operation.results[0]).as_tensor().cloned() else {
            return false;
        };
        let mut b = rw.builder_before(op);
        let mut inputs = Vec::with_capacity(operands.len());
        for operand in operands {
            inputs.push(match operand {
                Operand::Moved(source) => source,
                Operand::Broadcast(source, dims) => {
                    let Ok(v) = b.broadcast_in_dim(source, &dims, shape.clone()) else {
                        return false;
                    };
                    v
                }
                Operand::Splat(value) => {
                    let f = b.function();
                    let (Some(data), Some(ty)) =
                        (constant_of(f, value), f.value_type(value).as_tensor())
                    else {
                        return false;
                    };
                    let (ty, data) = (TensorType::new(shape.clone(), ty.element), data.clone());
                    let Ok(v) = b.constant(ty, data) else {
                        return false;
                    };
                    v
                }
            });
        }
        let Ok(computed) = b.op(kind, &inputs, Vec::new(), None) else {
            return false;
        };
        let moved = match layout {
            OpKind::Transpose { permutation } => b.transpose(computed[0], &permutation),
            _ => b.reshape(computed[0], result_type.shape.clone()),
        };
        let Ok(moved) = moved else {
            return false;
        };
        rw.replace_op(op, &[moved]);
        true
    }
}

/// How many trailing dimensions `a` and `b` share.
fn common_suffix(a: &[tpuc_ir::Dim], b: &[tpuc_ir::Dim]) -> usize {
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// `(x * a) * b` for splats `a` and `b` is `x * (a * b)`.
pub(crate) struct MultiplyOfSplatMultiply;

impl Pattern for MultiplyOfSplatMultiply {
    fn name(&self) -> &'static str {
        "multiply-of-splat-multiply"
    }

    fn rewrite(&self, rw: &mut Rewriter<'_>, op: OpId) -> bool {
        let f = rw.function();
        let multiply = OpKind::Binary(tpuc_ir::BinaryOp::Multiply);
        if f.op(op).kind != multiply {
            return false;
        }
        let Some((inner, outer_scale)) =
            splat_operand_of(f, f.op(op).results[0], tpuc_ir::BinaryOp::Multiply)
        else {
            return false;
        };
        if f.uses(inner).len() != 1 {
            return false;
        }
        let Some((x, inner_scale)) = splat_operand_of(f, inner, tpuc_ir::BinaryOp::Multiply) else {
            return false;
        };
        let ty = f.value_type(outer_scale);
        let fold = |v| tpuc_ir::FoldOperand {
            ty,
            constant: constant_of(f, v),
        };
        let Some(tpuc_ir::Folded::Constant(product)) =
            multiply.fold(&[fold(inner_scale), fold(outer_scale)], ty)
        else {
            return false;
        };
        let Some(ty) = ty.as_tensor().cloned() else {
            return false;
        };
        let mut b = rw.builder_before(op);
        let Ok(scaled) = (|| {
            let c = b.constant(ty, product)?;
            b.multiply(x, c)
        })() else {
            return false;
        };
        rw.replace_op(op, &[scaled]);
        true
    }
}
