//! Selects whose branches agree.

use tpuc_ir::{OpId, OpKind};

use crate::rewrite::{Pattern, Rewriter};

/// `select(p, x, x)` is `x`.
pub(crate) struct SelectOfSameValues;

impl Pattern for SelectOfSameValues {
    fn name(&self) -> &'static str {
        "select-of-same-values"
    }

    fn rewrite(&self, rw: &mut Rewriter<'_>, op: OpId) -> bool {
        let operation = rw.function().op(op);
        if operation.kind != OpKind::Select || operation.operands[1] != operation.operands[2] {
            return false;
        }
        let value = operation.operands[1];
        if rw.function().value_type(value) != rw.function().value_type(operation.results[0]) {
            return false;
        }
        rw.replace_op(op, &[value]);
        true
    }
}
