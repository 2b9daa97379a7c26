//! Chains of reshapes, transposes and broadcasts merged into one op.

use tpuc_ir::{OpId, OpKind, Value};

use crate::rewrite::{Pattern, Rewriter, static_shape_of};

/// The first operand of `op` and the op producing it, when its kind matches `want`.
fn operand_producer<'r>(
    rw: &'r Rewriter<'_>,
    op: OpId,
    want: fn(&OpKind) -> bool,
) -> Option<(Value, &'r tpuc_ir::Operation)> {
    let operand = *rw.function().op(op).operands.first()?;
    let (_, producer) = rw.producer(operand)?;
    want(&producer.kind).then_some((operand, producer))
}

/// `reshape(reshape(x))` is `reshape(x)`.
pub(crate) struct ReshapeOfReshape;

impl Pattern for ReshapeOfReshape {
    fn name(&self) -> &'static str {
        "reshape-of-reshape"
    }

    fn rewrite(&self, rw: &mut Rewriter<'_>, op: OpId) -> bool {
        if rw.function().op(op).kind != OpKind::Reshape {
            return false;
        }
        let Some((_, inner)) = operand_producer(rw, op, |k| *k == OpKind::Reshape) else {
            return false;
        };
        let source = inner.operands[0];
        rw.set_operand(op, 0, source);
        true
    }
}

/// `transpose(transpose(x, p), q)` is `transpose(x, p∘q)`.
pub(crate) struct TransposeOfTranspose;

impl Pattern for TransposeOfTranspose {
    fn name(&self) -> &'static str {
        "transpose-of-transpose"
    }

    fn rewrite(&self, rw: &mut Rewriter<'_>, op: OpId) -> bool {
        let OpKind::Transpose { permutation: outer } = &rw.function().op(op).kind else {
            return false;
        };
        let outer = outer.clone();
        let Some((_, inner)) = operand_producer(rw, op, |k| matches!(k, OpKind::Transpose { .. }))
        else {
            return false;
        };
        let OpKind::Transpose { permutation: first } = &inner.kind else {
            return false;
        };
        let composed: Vec<i64> = outer.iter().map(|&p| first[p as usize]).collect();
        let source = inner.operands[0];
        rw.set_kind(
            op,
            OpKind::Transpose {
                permutation: composed,
            },
        );
        rw.set_operand(op, 0, source);
        true
    }
}

/// A transpose that only moves size-1 dimensions is a reshape.
pub(crate) struct TransposeAsReshape;

impl Pattern for TransposeAsReshape {
    fn name(&self) -> &'static str {
        "transpose-as-reshape"
    }

    fn rewrite(&self, rw: &mut Rewriter<'_>, op: OpId) -> bool {
        let f = rw.function();
        let OpKind::Transpose { permutation } = &f.op(op).kind else {
            return false;
        };
        let Some(shape) = static_shape_of(f, f.op(op).operands[0]) else {
            return false;
        };
        let moved: Vec<i64> = permutation
            .iter()
            .copied()
            .filter(|&p| shape[p as usize] != 1)
            .collect();
        if !moved.is_sorted() {
            return false;
        }
        rw.set_kind(op, OpKind::Reshape);
        true
    }
}

/// `broadcast_in_dim(broadcast_in_dim(x, a), b)` is `broadcast_in_dim(x, b∘a)`.
pub(crate) struct BroadcastOfBroadcast;

impl Pattern for BroadcastOfBroadcast {
    fn name(&self) -> &'static str {
        "broadcast-of-broadcast"
    }

    fn rewrite(&self, rw: &mut Rewriter<'_>, op: OpId) -> bool {
        let OpKind::BroadcastInDim { dims: outer } = &rw.function().op(op).kind else {
            return false;
        };
        let outer = outer.clone();
        let Some((_, inner)) =
            operand_producer(rw, op, |k| matches!(k, OpKind::BroadcastInDim { .. }))
        else {
            return false;
        };
        let OpKind::BroadcastInDim { dims: first } = &inner.kind else {
            return false;
        };
        let composed: Vec<i64> = first.iter().map(|&d| outer[d as usize]).collect();
        let source = inner.operands[0];
        rw.set_kind(op, OpKind::BroadcastInDim { dims: composed });
        rw.set_operand(op, 0, source);
        true
    }
}

/// A broadcast of a reshape that only inserted size-1 dimensions broadcasts the source.
pub(crate) struct BroadcastOfUnitReshape;

impl Pattern for BroadcastOfUnitReshape {
    fn name(&self) -> &'static str {
        "broadcast-of-unit-reshape"
    }

    fn rewrite(&self, rw: &mut Rewriter<'_>, op: OpId) -> bool {
        let f = rw.function();
        let OpKind::BroadcastInDim { dims } = &f.op(op).kind else {
            return false;
        };
        let dims = dims.clone();
        let Some((mid, inner)) = operand_producer(rw, op, |k| *k == OpKind::Reshape) else {
            return false;
        };
        let source = inner.operands[0];
        let (Some(from), Some(to)) = (static_shape_of(f, source), static_shape_of(f, mid)) else {
            return false;
        };
        let Some(positions) = unit_insertion(&from, &to) else {
            return false;
        };
        let composed: Vec<i64> = positions.iter().map(|&d| dims[d]).collect();
        rw.set_kind(op, OpKind::BroadcastInDim { dims: composed });
        rw.set_operand(op, 0, source);
        true
    }
}

/// When `to` is `from` with size-1 dimensions inserted (and `from` has none of its own), the
/// position in `to` of each dimension of `from`.
fn unit_insertion(from: &[u64], to: &[u64]) -> Option<Vec<usize>> {
    if from.contains(&1) {
        return None;
    }
    let positions: Vec<usize> = (0..to.len()).filter(|&i| to[i] != 1).collect();
    let kept: Vec<u64> = positions.iter().map(|&i| to[i]).collect();
    (kept == from).then_some(positions)
}

/// `reshape(broadcast_in_dim(scalar))` is a broadcast of the scalar to the reshaped shape.
pub(crate) struct ReshapeOfScalarBroadcast;

impl Pattern for ReshapeOfScalarBroadcast {
    fn name(&self) -> &'static str {
        "reshape-of-scalar-broadcast"
    }

    fn rewrite(&self, rw: &mut Rewriter<'_>, op: OpId) -> bool {
        let f = rw.function();
        if f.op(op).kind != OpKind::Reshape {
            return false;
        }
        let Some((_, inner)) =
            operand_producer(rw, op, |k| matches!(k, OpKind::BroadcastInDim { .. }))
        else {
            return false;
        };
        let source = inner.operands[0];
        if f.value_type(source)
            .as_tensor()
            .is_none_or(|t| t.rank() != 0)
        {
            return false;
        }
        rw.set_kind(op, OpKind::BroadcastInDim { dims: Vec::new() });
        rw.set_operand(op, 0, source);
        true
    }
}
