//! Pass-pipeline flags shared by `lower`, `compile`, `run` and `opt`, and how their reports print.

use std::path::PathBuf;

use miette::{Result, miette};
use tpuc_passes::{FUSE_PASSES, KernelLibrary, PassOptions, PipelineReport, RunOptions};

#[derive(clap::Args)]
pub struct PassArgs {
    /// The passes to run on the module, separated by commas (e.g. `canonicalize,cse,dce`;
    /// `--passes ''` runs none). Default for `lower`, `compile` and `run`: the simplification
    /// pipeline `canonicalize,cse,canonicalize,cse,dce,prune-args` (after `chlo-legalize` for
    /// `.mlir` input); for `opt`: `chlo-legalize`.
    #[arg(long, value_name = "PASS,...")]
    passes: Option<String>,
    /// Outline attention, norms, activations, rotary embeddings, softmax and top-k routing into
    /// `stablehlo.composite` ops (appends `fuse,dce` to the pipeline; see docs/fusion.md).
    #[arg(long, conflicts_with = "no_fuse")]
    fuse: bool,
    /// Do not outline composites (the default): drops `fuse` from the pipeline.
    #[arg(long, conflicts_with = "kernels")]
    no_fuse: bool,
    /// A kernel library (docs/fusion.md, e.g. `kernels/`): each composite a kernel implements
    /// becomes a call to it. Implies `--fuse`.
    #[arg(long, value_name = "DIR")]
    kernels: Option<PathBuf>,
    /// Which kernels of the library to use: `tpu` (Pallas Mosaic kernels, libtpu only) or `cpu`
    /// (Pallas interpret mode). Default: the platform of the command's targets (`tpu` for
    /// `lower` and `opt`).
    #[arg(long, value_name = "tpu|cpu", requires = "kernels")]
    kernel_target: Option<String>,
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
    /// The options, with `default` as the pipeline when `--passes` is not given; `platform`
    /// (`tpu` or `cpu`, `None` when the targets mix them) picks the kernels.
    pub fn options(&self, default: &str, platform: Option<&str>) -> Result<PassOptions> {
        let kernels = match &self.kernels {
            None => None,
            Some(dir) => {
                let target = match (&self.kernel_target, platform) {
                    (Some(target), _) => target.as_str(),
                    (None, Some(platform)) => platform,
                    (None, None) => {
                        return Err(miette!(
                            help = "compile TPU and CPU targets separately, or pick the kernels \
                                    with --kernel-target tpu|cpu",
                            "--kernels needs one platform, but the targets mix TPU and CPU"
                        ));
                    }
                };
                if !["tpu", "cpu"].contains(&target) {
                    return Err(miette!(
                        "--kernel-target must be `tpu` or `cpu`, not `{target}`"
                    ));
                }
                Some(KernelLibrary::load(dir, target)?)
            }
        };
        Ok(PassOptions {
            pipeline: self.pipeline(default),
            kernels,
            run: RunOptions {
                verify_each: self.verify_each,
                print_after_all: self.print_ir_after_all,
                print_after: self.print_ir_after.clone(),
                print_before: self.print_ir_before.clone(),
                pretty: true,
                ..RunOptions::default()
            },
        })
    }

    /// The pipeline text: `--passes` or `default`, with `fuse,dce` appended for `--fuse` (unless
    /// it already fuses) and every `fuse` dropped for `--no-fuse`.
    fn pipeline(&self, default: &str) -> String {
        let pipeline = self.passes.clone().unwrap_or_else(|| default.to_owned());
        if self.no_fuse {
            return tpuc_passes::without_fusion(&pipeline);
        }
        let names: Vec<&str> = pipeline
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .collect();
        if (self.fuse || self.kernels.is_some()) && !names.contains(&"fuse") {
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
