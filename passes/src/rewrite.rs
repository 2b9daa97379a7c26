//! The greedy pattern rewriter: a worklist of ops, each offered to the fold hook and to the
//! patterns until none applies; a change revisits the users of new values and the producers of
//! operands that may have died.

use tpuc_ir::{
    BinaryOp, FoldOperand, Folded, Function, InsertPoint, NewOp, OpBuilder, OpId, OpKind, Value,
};

use crate::dce::is_removable;

/// A rewrite of one op.
pub trait Pattern {
    fn name(&self) -> &'static str;

    /// Rewrites `op` through `rw` if it matches; says whether anything changed.
    fn rewrite(&self, rw: &mut Rewriter<'_>, op: OpId) -> bool;
}

/// What a pattern changes the function through.
pub struct Rewriter<'f> {
    f: &'f mut Function,
    worklist: Vec<OpId>,
    queued: Vec<bool>,
}

impl<'f> Rewriter<'f> {
    pub fn function(&self) -> &Function {
        self.f
    }

    /// A cursor before `op`, building with its location.
    pub fn builder_before(&mut self, op: OpId) -> OpBuilder<'_> {
        let location = self.f.op(op).location.clone();
        OpBuilder::at(self.f, InsertPoint::Before(op), location)
    }

    /// Replaces the results of `op` with `values` and erases it.
    pub fn replace_op(&mut self, op: OpId, values: &[Value]) {
        let results = self.f.op(op).results.clone();
        for (&result, &value) in results.iter().zip(values) {
            if result != value {
                self.push_users(result);
                self.push_producer(value);
            }
        }
        self.push_operand_producers(op);
        self.f.replace_op(op, values);
    }

    /// Makes `op` use `value` as operand `index`.
    pub fn set_operand(&mut self, op: OpId, index: usize, value: Value) {
        let old = self.f.op(op).operands[index];
        self.f.set_operand(op, index, value);
        self.push_producer(old);
        self.push(op);
    }

    /// Changes the kind (attributes) of `op` in place.
    pub fn set_kind(&mut self, op: OpId, kind: OpKind) {
        *self.f.kind_mut(op) = kind;
        self.push(op);
    }

    /// The op defining `value` and it, if `value` is an op result.
    pub fn producer(&self, value: Value) -> Option<(OpId, &tpuc_ir::Operation)> {
        let op = self.f.defining_op(value)?;
        Some((op, self.f.op(op)))
    }

    fn push(&mut self, op: OpId) {
        if self.queued.len() <= op.index() {
            self.queued.resize(op.index() + 1, false);
        }
        if !std::mem::replace(&mut self.queued[op.index()], true) {
            self.worklist.push(op);
        }
    }

    fn push_users(&mut self, value: Value) {
        let users: Vec<OpId> = self.f.uses(value).iter().map(|u| u.op).collect();
        for op in users {
            self.push(op);
        }
    }

    fn push_producer(&mut self, value: Value) {
        if let Some(op) = self.f.defining_op(value) {
            self.push(op);
        }
    }

    fn push_operand_producers(&mut self, op: OpId) {
        for value in self.f.op(op).operands.clone() {
            self.push_producer(value);
        }
    }
}

/// Applies the fold hook (when `fold`) and `patterns` to every op of `f` until nothing changes.
/// Dead pure ops are erased on the way. Returns the number of changes.
pub fn apply_greedily(f: &mut Function, patterns: &[&dyn Pattern], fold: bool) -> usize {
    let mut ops = f.walk();
    ops.reverse();
    let queued = vec![true; f.op_count()];
    let mut rw = Rewriter {
        f,
        worklist: ops,
        queued,
    };
    // A bound against patterns that undo each other; never reached by the shipped patterns.
    let budget = 16 * rw.f.op_count() + 1024;
    let mut changes = 0;
    while let Some(op) = rw.worklist.pop() {
        rw.queued[op.index()] = false;
        if rw.f.parent_block(op).is_none() {
            continue;
        }
        if changes >= budget {
            break;
        }
        if !rw.f.op_is_used(op) && is_removable(rw.f, op) {
            rw.push_operand_producers(op);
            rw.f.erase_op(op);
            changes += 1;
            continue;
        }
        let before = rw.f.op_count();
        let changed = (fold && fold_op(&mut rw, op))
            || patterns.iter().any(|pattern| pattern.rewrite(&mut rw, op));
        if changed {
            changes += 1;
            for new in rw.f.ops_since(before) {
                rw.push(new);
            }
        }
    }
    changes
}

/// Replaces `op` by what the fold hook makes of it.
fn fold_op(rw: &mut Rewriter<'_>, op: OpId) -> bool {
    let operation = rw.f.op(op);
    if operation.results.len() != 1 || !operation.regions.is_empty() {
        return false;
    }
    if matches!(operation.kind, OpKind::Constant(_)) {
        return false;
    }
    let operands: Vec<FoldOperand<'_>> = operation
        .operands
        .iter()
        .map(|&v| FoldOperand {
            ty: rw.f.value_type(v),
            constant: constant_of(rw.f, v),
        })
        .collect();
    let result = operation.results[0];
    let Some(folded) = operation.kind.fold(&operands, rw.f.value_type(result)) else {
        return false;
    };
    let value = match folded {
        Folded::Operand(i) => operation.operands[i],
        Folded::Constant(data) => {
            let ty = rw.f.value_type(result).clone();
            let location = operation.location.clone();
            let constant = rw.f.insert_op(
                InsertPoint::Before(op),
                NewOp {
                    location,
                    ..NewOp::new(OpKind::Constant(data), Vec::new(), vec![ty])
                },
            );
            rw.f.op(constant).results[0]
        }
    };
    rw.replace_op(op, &[value]);
    true
}

/// When `value` is `op(x, c)` or `op(c, x)` for a splat constant `c` (and `x` is not one): `x`
/// and `c`.
pub fn splat_operand_of(f: &Function, value: Value, op: BinaryOp) -> Option<(Value, Value)> {
    let producer = f.op(f.defining_op(value)?);
    if producer.kind != OpKind::Binary(op) {
        return None;
    }
    let splat = |v| constant_of(f, v).is_some_and(|c| c.is_splat());
    match producer.operands[..] {
        [a, b] if splat(b) && !splat(a) => Some((a, b)),
        [a, b] if splat(a) && !splat(b) => Some((b, a)),
        _ => None,
    }
}

/// The sizes of `value`'s tensor type, when every dimension is static.
pub fn static_shape_of(f: &Function, value: Value) -> Option<Vec<u64>> {
    f.value_type(value).as_tensor()?.static_shape()
}

/// The data of `value` when a `stablehlo.constant` defines it.
pub fn constant_of(f: &Function, value: Value) -> Option<&tpuc_ir::DenseElements> {
    match &f.op(f.defining_op(value)?).kind {
        OpKind::Constant(data) => Some(data),
        _ => None,
    }
}
