//! Source text for verifier errors, attached after verification: the module's own text (each
//! op's span, from the parser's side table) and the user's files that ops' locations name.

use std::collections::HashMap;
use std::sync::Arc;

use miette::{NamedSource, SourceSpan};

use super::errors::{Site, Snippet, VerifyErrors};
use crate::error::IrError;
use crate::parse::OpSpans;

impl VerifyErrors {
    /// Labels each op's span in `text`, the module's text as the file `name` holds it.
    pub fn with_module_text(mut self, name: &str, text: &str, spans: &OpSpans) -> Self {
        let source = NamedSource::new(name, Arc::<str>::from(text));
        for error in self.errors_mut() {
            let (Some(function), Site::Op(op)) = (&error.function, &error.site) else {
                continue;
            };
            if let Some(span) = spans.get(function, op.id) {
                error.snippet = Some(Snippet {
                    source: source.clone(),
                    span,
                    label: format!("`{}` in `@{function}`", op.name),
                });
            }
        }
        self
    }

    /// Shows the line each op came from when its location names a file that can be read
    /// (relative to the current directory); other locations stay a plain `file:line`.
    pub fn with_user_sources(mut self) -> Self {
        let mut files: HashMap<String, Option<Arc<str>>> = HashMap::new();
        for error in self.errors_mut() {
            let Some(origin) = &mut error.origin else {
                continue;
            };
            let Some((file, line)) = &origin.file_line else {
                continue;
            };
            let text = files.entry(file.clone()).or_insert_with(|| {
                std::fs::read_to_string(file)
                    .ok()
                    .map(|text| Arc::from(text.as_str()))
            });
            let Some(text) = text else {
                continue;
            };
            if let Some(span) = line_span(text, *line) {
                origin.snippet = Some(Snippet {
                    source: NamedSource::new(file, Arc::clone(text)),
                    span,
                    label: "this line".to_owned(),
                });
            }
        }
        self
    }
}

impl IrError {
    /// [`VerifyErrors::with_module_text`] for a verifier error; other errors are returned as they are.
    pub fn with_module_text(self, name: &str, text: &str, spans: &OpSpans) -> Self {
        match self {
            Self::Verify(errors) => Self::Verify(errors.with_module_text(name, text, spans)),
            other => other,
        }
    }

    /// [`VerifyErrors::with_user_sources`] for a verifier error; other errors are returned as they are.
    pub fn with_user_sources(self) -> Self {
        match self {
            Self::Verify(errors) => Self::Verify(errors.with_user_sources()),
            other => other,
        }
    }
}

/// The text of 1-based line `line` without its indentation, if the file has it.
fn line_span(text: &str, line: u32) -> Option<SourceSpan> {
    let index = usize::try_from(line).ok()?.checked_sub(1)?;
    let mut start = 0;
    for (number, content) in text.split_inclusive('\n').enumerate() {
        if number == index {
            let trimmed = content.trim();
            let indent = content.len() - content.trim_start().len();
            return Some(SourceSpan::from(
                (start + indent)..(start + indent + trimmed.len()),
            ));
        }
        start += content.len();
    }
    None
}
