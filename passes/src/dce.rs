//! Dead-code elimination: removes ops whose results nobody uses and that have no effect.

use tpuc_ir::{Function, OpId};

use crate::error::PassError;
use crate::pass::{Pass, PassContext};
use tpuc_ir::Program;

pub(crate) struct Dce;

impl Pass for Dce {
    fn name(&self) -> &'static str {
        "dce"
    }

    fn run(&self, program: &mut Program, _: &mut PassContext) -> Result<(), PassError> {
        let module = &mut program.module;
        for function in &mut module.functions {
            eliminate_dead_ops(function);
        }
        Ok(())
    }
}

/// Whether `op` may go once its results are unused: it and everything nested in it are free of
/// side effects (terminators aside).
pub(crate) fn is_removable(f: &Function, op: OpId) -> bool {
    let operation = f.op(op);
    if !operation.kind.is_pure() || operation.kind.is_terminator() {
        return false;
    }
    operation.regions.iter().all(|&region| {
        let mut nested = Vec::new();
        f.walk_region(region, &mut nested);
        nested.iter().all(|&inner| {
            let kind = &f.op(inner).kind;
            kind.is_terminator() || !kind.has_side_effect()
        })
    })
}

/// Erases dead ops, last first, so that an op whose users were all dead goes too.
pub(crate) fn eliminate_dead_ops(f: &mut Function) -> usize {
    let mut erased = 0;
    for op in f.walk().into_iter().rev() {
        if f.parent_block(op).is_some() && !f.op_is_used(op) && is_removable(f, op) {
            f.erase_op(op);
            erased += 1;
        }
    }
    erased
}
