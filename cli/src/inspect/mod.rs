//! `tpuc inspect`: a summary of a `.pt2` archive, as text for people or JSON for scripts.

mod report;
mod text;

use std::io::Write;
use std::path::Path;

use miette::{IntoDiagnostic, Result};

use crate::Format;
pub use report::Report;

pub fn run(model: &Path, with_graph: bool, format: Format) -> Result<()> {
    let archive = tpuc_pt2::Archive::open(model)?;
    let report = Report::new(&archive, with_graph)?;
    let rendered = match format {
        Format::Text => text::render(&report),
        Format::Json => {
            let mut json = serde_json::to_string_pretty(&report).into_diagnostic()?;
            json.push('\n');
            json
        }
    };
    std::io::stdout()
        .lock()
        .write_all(rendered.as_bytes())
        .into_diagnostic()
}
