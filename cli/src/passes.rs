//! Pass-pipeline flags shared by `lower`, `compile`, `run` and `opt`, and how their reports print.

use tpuc_passes::{PassOptions, PipelineReport, RunOptions};

#[derive(clap::Args)]
pub struct PassArgs {
    /// The passes to run on the module, separated by commas (e.g. `canonicalize,cse,dce`;
    /// `--passes ''` runs none). Default for `lower`, `compile` and `run`: the simplification
    /// pipeline `canonicalize,cse,canonicalize,cse,dce,prune-args` (after `chlo-legalize` for
    /// `.mlir` input); for `opt`: `chlo-legalize`.
    #[arg(long, value_name = "PASS,...")]
    passes: Option<String>,
    /// Verify the module after every pass.
    #[arg(long)]
    verify_each: bool,
    /// Print each pass's time and op-count change to stderr.
    #[arg(long)]
    timing: bool,
    /// Print the module to stderr after every pass.
    #[arg(long)]
    print_ir_after_all: bool,
    /// Print the module to stderr after each pass so named.
    #[arg(long, value_name = "PASS")]
    print_ir_after: Vec<String>,
    /// Print the module to stderr before each pass so named.
    #[arg(long, value_name = "PASS")]
    print_ir_before: Vec<String>,
}

impl PassArgs {
    /// The options, with `default` as the pipeline when `--passes` is not given.
    pub fn options(&self, default: &str) -> PassOptions {
        PassOptions {
            pipeline: self.passes.clone().unwrap_or_else(|| default.to_owned()),
            run: RunOptions {
                verify_each: self.verify_each,
                print_after_all: self.print_ir_after_all,
                print_after: self.print_ir_after.clone(),
                print_before: self.print_ir_before.clone(),
                pretty: true,
                ..RunOptions::default()
            },
        }
    }

    /// Prints the dumps and, with `--timing`, the timing table to stderr.
    pub fn print_report(&self, report: &PipelineReport) {
        for (header, text) in &report.dumps {
            eprintln!("// -----// {header} //----- //\n{text}");
        }
        if self.timing {
            eprint!("{}", report.timing_table());
        }
    }

    /// Whether anything asks for a report of the passes.
    pub fn wants_report(&self) -> bool {
        self.timing
            || self.print_ir_after_all
            || !self.print_ir_after.is_empty()
            || !self.print_ir_before.is_empty()
    }
}
