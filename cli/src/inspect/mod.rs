//! `tpuc inspect`: a summary of a `.pt2` archive, as text for people or JSON for scripts.

mod report;
mod text;

use std::io::Write;
use std::path::Path;

use miette::{IntoDiagnostic, Result};

use crate::Format;
pub use report::Report;

pub fn run(model: &Path, with_graph: bool, composites: bool, format: Format) -> Result<()> {
    let archive = tpuc_pt2::Archive::open(model)?;
    let mut report = Report::new(&archive, with_graph)?;
    if composites {
        report.composites = Some(composite_counts(model)?);
    }
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

/// The composites of each kind in the program lowered with the default pipeline and `fuse`.
fn composite_counts(model: &Path) -> Result<std::collections::BTreeMap<String, usize>> {
    let options = tpuc_driver::LowerOptions {
        passes: tpuc_passes::PassOptions {
            pipeline: format!(
                "{},{}",
                tpuc_passes::DEFAULT_PIPELINE,
                tpuc_passes::FUSE_PASSES
            ),
            ..Default::default()
        },
        ..Default::default()
    };
    let lowered = tpuc_driver::lower(model, &options)?;
    Ok(tpuc_passes::composite_counts(&lowered.program.module))
}
