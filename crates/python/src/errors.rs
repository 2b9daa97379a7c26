//! Errors as Python exceptions: the classes of `tpuc._errors`, carrying the diagnostic text the
//! CLI prints and its code.

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, Report};
use pyo3::prelude::*;

/// Which exception class of `tpuc._errors` an error becomes.
#[derive(Clone, Copy)]
pub enum Kind {
    /// `tpuc.Error`: anything the CLI reports as an error.
    Error,
    /// `tpuc.CacheError`: a cache entry that failed verification.
    Cache,
    /// `tpuc.UntrustedError`: an entry not signed by a trusted key.
    Untrusted,
}

impl Kind {
    fn class(self) -> &'static str {
        match self {
            Kind::Error => "Error",
            Kind::Cache => "CacheError",
            Kind::Untrusted => "UntrustedError",
        }
    }
}

/// The diagnostic as the CLI prints it (without colours), and its code.
pub fn render(diagnostic: &dyn Diagnostic) -> (String, Option<String>) {
    let mut text = String::new();
    let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor());
    if handler.render_report(&mut text, diagnostic).is_err() {
        text = diagnostic.to_string();
    }
    let code = diagnostic.code().map(|code| code.to_string());
    (text.trim_end().to_owned(), code)
}

/// A `tpuc.Error` for a report.
pub fn to_py(report: &Report) -> PyErr {
    let diagnostic: &dyn Diagnostic = report.as_ref();
    let (text, code) = render(diagnostic);
    raise(Kind::Error, text, code)
}

/// An exception of `kind` with `message` and `code`.
pub fn raise(kind: Kind, message: String, code: Option<String>) -> PyErr {
    Python::attach(|py| {
        let class = py
            .import("tpuc._errors")
            .and_then(|module| module.getattr(kind.class()));
        match class {
            Ok(class) => PyErr::from_value(match class.call1((message.clone(), code)) {
                Ok(value) => value,
                Err(error) => return error,
            }),
            Err(_) => pyo3::exceptions::PyRuntimeError::new_err(message),
        }
    })
}
