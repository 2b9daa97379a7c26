//! Pass-pipeline flags shared by `lower`, `compile`, `run` and `opt`, and how their reports print.

use std::path::PathBuf;

use miette::{Result, miette};
use tpuc_passes::{
    Fusion, KernelLibrary, KvDtype, OptimizerSpec, PassName, PipelineReport, PipelineRequest,
    RunOptions,
};

#[derive(clap::Args)]
pub struct PassArgs {
    /// The passes to run on the module, separated by commas (e.g. `canonicalize,cse,dce`;
    /// `--passes ''` runs none): chlo-legalize, canonicalize, fold, evaluate, cse, dce, prune-args,
    /// sharding-propagate, fuse, inline-composites. Default for `lower`, `compile` and `run`:
    /// `canonicalize,evaluate,cse,canonicalize,cse,dce,prune-args` (after `chlo-legalize` for `.mlir`
    /// input); for `opt`: `chlo-legalize`. `--kernels` and `--shard` add their own passes
    /// (`kernels`, `shard`, `sharding-propagate`) after these.
    #[arg(long, value_name = "PASS,...", value_parser = parse_passes)]
    passes: Option<PassList>,
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
    /// Make the program one training step with this optimizer: the loss's gradients (tpuc's
    /// reverse-mode differentiation, or a joint graph's own), then the update, parameters and
    /// state donated. `sgd:lr=0.1,momentum=0.9` (also dampening, nesterov, weight_decay),
    /// `adamw:lr=1e-3,beta1=0.9,beta2=0.999,eps=1e-8,weight_decay=0.01`, `adam:...`; any
    /// with `clip=1.0` (global gradient norm). See docs/training.md.
    #[arg(long, value_name = "SPEC", value_parser = parse_optimizer)]
    pub optimizer: Option<OptimizerSpec>,
    /// Store the KV cache (every float buffer the program updates in place) narrower:
    /// `bf16`, `f16`, `f8e4m3fn[:SCALE]` or `f8e5m2[:SCALE]` (stored divided by SCALE,
    /// default 1, saturated). It is widened where attention reads it. See docs/serving.md.
    #[arg(long, value_name = "TYPE", value_parser = parse_kv_dtype)]
    pub kv_dtype: Option<KvDtype>,
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
    /// What the flags ask of the middle end; `platform` (`tpu` or `cpu`, `None` when the
    /// targets mix them) picks the kernels. Sharding is the sharding flags'.
    pub fn request(&self, platform: Option<&str>) -> Result<PipelineRequest> {
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
        let passes = self.passes.clone().map(|list| list.0);
        let fusion = if self.no_fuse {
            Fusion::NoFuse
        } else if self.fuse {
            Fusion::Fuse
        } else {
            Fusion::AsListed
        };
        Ok(PipelineRequest {
            passes,
            fusion,
            kernels,
            sharding: None,
            optimizer: self.optimizer.clone(),
            kv_dtype: self.kv_dtype,
        })
    }

    /// How to run the pipeline: verification and IR dumps.
    pub fn run_options(&self) -> RunOptions {
        RunOptions {
            verify_each: self.verify_each,
            print_after_all: self.print_ir_after_all,
            print_after: self.print_ir_after.clone(),
            print_before: self.print_ir_before.clone(),
            pretty: true,
            ..RunOptions::default()
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

/// The passes `--passes` names, in order.
#[derive(Clone, Debug)]
struct PassList(Vec<PassName>);

/// `--passes`: names separated by commas; an unknown name is a usage error (exit 2) listing
/// the passes.
fn parse_passes(text: &str) -> Result<PassList, String> {
    PassName::parse_list(text).map(PassList).map_err(|_| {
        let unknown: Vec<&str> = text
            .split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty() && PassName::from_name(name).is_none())
            .collect();
        format!(
            "unknown pass `{}`; the passes are {}",
            unknown.join("`, `"),
            PassName::ALL.map(PassName::name).join(", ")
        )
    })
}

/// `--kv-dtype`: a bad type is a usage error (exit 2) naming the types.
fn parse_kv_dtype(text: &str) -> Result<KvDtype, String> {
    KvDtype::parse(text).map_err(|error| match error {
        tpuc_passes::PassError::Refused { message, help, .. } => format!("{message}; {help}"),
        other => other.to_string(),
    })
}

/// `--optimizer`: a bad spec is a usage error (exit 2) naming the optimizers and their fields.
fn parse_optimizer(text: &str) -> Result<OptimizerSpec, String> {
    OptimizerSpec::parse(text).map_err(|error| match error {
        tpuc_passes::PassError::Optimizer { message, .. } => message,
        other => other.to_string(),
    })
}
