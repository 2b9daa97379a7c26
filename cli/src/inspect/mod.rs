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
    let options = tpuc_driver::Options {
        pipeline: tpuc_passes::PipelineRequest {
            fusion: tpuc_passes::Fusion::Fuse,
            ..Default::default()
        },
        ..Default::default()
    };
    let lowered = tpuc_driver::lower(model, &options)?;
    Ok(tpuc_passes::composite_counts(&lowered.built.program.module))
}
