//! The pass manager: a pipeline parsed from text, run with verification, timing and IR dumps.

use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, Instant};

use tpuc_ir::{Module, PrintOptions};

use crate::error::PassError;
use crate::pass::{Pass, PassContext};

/// The pipeline `tpuc` runs unless told otherwise.
pub const DEFAULT_PIPELINE: &str = "canonicalize,cse,canonicalize,cse,dce,prune-args";

/// What `tpuc opt` runs unless told otherwise: StableHLO text from other producers may hold
/// CHLO, which nothing after the front end reads.
pub const MLIR_INPUT_PASSES: &str = "chlo-legalize";

/// What `--fuse` appends to a pipeline: outlining composites, then erasing what they left dead.
pub const FUSE_PASSES: &str = "fuse,dce";

/// `pipeline` without its `fuse` passes (`--no-fuse`), names trimmed, empty ones dropped.
pub fn without_fusion(pipeline: &str) -> String {
    pipeline
        .split(',')
        .map(str::trim)
        .filter(|&n| !n.is_empty() && n != "fuse")
        .collect::<Vec<_>>()
        .join(",")
}

/// Every pass by name, in the order `--help` lists them.
fn registry() -> Vec<Box<dyn Pass>> {
    vec![
        Box::new(crate::chlo::ChloLegalize),
        Box::new(crate::canonicalize::Canonicalize),
        Box::new(crate::canonicalize::Fold),
        Box::new(crate::cse::Cse),
        Box::new(crate::dce::Dce),
        Box::new(crate::prune_args::PruneArgs),
        Box::new(crate::sharding::ShardingPropagate),
        Box::new(crate::fusion::Fuse),
        Box::new(crate::fusion::InlineComposites),
    ]
}

/// A sequence of passes.
pub struct Pipeline {
    passes: Vec<Box<dyn Pass>>,
}

/// How to run a pipeline.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunOptions {
    /// Verify the module after every pass (tests always do).
    pub verify_each: bool,
    /// Keep the module's text after every pass.
    pub print_after_all: bool,
    /// Keep the module's text after each pass so named.
    pub print_after: Vec<String>,
    /// Keep the module's text before each pass so named.
    pub print_before: Vec<String>,
    /// How dumps print the module.
    pub print: PrintOptions,
    /// Pretty (true) or generic form for dumps.
    pub pretty: bool,
}

/// What one pass did.
#[derive(Clone, Debug, PartialEq)]
pub struct PassStat {
    pub name: &'static str,
    pub duration: Duration,
    pub ops_before: usize,
    pub ops_after: usize,
}

/// What a pipeline run did.
#[derive(Clone, Debug, Default)]
pub struct PipelineReport {
    pub stats: Vec<PassStat>,
    /// `(header, module text)` in the order they were taken.
    pub dumps: Vec<(String, String)>,
    pub context: PassContext,
    /// How many composites of each name the module holds after the run.
    pub composites: BTreeMap<String, usize>,
    /// How many composites each kernel replaced (with a kernel library).
    pub kernels: BTreeMap<String, usize>,
}

impl Pipeline {
    /// Parses `name,name,...`; an empty string is the empty pipeline.
    pub fn parse(text: &str) -> Result<Self, PassError> {
        let mut passes = Vec::new();
        for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let pass = registry()
                .into_iter()
                .find(|p| p.name() == name)
                .ok_or_else(|| PassError::UnknownPass {
                    name: name.to_owned(),
                    pipeline: text.to_owned(),
                    known: Self::known().join(", "),
                })?;
            passes.push(pass);
        }
        Ok(Self { passes })
    }

    /// [`DEFAULT_PIPELINE`].
    pub fn default_pipeline() -> Self {
        Self::parse(DEFAULT_PIPELINE).expect("the default pipeline names known passes")
    }

    /// The names of every pass.
    pub fn known() -> Vec<&'static str> {
        registry().iter().map(|p| p.name()).collect()
    }

    pub fn is_empty(&self) -> bool {
        self.passes.is_empty()
    }

    /// Runs every pass in order on `module`.
    pub fn run(
        &self,
        module: &mut Module,
        options: &RunOptions,
    ) -> Result<PipelineReport, PassError> {
        let mut report = PipelineReport::default();
        for pass in &self.passes {
            let name = pass.name();
            if options.print_before.iter().any(|n| n == name) {
                report
                    .dumps
                    .push((format!("IR before {name}"), dump(module, options)));
            }
            let ops_before = op_count(module);
            let start = Instant::now();
            pass.run(module, &mut report.context);
            let duration = start.elapsed();
            if options.verify_each {
                tpuc_ir::verify(module).map_err(|source| PassError::Verify {
                    pass: name.to_owned(),
                    source,
                })?;
            }
            report.stats.push(PassStat {
                name,
                duration,
                ops_before,
                ops_after: op_count(module),
            });
            if options.print_after_all || options.print_after.iter().any(|n| n == name) {
                report
                    .dumps
                    .push((format!("IR after {name}"), dump(module, options)));
            }
        }
        report.composites = crate::fusion::composite_counts(module);
        Ok(report)
    }
}

impl fmt::Display for Pipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.passes.iter().map(|p| p.name()).collect();
        f.write_str(&names.join(","))
    }
}

impl fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pipeline({self})")
    }
}

/// Ops attached to the module's functions, nested ones included.
pub fn op_count(module: &Module) -> usize {
    module.functions.iter().map(|f| f.attached_op_count()).sum()
}

fn dump(module: &Module, options: &RunOptions) -> String {
    if options.pretty {
        tpuc_ir::print::pretty(module, &options.print)
    } else {
        tpuc_ir::print::generic(module, &options.print)
    }
}

impl PipelineReport {
    /// The `--timing` table: one line per pass, then the total.
    pub fn timing_table(&self) -> String {
        let mut out = String::from("pass                  time      ops before → after   delta\n");
        let mut total = Duration::ZERO;
        for s in &self.stats {
            total += s.duration;
            let delta = s.ops_after as i64 - s.ops_before as i64;
            out.push_str(&format!(
                "{:<18} {:>8.3} ms   {:>8} → {:<8} {:>+6}\n",
                s.name,
                s.duration.as_secs_f64() * 1e3,
                s.ops_before,
                s.ops_after,
                delta
            ));
        }
        let (first, last) = (
            self.stats.first().map_or(0, |s| s.ops_before),
            self.stats.last().map_or(0, |s| s.ops_after),
        );
        out.push_str(&format!(
            "{:<18} {:>8.3} ms   {:>8} → {:<8} {:>+6}\n",
            "total",
            total.as_secs_f64() * 1e3,
            first,
            last,
            last as i64 - first as i64
        ));
        for (name, count) in &self.composites {
            out.push_str(&format!("composite {name:<42} {count:>6}\n"));
        }
        for (name, count) in &self.kernels {
            out.push_str(&format!("kernel {name:<45} {count:>6}\n"));
        }
        out
    }
}

/// A pipeline by name and how to run it: what front ends carry in their options.
#[derive(Clone, Debug, PartialEq)]
pub struct PassOptions {
    /// Pass names separated by commas (see [`Pipeline::parse`]).
    pub pipeline: String,
    pub run: RunOptions,
    /// Kernels replacing the composites they implement once the pipeline has run.
    pub kernels: Option<crate::KernelLibrary>,
}

impl Default for PassOptions {
    fn default() -> Self {
        Self {
            pipeline: DEFAULT_PIPELINE.to_owned(),
            run: RunOptions::default(),
            kernels: None,
        }
    }
}

impl PassOptions {
    /// Parses the pipeline and runs it on `module`. Debug builds (the tests) verify after
    /// every pass whatever the options say.
    pub fn run(&self, module: &mut Module) -> Result<PipelineReport, PassError> {
        let mut run = self.run.clone();
        run.verify_each |= cfg!(debug_assertions);
        let mut report = Pipeline::parse(&self.pipeline)?.run(module, &run)?;
        if let Some(library) = &self.kernels {
            let ops_before = op_count(module);
            let start = Instant::now();
            report.kernels = crate::fusion::substitute_kernels(module, library)?;
            if run.verify_each {
                tpuc_ir::verify(module).map_err(|source| PassError::Verify {
                    pass: "kernels".to_owned(),
                    source,
                })?;
            }
            report.stats.push(PassStat {
                name: "kernels",
                duration: start.elapsed(),
                ops_before,
                ops_after: op_count(module),
            });
            report.composites = crate::fusion::composite_counts(module);
        }
        Ok(report)
    }
}
