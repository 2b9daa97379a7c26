//! Plan diagnostics, located in the plan file.

use std::path::PathBuf;

use miette::{Diagnostic, NamedSource, SourceSpan};
use thiserror::Error;

#[derive(Debug, Error, Diagnostic)]
pub enum PlanError {
    #[error("cannot read the prewarm plan {}", path.display())]
    #[diagnostic(
        code(tpuc::prewarm::read),
        help("check the path given to `tpuc prewarm`")
    )]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error(transparent)]
    #[diagnostic(transparent)]
    Invalid(Box<InvalidPlan>),
}

/// A mistake in the plan, with the text it is about.
#[derive(Debug, Error, Diagnostic)]
#[error("{message}")]
#[diagnostic(code(tpuc::prewarm::plan))]
pub struct InvalidPlan {
    pub message: String,
    #[source_code]
    pub source_code: NamedSource<String>,
    #[label("{label}")]
    pub span: SourceSpan,
    pub label: String,
    #[help]
    pub help: Option<String>,
}

impl PlanError {
    /// The one-line message, without source or help (for tests and logs).
    pub fn message(&self) -> String {
        self.to_string()
    }

    /// The plan text the diagnostic points at, if it points at any.
    pub fn located_text(&self) -> Option<&str> {
        match self {
            PlanError::Invalid(invalid) => {
                let start = invalid.span.offset();
                invalid
                    .source_code
                    .inner()
                    .get(start..start + invalid.span.len())
            }
            PlanError::Read { .. } => None,
        }
    }
}
