//! `tpuc lower`: print a program as StableHLO (or its FX graph), to stdout or a file.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::ValueEnum;
use miette::{IntoDiagnostic, Result, miette};
use tpuc_driver::{DimSizes, Emit, LowerOptions, Options};

use crate::Format;
use crate::passes::PassArgs;

#[derive(clap::Args)]
pub struct Args {
    /// The `.pt2` archive written by `torch.export.save` (or StableHLO text, `.mlir`).
    model: PathBuf,
    /// Write the text to this file (replaced whole, never left partial) instead of stdout.
    #[arg(short, long, value_name = "OUT.mlir")]
    output: Option<PathBuf>,
    /// What to print.
    #[arg(long, value_enum, default_value_t = EmitArg::Stablehlo)]
    emit: EmitArg,
    /// With --shard: the target whose devices the plan spreads over (else --mesh's size).
    #[arg(long, value_name = "TARGET")]
    target: Option<tpuc_driver::Target>,
    /// With --shard: how to print the sharding report on stderr.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Keep the symbolic dimensions as `?`: one module for every size, shapes computed with
    /// StableHLO's dynamic ops, for a consumer to refine (JAX's shape refinement). `--dim`
    /// still fixes a symbol. The module is not fused.
    #[arg(long, conflicts_with_all = ["fuse", "kernels", "shard", "debug", "input_shapes"])]
    dynamic: bool,
    #[command(flatten)]
    lowering: LoweringArgs,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EmitArg {
    /// StableHLO, readable form.
    Stablehlo,
    /// StableHLO, generic form (what is handed to the PJRT plugins).
    StablehloGeneric,
    /// The program's FX graph, before lowering.
    Fx,
}

/// What `--debug` compiles in.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum DebugChecks {
    /// Indices of gathers, scatters, embeddings and indexing against their bounds.
    Index,
    /// The index checks, and NaN/Inf in every floating-point op output.
    Nan,
}

/// Lowering flags shared by `lower` and `run`.
#[derive(clap::Args)]
pub struct LoweringArgs {
    /// Give a dimension, named by its symbol or as INPUT.AXIS, a size (else the example's
    /// is used): `--dim s77=8`, `--dim input_ids.1=512`. `compile` and `key` take a list
    /// (`--dim s27=128,256,512`): one executable per shape.
    #[arg(long = "dim", value_name = "NAME=N[,M...]", value_parser = DimSizes::parse_list)]
    dims: Vec<DimSizes>,
    /// Power-of-two buckets for a dimension, for `compile` and `key`:
    /// `--buckets input_ids.1=pow2:128..2048` is 128, 256, ..., 2048.
    #[arg(long = "buckets", value_name = "NAME=pow2:LO..HI", value_parser = DimSizes::parse_buckets)]
    buckets: Vec<DimSizes>,
    /// Give user input I a full static shape, e.g. `--input-shape 0=8x16`; its symbolic
    /// dimensions are solved from it.
    #[arg(long = "input-shape", value_name = "I=AxBx...", value_parser = parse_input_shape)]
    input_shapes: Vec<(usize, Vec<i64>)>,
    /// Embed the weights as constants instead of taking them as leading arguments of `main`.
    #[arg(long)]
    inline_weights: bool,
    /// Report every unsupported op of the model, not only the first.
    #[arg(long)]
    keep_going: bool,
    /// How many ranks run a program with collectives (`torch.distributed` functional
    /// collectives), when the graph does not record it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    world_size: Option<u32>,
    /// Compile checks in: every index of a gather, embedding or indexing op against its
    /// bounds (`--debug`, `--debug=index`), and also every floating-point op output for NaN
    /// and infinities (`--debug=nan`); a run reports the first failing node and its source
    /// line and exits non-zero.
    #[arg(long, value_name = "CHECKS", num_args = 0..=1, require_equals = true, default_missing_value = "index")]
    debug: Option<DebugChecks>,
    /// Compute as `torch.autocast("cpu", dtype=torch.bfloat16)` around the whole program
    /// does (`bf16`): matrix products, convolutions and attention in bfloat16, losses in
    /// float32, parameters kept float32 (mixed-precision training, docs/training.md).
    #[arg(long, value_enum, value_name = "bf16")]
    precision: Option<Precision>,
    /// For a `.mlir` module without roles (JAX's): the arguments that are trained parameters,
    /// by `jax.arg_info` name, `argN` or position; the others are user inputs, in order.
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    parameters: Vec<String>,
    #[command(flatten)]
    pub passes: PassArgs,
    #[command(flatten)]
    pub sharding: ShardArgs,
}

/// `--precision`: the lower precision `torch.autocast` computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Precision {
    Bf16,
}

/// `--shard auto`.
const AUTO: &str = "auto";

/// Sharding flags: a plan and a mesh (docs/sharding.md).
#[derive(clap::Args)]
pub struct ShardArgs {
    /// Shard over the target's devices: a preset (dp, fsdp, tp, dp+tp, fsdp+tp), a TOML plan
    /// file, or (`tpuc compile`) `auto`: the fastest preset and mesh by libtpu's estimate.
    #[arg(long, value_name = "PRESET|PLAN.toml")]
    shard: Option<String>,
    /// The device mesh, e.g. `dp=2,tp=2` (its size must be the target's device count);
    /// default: the plan's, else one axis over all devices.
    #[arg(long, value_name = "AXIS=N,...", requires = "shard")]
    mesh: Option<tpuc_passes::sharding::MeshSpec>,
}

impl ShardArgs {
    /// `--shard auto`.
    pub fn is_auto(&self) -> bool {
        self.shard.as_deref() == Some(AUTO)
    }

    /// `--shard auto`, checked: it picks the mesh too.
    pub fn auto(&self) -> Result<bool> {
        if self.is_auto() && self.mesh.is_some() {
            return Err(miette!(
                help =
                    "leave out --mesh, or give a preset with it (`--shard dp+tp --mesh dp=2,tp=2`)",
                "--shard auto picks the mesh as well as the plan"
            ));
        }
        Ok(self.is_auto())
    }

    /// The request, with the plan file read and parsed; `None` without `--shard`.
    pub fn request(&self) -> Result<Option<tpuc_passes::sharding::ShardRequest>> {
        let Some(plan) = &self.shard else {
            return Ok(None);
        };
        if self.is_auto() {
            return Err(miette!(
                help = "`tpuc compile MODEL --target tpu:... --shard auto` prints the plan it \
                        picks; give that here (e.g. `--shard tp --mesh tp=4`)",
                "--shard auto picks a plan by compiling every candidate for a TPU topology, \
                 which only `tpuc compile` does"
            ));
        }
        let plan = tpuc_passes::sharding::PlanSource::parse(plan)?;
        Ok(Some(tpuc_passes::sharding::ShardRequest::new(
            plan,
            self.mesh.clone(),
        )))
    }
}

impl LoweringArgs {
    /// The options for one shape of `model`: no dimension given more than one size.
    /// `platform` (`tpu`, `cpu`, or `None` when targets mix them) picks kernels.
    pub fn options(&self, model: &Path, platform: Option<&str>) -> Result<Options> {
        let mut shapes = self.shapes(model)?;
        if shapes.len() > 1 {
            return Err(miette!(
                help = "give each dimension one size here; `tpuc compile` and `tpuc key` take \
                        lists and buckets",
                "--dim and --buckets ask for {} shapes, but this command works on one",
                shapes.len()
            ));
        }
        let mut options = self.unsized_options(platform)?;
        options.lower.dims = shapes.pop().unwrap_or_default();
        Ok(options)
    }

    /// The options without sizes for symbolic dimensions (see [`Self::shapes`]).
    pub fn unsized_options(&self, platform: Option<&str>) -> Result<Options> {
        self.options_sharded(platform, self.sharding.request()?)
    }

    /// [`Self::unsized_options`] with `sharding` in place of `--shard`'s.
    pub fn options_sharded(
        &self,
        platform: Option<&str>,
        sharding: Option<tpuc_passes::sharding::ShardRequest>,
    ) -> Result<Options> {
        let mut pipeline = self.passes.request(platform)?;
        pipeline.sharding = sharding;
        Ok(Options {
            lower: LowerOptions {
                inline_weights: self.inline_weights,
                dims: BTreeMap::new(),
                input_shapes: self.input_shapes.iter().cloned().collect(),
                keep_going: self.keep_going,
                world_size: self.world_size,
                debug: self.debug.is_some(),
                debug_nan: self.debug == Some(DebugChecks::Nan),
                outputs: None,
                autocast: self.precision.map(|Precision::Bf16| tpuc_pt2::DType::BF16),
            },
            pipeline,
            run: self.passes.run_options(),
            weights: None,
            parameters: self.parameters.clone(),
        })
    }

    /// Every shape `--dim` and `--buckets` ask for, as sizes by symbol (one empty map, the
    /// exported example, when neither is given).
    pub fn shapes(&self, model: &Path) -> Result<Vec<BTreeMap<String, i64>>> {
        let dims: Vec<DimSizes> = self.dims.iter().chain(&self.buckets).cloned().collect();
        Ok(tpuc_driver::specialisations(model, &dims)?)
    }
}

fn parse_input_shape(text: &str) -> Result<(usize, Vec<i64>), String> {
    let (index, shape) = text
        .split_once('=')
        .ok_or_else(|| format!("expected I=AxB... such as 0=8x16, got `{text}`"))?;
    let index = index
        .parse()
        .map_err(|_| format!("`{index}` is not an input position"))?;
    let shape = if shape.is_empty() {
        Vec::new()
    } else {
        shape
            .split('x')
            .map(|dim| match dim.parse::<i64>() {
                Ok(size) if size >= 0 => Ok(size),
                _ => Err(format!("`{dim}` is not a dimension size")),
            })
            .collect::<Result<_, _>>()?
    };
    Ok((index, shape))
}

pub fn run(args: &Args) -> Result<()> {
    let emit = match args.emit {
        EmitArg::Stablehlo => Emit::Stablehlo,
        EmitArg::StablehloGeneric => Emit::StablehloGeneric,
        EmitArg::Fx => Emit::Fx,
    };
    let platform = match &args.target {
        Some(tpuc_driver::Target::Cpu { .. }) => "cpu",
        _ => "tpu",
    };
    let mut options = args.lowering.options(&args.model, Some(platform))?;
    if let Some(target) = &args.target {
        options = options.for_target(target);
    }
    let text = match emit {
        Emit::Fx => tpuc_driver::emit(&args.model, emit, &options)?,
        stablehlo if args.dynamic => tpuc_driver::lower_dynamic(&args.model, &options, stablehlo)?,
        stablehlo => {
            let lowered = tpuc_driver::lower(&args.model, &options)?;
            for warning in &lowered.built.warnings {
                eprintln!("warning: {warning}");
            }
            args.lowering.passes.print_report(&lowered.built.passes);
            if let Some(report) = &lowered.built.passes.sharding {
                print_shard_report(report, args.format)?;
            }
            lowered.text(stablehlo)
        }
    };
    match &args.output {
        Some(path) => tpuc_driver::write_atomically(path, text.as_bytes())?,
        None => std::io::stdout()
            .lock()
            .write_all(text.as_bytes())
            .into_diagnostic()?,
    }
    Ok(())
}

/// The mesh and per-device memory estimate of a sharded module, on stderr (the module goes
/// to stdout).
fn print_shard_report(report: &tpuc_passes::sharding::ShardReport, format: Format) -> Result<()> {
    let memory = &report.memory;
    for note in &report.assignment.notes {
        eprintln!("warning: {note}");
    }
    match format {
        Format::Json => {
            let json = serde_json::json!({
                "mesh": report.assignment.mesh.to_string(),
                "devices": memory.devices,
                "memory": memory,
                "warnings": report.assignment.notes,
            });
            eprintln!("{}", serde_json::to_string_pretty(&json).into_diagnostic()?);
        }
        Format::Text => {
            let size = crate::render::human_size;
            eprintln!(
                "sharding: mesh {} ({} devices)",
                report.assignment.mesh, memory.devices
            );
            eprintln!(
                "  weights      {} per device of {}",
                size(memory.weight_bytes_per_device),
                size(memory.weight_bytes)
            );
            eprintln!(
                "  inputs       {} per device of {}",
                size(memory.input_bytes_per_device),
                size(memory.input_bytes)
            );
            eprintln!(
                "  activations  {} per device of {} (every op result; largest {})",
                size(memory.activation_bytes_per_device),
                size(memory.activation_bytes),
                size(memory.largest_activation_bytes_per_device)
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_values_parse() {
        let dim = DimSizes::parse_list("s77=8").unwrap();
        assert_eq!(dim.name, tpuc_driver::DimName::Symbol("s77".to_owned()));
        assert_eq!(dim.sizes, [8]);
        assert!(DimSizes::parse_list("s77").is_err());
        assert!(DimSizes::parse_list("s77=x").is_err());
        assert_eq!(parse_input_shape("0=8x16"), Ok((0, vec![8, 16])));
        assert_eq!(parse_input_shape("2="), Ok((2, vec![])));
        assert!(parse_input_shape("0=8x-1").is_err());
        assert!(parse_input_shape("a=8").is_err());
    }
}
