//! Pass-pipeline flags shared by `lower`, `compile`, `run` and `opt`, and how their reports print.

use tpuc_passes::{FUSE_PASSES, PassOptions, PipelineReport, RunOptions};

#[derive(clap::Args)]
pub struct PassArgs {
    /// The passes to run on the module, separated by commas (e.g. `canonicalize,cse,dce`;
    /// `--passes ''` runs none). Default for `lower`, `compile` and `run`: the simplification
    /// pipeline `canonicalize,cse,canonicalize,cse,dce,prune-args`; for `opt`: none.
    #[arg(long, value_name = "PASS,...")]
    passes: Option<String>,
    /// Outline attention, norms, activations, rotary embeddings, softmax and top-k routing into
    /// `stablehlo.composite` ops (appends `fuse,dce` to the pipeline; see docs/fusion.md).
    #[arg(long, conflicts_with = "no_fuse")]
    fuse: bool,
    /// Do not outline composites (the default): drops `fuse` from the pipeline.
    #[arg(long)]
    no_fuse: bool,
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
            pipeline: self.pipeline(default),
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

    /// The pipeline text: `--passes` or `default`, with `fuse,dce` appended for `--fuse` (unless
    /// it already fuses) and every `fuse` dropped for `--no-fuse`.
    fn pipeline(&self, default: &str) -> String {
        let pipeline = self.passes.clone().unwrap_or_else(|| default.to_owned());
        let names: Vec<&str> = pipeline.split(',').map(str::trim).filter(|n| !n.is_empty()).collect();
        if self.no_fuse {
            return names.into_iter().filter(|&n| n != "fuse").collect::<Vec<_>>().join(",");
        }
        if self.fuse && !names.contains(&"fuse") {
            let mut names = names;
            names.extend(FUSE_PASSES.split(','));
            return names.join(",");
        }
        pipeline
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
