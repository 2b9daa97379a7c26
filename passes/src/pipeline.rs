//! The pass manager: runs a [`PipelineSpec`] on a program with verification, timing and IR
//! dumps after any stage.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use tpuc_ir::{Module, PrintOptions, Program};

use crate::error::PassError;
use crate::pass::PassContext;
use crate::sharding::ShardReport;
use crate::spec::PipelineSpec;

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
    /// How many composites of each name the module holds after the run.
    pub composites: BTreeMap<String, usize>,
    /// How many composites each kernel replaced (with a kernel library).
    pub kernels: BTreeMap<String, usize>,
    /// What the sharding plan decided, when the pipeline shards.
    pub sharding: Option<ShardReport>,
}

impl PipelineSpec {
    /// Runs every stage in order on `program`. Debug builds (the tests) verify after every
    /// stage whatever the options say.
    pub fn run(
        &self,
        program: &mut Program,
        options: &RunOptions,
    ) -> Result<PipelineReport, PassError> {
        let verify_each = options.verify_each || cfg!(debug_assertions);
        let mut report = PipelineReport::default();
        let mut cx = PassContext::default();
        for stage in &self.stages {
            let pass = stage.pass();
            let name = pass.name();
            if options.print_before.iter().any(|n| n == name) {
                report
                    .dumps
                    .push((format!("IR before {name}"), dump(&program.module, options)));
            }
            let ops_before = op_count(&program.module);
            let start = Instant::now();
            pass.run(program, &mut cx)?;
            let duration = start.elapsed();
            if verify_each {
                tpuc_ir::verify(&program.module).map_err(|source| PassError::Verify {
                    pass: name.to_owned(),
                    source,
                })?;
            }
            report.stats.push(PassStat {
                name,
                duration,
                ops_before,
                ops_after: op_count(&program.module),
            });
            if options.print_after_all || options.print_after.iter().any(|n| n == name) {
                report
                    .dumps
                    .push((format!("IR after {name}"), dump(&program.module, options)));
            }
        }
        report.composites = crate::fusion::composite_counts(&program.module);
        report.kernels = cx.kernels;
        report.sharding = match cx.sharding {
            Some(assignment) => Some(ShardReport::of(program, assignment)?),
            None => None,
        };
        Ok(report)
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
