//! Archives that disagree with themselves: torch recorded a type for a node's output that the
//! node's op does not compute. Lowering goes on with the computed type; when the program's
//! outputs still have their recorded types the disagreement was local and becomes a warning,
//! otherwise it is the error.

use crate::error::{LowerError, SourceLine};

/// One node output whose recorded type is not the computed one.
#[derive(Clone, Debug)]
pub(crate) struct Disagreement {
    pub node: String,
    pub target: String,
    pub source_line: Option<Box<SourceLine>>,
    /// The output's name in the graph.
    pub name: String,
    pub recorded: String,
    pub computed: String,
}

impl Disagreement {
    fn at(&self) -> String {
        self.source_line
            .as_ref()
            .map(|s| format!(" at {s}"))
            .unwrap_or_default()
    }

    /// Which node computes what, and what the archive records.
    fn what(&self) -> String {
        format!(
            "node `{}` (`{}`{}) computes {} for `{}`, but the archive records {}",
            self.node,
            self.target,
            self.at(),
            self.computed,
            self.name,
            self.recorded
        )
    }

    /// The warning when the program's outputs agree with their records.
    pub fn warning(&self) -> String {
        format!(
            "the archive disagrees with itself: {}; the program's outputs have the types the \
             archive records, so tpuc goes on with the computed type",
            self.what()
        )
    }

    /// The error, with why tpuc cannot go on.
    fn error(&self, why: String) -> LowerError {
        LowerError::InconsistentArchive {
            node: self.node.clone(),
            source_line: self.source_line.clone(),
            message: self.what(),
            help: format!(
                "{why}; the archive's metadata does not match its own graph, so tpuc cannot tell \
                 which is meant: export the model again (`torch.export.export`, then \
                 `torch.export.save` with the same torch), and report it with the model if a \
                 fresh export disagrees too"
            ),
        }
    }
}

/// The outcome of lowering a program whose nodes disagreed with their records: the first
/// disagreement as the error when a later node failed or a program output is one of them. An
/// op tpuc does not lower stays that error, whatever the records say.
pub(crate) fn judge(
    disagreements: &[Disagreement],
    later: Option<&LowerError>,
    outputs: &[&str],
) -> Result<(), LowerError> {
    let Some(first) = disagreements.first() else {
        return Ok(());
    };
    match later {
        Some(LowerError::UnsupportedOp { .. } | LowerError::UnsupportedOps { .. }) => {
            return Ok(());
        }
        Some(error) => return Err(first.error(format!("lowering then failed: {error}"))),
        None => {}
    }
    match disagreements
        .iter()
        .find(|d| outputs.contains(&d.name.as_str()))
    {
        Some(output) if output.name == first.name => {
            Err(first.error(format!("`{}` is an output of the program", first.name)))
        }
        Some(output) => Err(first.error(format!(
            "the program's output `{}` disagrees too: computed {}, recorded {}",
            output.name, output.computed, output.recorded
        ))),
        None => Ok(()),
    }
}
