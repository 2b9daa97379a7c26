//! `tpuc train`: run N optimizer steps on XLA:CPU and write the losses, the parameters and the
//! optimizer state as `.npy` files, all or nothing.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};
use miette::{Result, miette};
use tpuc_driver::{ArgumentRole, HostTensor, Runtime, Target, TrainRequest};
use tpuc_npy::{Array, Dtype};

use crate::Format;
use crate::cache::CacheArgs;
use crate::lower::LoweringArgs;

#[derive(clap::Args)]
pub struct Args {
    /// The `.pt2` archive: a loss-only export (its first output the scalar loss; tpuc
    /// differentiates it) or a joint graph (`_export_forward_backward`); or StableHLO text.
    model: PathBuf,
    /// A `.mlir` program's weights: the archive whose parameters, buffers and constants its
    /// `main` names, or a directory of `NAME.npy` files (a JAX module's initial parameters,
    /// named as `--parameters` names them).
    #[arg(long, value_name = "MODEL.pt2|DIR")]
    weights: Option<PathBuf>,
    /// How many optimizer steps to run.
    #[arg(long, default_value_t = 1)]
    steps: usize,
    /// Where each step's inputs are: `{step}` (0-based) and `{input}` (the user input's
    /// position, labels included) are replaced, e.g. `data/batch{step}.in{input}.npy`.
    #[arg(long, value_name = "PATTERN")]
    batches: String,
    /// Where to execute: `cpu`, or `cpu:N` for N XLA:CPU devices (with `--shard`).
    #[arg(long, default_value = "cpu", value_parser = crate::run::cpu_target)]
    target: Target,
    /// Directory for `losses.npy`, `params/<FQN>.npy` and `state/...` (created if missing).
    #[arg(long, value_name = "DIR")]
    output_dir: PathBuf,
    /// Go on when a loss is NaN or infinite (else training stops and writes nothing).
    #[arg(long)]
    allow_nonfinite: bool,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// The PJRT plugin library (else $TPUC_CPU_PLUGIN, else the plugin directory).
    #[arg(long, value_name = "PATH")]
    plugin: Option<PathBuf>,
    #[command(flatten)]
    lowering: LoweringArgs,
    #[command(flatten)]
    cache: CacheArgs,
}

pub fn run(args: &Args) -> Result<ExitCode> {
    let Target::Cpu { devices } = args.target else {
        unreachable!("the parser accepts only cpu targets")
    };
    if args.lowering.passes.optimizer.is_none() {
        return Err(miette!(
            help = "e.g. --optimizer 'adamw:lr=1e-3,weight_decay=0.01' or --optimizer \
                    'sgd:lr=0.1,momentum=0.9' (docs/training.md)",
            "`tpuc train` needs --optimizer"
        ));
    }
    let mut options = args
        .lowering
        .options(&args.model, Some("cpu"))?
        .for_target(&args.target);
    options.weights = args.weights.clone();
    let runtime = Runtime::cpu_devices(args.plugin.as_deref(), devices)?;
    let caches = args.cache.open()?.into();
    let request = TrainRequest {
        model: &args.model,
        options: &options,
        batches: &args.batches,
        steps: args.steps,
        allow_nonfinite: args.allow_nonfinite,
    };
    let bar = (std::io::stderr().is_terminal() && args.format == Format::Text).then(|| {
        let bar = ProgressBar::new(args.steps as u64);
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} steps  loss {msg}  {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    });
    let trained = tpuc_driver::train(&request, &runtime, &caches, |_, loss| {
        if let Some(bar) = &bar {
            bar.set_message(format!("{loss:.6}"));
            bar.inc(1);
        }
    });
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let trained = trained?;
    for warning in &trained.warnings {
        eprintln!("warning: {warning}");
    }

    let mut files = vec![(
        args.output_dir.join("losses.npy"),
        Array::new(
            Dtype::F32,
            vec![trained.losses.len()],
            trained
                .losses
                .iter()
                .flat_map(|l| l.to_le_bytes())
                .collect(),
        )?
        .to_npy_bytes(),
    )];
    for tensor in &trained.state {
        let path = args.output_dir.join(state_file(&tensor.role));
        files.push((path.clone(), to_npy(&path, &tensor.value)?.to_npy_bytes()));
    }
    crate::output_files::write_all(&files)?;

    let how = if trained.hit {
        "loaded from"
    } else {
        "compiled into"
    };
    match args.format {
        Format::Json => {
            let steps: Vec<serde_json::Value> = trained
                .losses
                .iter()
                .zip(&trained.step_seconds)
                .enumerate()
                .map(|(step, (loss, seconds))| {
                    serde_json::json!({"step": step, "loss": loss, "seconds": seconds})
                })
                .collect();
            let summary = serde_json::json!({
                "model": args.model.display().to_string(),
                "key": trained.key,
                "cache_hit": trained.hit,
                "steps": steps,
                "output_dir": args.output_dir.display().to_string(),
                "files": files.len(),
            });
            println!(
                "{}",
                serde_json::to_string_pretty(&summary).map_err(|e| miette!("{e}"))?
            );
        }
        Format::Text => {
            eprintln!("executable {how} the cache: {}", trained.key);
            for (step, (loss, seconds)) in
                trained.losses.iter().zip(&trained.step_seconds).enumerate()
            {
                println!("step {step:>4}  loss {loss:<14.8}  {:.1} ms", seconds * 1e3);
            }
            println!(
                "wrote {} files to {}",
                files.len(),
                args.output_dir.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Where a trained tensor goes under the output directory.
fn state_file(role: &ArgumentRole) -> PathBuf {
    match role {
        ArgumentRole::Parameter { fqn } => Path::new("params").join(format!("{fqn}.npy")),
        ArgumentRole::OptimizerState { fqn, slot } if fqn.is_empty() => {
            Path::new("state").join(format!("{slot}.npy"))
        }
        ArgumentRole::OptimizerState { fqn, slot } => {
            Path::new("state").join(format!("{fqn}.{slot}.npy"))
        }
        other => Path::new("state").join(format!("{}.npy", other.name())),
    }
}

fn to_npy(path: &Path, value: &HostTensor<'_>) -> Result<Array> {
    value.to_npy().ok_or_else(|| {
        miette!(
            "{} has dtype {}, which .npy files cannot hold",
            path.display(),
            value.dtype
        )
    })
}
