//! Removes the arguments of public functions that nothing uses (a BatchNorm's
//! `num_batches_tracked`, an unused buffer), recording them in [`PassContext::removed_args`] so
//! that callers stop passing them.

use tpuc_ir::Module;

use crate::pass::{Pass, PassContext};

pub(crate) struct PruneArgs;

impl Pass for PruneArgs {
    fn name(&self) -> &'static str {
        "prune-args"
    }

    fn run(&self, module: &mut Module, cx: &mut PassContext) {
        for function in &mut module.functions {
            let unused: Vec<usize> = function
                .args()
                .iter()
                .enumerate()
                .filter(|&(_, &arg)| !function.has_uses(arg))
                .map(|(i, _)| i)
                .collect();
            if unused.is_empty() {
                continue;
            }
            // A private function's callers would need their operands changed too; only entry
            // points (whose callers are runtimes told through the context) are pruned.
            if function.visibility != tpuc_ir::Visibility::Public {
                continue;
            }
            let arity = function.args().len();
            function.remove_args(&unused);
            cx.note_removed_args(&function.name, arity, &unused);
        }
    }
}
