//! The middle end as the commands run it: a program from the front end through the pipeline
//! the options ask for (one [`PipelineSpec`](tpuc_passes::PipelineSpec), built by
//! `PipelineRequest::spec`), ready for the back end.

use std::collections::BTreeMap;

use tpuc_ir::Program;
use tpuc_passes::{PipelineReport, PipelineSpec, Source};
use tpuc_pt2::Archive;

use crate::error::{DriverError, Result};
use crate::frontend::ProgramSource;
use crate::options::Options;
use crate::signature::{ArgumentBinding, ResultBinding, bindings};

/// A program after the middle end, with what the runtime needs to bind it.
#[derive(Clone, Debug)]
pub struct Built {
    pub program: Program,
    pub arguments: Vec<ArgumentBinding>,
    pub results: Vec<ResultBinding>,
    /// The symbol values the program was specialised to.
    pub dims: BTreeMap<String, i64>,
    /// What the passes did (timing, IR dumps, composites, kernels, sharding).
    pub passes: PipelineReport,
    /// What the front end warned about (an archive that disagrees with itself).
    pub warnings: Vec<String>,
}

/// Reads the program from `source` and runs the middle end on it; `name` names the model in
/// messages.
pub fn build(source: &ProgramSource, name: &str, options: &Options) -> Result<Built> {
    let tpuc_lower::Lowered {
        mut program,
        dims,
        warnings,
    } = source.program(&options.lower)?;
    if !options.parameters.is_empty() {
        crate::parameters::mark(&mut program, &options.parameters)?;
    }
    let spec = options.pipeline.spec(source.kind());
    let passes = spec.run(&mut program, &options.run)?;
    // Where XLA departs from the spec, the module asks for the spec's answer.
    tpuc_ir::legalize::for_xla(&mut program.module)
        .map_err(|error| DriverError::Module(Box::new(error)))?;
    let (arguments, results) = bindings(&program, name)?;
    Ok(Built {
        program,
        arguments,
        results,
        dims,
        passes,
        warnings,
    })
}

/// `tpuc lower --dynamic`: the archive's program with its symbolic dimensions kept, through the
/// middle end without fusion (composites carry static shapes) and without sharding.
pub fn build_dynamic(archive: &Archive, options: &Options) -> Result<(Program, PipelineReport)> {
    let refused = [
        (options.pipeline.sharding.is_some(), "`--shard`"),
        (options.pipeline.kernels.is_some(), "`--kernels`"),
    ];
    if let Some((_, flag)) = refused.iter().find(|(on, _)| *on) {
        return Err(tpuc_lower::refused_with_dynamic(flag).into());
    }
    let spec = options.pipeline.without_fusion().spec(Source::Archive);
    let lower_at = |dims: &BTreeMap<String, i64>| -> Result<(tpuc_lower::Lowered, PipelineReport)> {
        let mut lower = options.lower.clone();
        lower.dims.extend(dims.clone());
        let mut lowered = crate::frontend::lower_archive(archive, &lower)?;
        let report = spec.run(&mut lowered.program, &options.run)?;
        Ok((lowered, report))
    };
    let Some(plan) = tpuc_lower::plan_dynamic(archive, &options.lower)? else {
        let (lowered, report) = lower_at(&BTreeMap::new())?;
        return Ok((lowered.program, report));
    };
    let mut lowerings = Vec::new();
    let mut report = None;
    for point in plan.points() {
        let (lowered, sample_report) = lower_at(point)?;
        report.get_or_insert(sample_report);
        lowerings.push(lowered);
    }
    let mut program = plan.generalize(lowerings)?.program;
    // The shapes of ops that share them are computed once.
    PipelineSpec::parse("cse,dce")?.run(&mut program, &options.run)?;
    tpuc_ir::verify(&program.module).map_err(|errors| DriverError::Shape {
        message: format!("--dynamic: the generalised module does not verify: {errors}"),
        help: Some("this is a bug in tpuc; please report it with the model".to_owned()),
    })?;
    Ok((program, report.unwrap_or_default()))
}
