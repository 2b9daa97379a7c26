//! Where each op of a parsed module is in its text: a side table for diagnostics about ops
//! (the verifier's), so the IR itself carries no byte offsets.

use std::collections::HashMap;

use miette::SourceSpan;

use crate::function::OpId;

/// Each op's span: from its first result name (or its name) to the end of the op or of the
/// line it starts on, whichever comes first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpSpans {
    by_function: HashMap<String, HashMap<OpId, SourceSpan>>,
}

impl OpSpans {
    pub fn get(&self, function: &str, op: OpId) -> Option<SourceSpan> {
        self.by_function.get(function)?.get(&op).copied()
    }

    /// The table of `recorded` spans, `(function index, op, start, end)`, as `names` (the
    /// module's function names by index) name the functions.
    pub(super) fn new(src: &str, recorded: &[(usize, OpId, usize, usize)], names: &[&str]) -> Self {
        let mut by_function: HashMap<String, HashMap<OpId, SourceSpan>> = HashMap::new();
        for &(function, op, start, end) in recorded {
            let Some(name) = names.get(function) else {
                continue;
            };
            let line_end = src[start..end].find('\n').map_or(end, |i| start + i);
            let span = SourceSpan::from(start..line_end);
            by_function
                .entry((*name).to_owned())
                .or_default()
                .insert(op, span);
        }
        Self { by_function }
    }
}
