//! Lowering: open an archive, lower its program, print it in one of the emit forms.

use std::path::Path;

use tpuc_lower::LowerOptions;
use tpuc_pt2::Archive;

use crate::emit::{Emit, fx_graph};
use crate::error::Result;

/// An archive and the StableHLO module lowered from it.
#[derive(Debug)]
pub struct Lowered {
    pub archive: Archive,
    pub program: tpuc_lower::Lowered,
}

/// Opens the archive at `model` and lowers its program.
pub fn lower(model: &Path, options: &LowerOptions) -> Result<Lowered> {
    let archive = Archive::open(model)?;
    let program = tpuc_lower::lower(&archive, options)?;
    Ok(Lowered { archive, program })
}

/// Opens the archive at `model` and lowers its program with its symbolic dimensions kept
/// dynamic (`tpuc lower --dynamic`; see [`tpuc_lower::lower_dynamic`]).
pub fn lower_dynamic(model: &Path, options: &LowerOptions) -> Result<Lowered> {
    let archive = Archive::open(model)?;
    let program = tpuc_lower::lower_dynamic(&archive, options)?;
    Ok(Lowered { archive, program })
}

impl Lowered {
    /// The module as StableHLO text; [`Emit::Fx`] gives the archive's FX graph.
    pub fn text(&self, emit: Emit) -> String {
        let options = tpuc_ir::PrintOptions::default();
        match emit {
            Emit::Stablehlo => tpuc_ir::print::pretty(&self.program.module, &options),
            Emit::StablehloGeneric => tpuc_ir::print::generic(&self.program.module, &options),
            Emit::Fx => fx_graph(&self.archive),
        }
    }
}

/// The text `tpuc lower` prints: the FX graph needs no lowering, the StableHLO forms do.
pub fn emit(model: &Path, emit: Emit, options: &LowerOptions) -> Result<String> {
    match emit {
        Emit::Fx => Ok(fx_graph(&Archive::open(model)?)),
        stablehlo => Ok(lower(model, options)?.text(stablehlo)),
    }
}
