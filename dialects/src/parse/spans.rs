//! Where each op of a parsed module is in its text: a side table for diagnostics about ops
//! (the verifier's), so the IR itself carries no byte offsets.

use std::collections::HashMap;

use miette::SourceSpan;

use crate::function::OpId;

/// Each op's span: from its first result name (or its name if it has no results) to the end
/// of its name, as in `%0 = stablehlo.add`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpSpans {
    by_function: HashMap<String, HashMap<OpId, SourceSpan>>,
}

impl OpSpans {
    pub fn get(&self, function: &str, op: OpId) -> Option<SourceSpan> {
        self.by_function.get(function)?.get(&op).copied()
    }

    /// The table of `recorded` spans, `(function index, op, start, end)`, with the functions
    /// named as `names` (the module's function names by index) names them.
    pub(super) fn new(recorded: &[(usize, OpId, usize, usize)], names: &[&str]) -> Self {
        let mut by_function: HashMap<String, HashMap<OpId, SourceSpan>> = HashMap::new();
        for &(function, op, start, end) in recorded {
            if let Some(name) = names.get(function) {
                by_function
                    .entry((*name).to_owned())
                    .or_default()
                    .insert(op, SourceSpan::from(start..end));
            }
        }
        Self { by_function }
    }
}
