//! The parse diagnostic: what went wrong, where (byte span plus line and column), how to fix it.

use miette::{Diagnostic, NamedSource, SourceSpan};
use thiserror::Error;

/// A syntax or name-resolution error in StableHLO text.
///
/// Render it with its source excerpt through [`ParseError::with_source`] (or attach the text
/// yourself with `miette::Report::with_source_code`).
#[derive(Clone, Debug, Error, Diagnostic, PartialEq, Eq)]
#[error("{line}:{column}: {message}")]
#[diagnostic(code(tpuc_ir::parse))]
pub struct ParseError {
    pub message: String,
    /// 1-based line of the error's start.
    pub line: usize,
    /// 1-based column (in characters) of the error's start.
    pub column: usize,
    #[label("here")]
    pub span: SourceSpan,
    #[help]
    pub help: Option<String>,
}

impl ParseError {
    /// An error at byte range `start..end` of `source`.
    pub(crate) fn at(source: &str, start: usize, end: usize, message: impl Into<String>) -> Self {
        let mut start = start.min(source.len());
        while !source.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = end.clamp(start, source.len());
        while !source.is_char_boundary(end) {
            end += 1;
        }
        let before = &source[..start];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = source[line_start..start].chars().count() + 1;
        Self {
            message: message.into(),
            line,
            column,
            span: SourceSpan::from(start..end),
            help: None,
        }
    }

    pub(crate) fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// A report that shows the error under the offending line of `text`, titled `name`.
    pub fn with_source(self, name: impl AsRef<str>, text: impl Into<String>) -> miette::Report {
        miette::Report::new(self).with_source_code(NamedSource::new(name, text.into()))
    }
}
