//! The [`Pass`] trait and what passes report besides the module they change.

use std::collections::BTreeMap;

use tpuc_ir::Module;

/// One transformation of a module. A pass keeps the module verified and its numerics.
pub trait Pass {
    /// The name used in pipelines (`--passes NAME,...`) and reports.
    fn name(&self) -> &'static str;

    fn run(&self, module: &mut Module, cx: &mut PassContext);
}

/// What passes tell the caller about changes to the module's interface.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PassContext {
    /// Per function, the original indices of the arguments removed from it, ascending.
    pub removed_args: BTreeMap<String, Vec<usize>>,
}

impl PassContext {
    /// Records that `function`, which had `arity` arguments, lost those at `indices` (positions
    /// in its signature before the removal), as positions in its original signature.
    pub(crate) fn note_removed_args(&mut self, function: &str, arity: usize, indices: &[usize]) {
        let removed = self.removed_args.entry(function.to_owned()).or_default();
        let originals: Vec<usize> = (0..arity + removed.len())
            .filter(|p| !removed.contains(p))
            .collect();
        removed.extend(indices.iter().map(|&i| originals[i]));
        removed.sort_unstable();
    }
}
