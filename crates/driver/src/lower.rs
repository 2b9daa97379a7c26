//! `tpuc lower`: a program through the front and middle ends, printed in one of the emit
//! forms. The printed module carries its interface, so `tpuc compile` of the text is the same
//! program.

use std::path::Path;

use crate::emit::{Emit, fx_graph};
use crate::error::Result;
use crate::frontend::ProgramSource;
use crate::middle::{Built, build, build_dynamic};
use crate::options::Options;

/// A program read from `model` and built.
#[derive(Debug)]
pub struct Lowered {
    pub source_archive: Option<tpuc_pt2::Archive>,
    pub built: Built,
}

/// Reads `model` (an archive or StableHLO text) and runs the middle end on its program.
pub fn lower(model: &Path, options: &Options) -> Result<Lowered> {
    let source = ProgramSource::open(model)?;
    let built = build(&source, &model.display().to_string(), options)?;
    let source_archive = match source {
        ProgramSource::Archive(archive) => Some(*archive),
        ProgramSource::Text { .. } => None,
    };
    Ok(Lowered {
        source_archive,
        built,
    })
}

/// The module with its symbolic dimensions kept dynamic (`tpuc lower --dynamic`), as text.
pub fn lower_dynamic(model: &Path, options: &Options, emit: Emit) -> Result<String> {
    let archive = tpuc_pt2::Archive::open(model)?;
    let (program, _) = build_dynamic(&archive, options)?;
    Ok(module_text(&program.module, emit))
}

impl Lowered {
    /// The module as StableHLO text; [`Emit::Fx`] gives the archive's FX graph.
    pub fn text(&self, emit: Emit) -> String {
        match (emit, &self.source_archive) {
            (Emit::Fx, Some(archive)) => fx_graph(archive),
            _ => module_text(&self.built.program.module, emit),
        }
    }
}

fn module_text(module: &tpuc_ir::Module, emit: Emit) -> String {
    let options = tpuc_ir::PrintOptions::default();
    match emit {
        Emit::StablehloGeneric => tpuc_ir::print::generic(module, &options),
        Emit::Stablehlo | Emit::Fx => tpuc_ir::print::pretty(module, &options),
    }
}

/// The text `tpuc lower` prints: the FX graph needs no lowering, the StableHLO forms do.
pub fn emit(model: &Path, emit: Emit, options: &Options) -> Result<String> {
    match emit {
        Emit::Fx => Ok(fx_graph(&tpuc_pt2::Archive::open(model)?)),
        stablehlo => Ok(lower(model, options)?.text(stablehlo)),
    }
}
