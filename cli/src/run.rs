//! `tpuc run`: execute a program on XLA:CPU with `.npy` inputs, write its outputs as `.npy`,
//! and optionally compare them with expected outputs.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use miette::{Result, miette};
use tpuc_driver::{Comparison, Input, ResultRole, Runtime, Target, Tolerance};
use tpuc_npy::Array;

use crate::cache::CacheArgs;
use crate::lower::LoweringArgs;

#[derive(clap::Args)]
pub struct Args {
    /// The `.pt2` archive written by `torch.export.save`, or StableHLO text (`.mlir`, e.g.
    /// from `tpuc lower`).
    model: PathBuf,
    /// A `.mlir` program's weights: the archive whose parameters, buffers and constants its
    /// `main` names (`tpuc lower` writes their names).
    #[arg(long, value_name = "MODEL.pt2")]
    weights: Option<PathBuf>,
    /// Where to execute: `cpu`, or `cpu:N` for N XLA:CPU devices (a sharded program runs on
    /// as many devices as its mesh has).
    #[arg(long, default_value = "cpu", value_parser = cpu_target)]
    target: Target,
    /// User input I, in positional order (one `.npy` file per input; float32 for bfloat16).
    #[arg(long = "input", value_name = "FILE.npy")]
    inputs: Vec<PathBuf>,
    /// Directory for `out0.npy`, `out1.npy`, ... (created if missing).
    #[arg(long, value_name = "DIR")]
    output_dir: PathBuf,
    /// Expected value of output J, in order: compare and fail on a mismatch.
    #[arg(long = "expect", value_name = "FILE.npy")]
    expect: Vec<PathBuf>,
    /// Relative tolerance of the comparison.
    #[arg(long, default_value_t = Tolerance::default().rtol)]
    rtol: f64,
    /// Absolute tolerance of the comparison.
    #[arg(long, default_value_t = Tolerance::default().atol)]
    atol: f64,
    /// The PJRT plugin library (else $TPUC_CPU_PLUGIN, else the plugin directory).
    #[arg(long, value_name = "PATH")]
    plugin: Option<PathBuf>,
    #[command(flatten)]
    lowering: LoweringArgs,
    #[command(flatten)]
    cache: CacheArgs,
}

/// `tpuc run` executes on XLA:CPU only.
pub(crate) fn cpu_target(text: &str) -> Result<Target, String> {
    match text.parse()? {
        Target::Tpu { .. } => Err(format!(
            "`{text}`: tpuc runs programs on XLA:CPU only (cpu or cpu:N); compile for TPUs \
             with `tpuc compile --target {text}`"
        )),
        cpu => Ok(cpu),
    }
}

pub fn run(args: &Args) -> Result<ExitCode> {
    let Target::Cpu { devices } = args.target else {
        unreachable!("the parser accepts only cpu targets")
    };
    let expected = args
        .expect
        .iter()
        .map(|path| Array::read(path).map(|array| (path, array)))
        .collect::<Result<Vec<_>, _>>()?;
    let inputs = args
        .inputs
        .iter()
        .map(Input::read)
        .collect::<Result<Vec<_>, _>>()?;
    let mut options = args
        .lowering
        .options(&args.model, Some("cpu"))?
        .for_target(&args.target);
    options.weights = args.weights.clone();
    let prepared = tpuc_driver::prepare(&args.model, &inputs, &options)?;
    for warning in &prepared.built.warnings {
        eprintln!("warning: {warning}");
    }
    let mesh_devices = prepared.placement()?.device_count();
    if mesh_devices > devices {
        return Err(miette!(
            help = format!("run it with --target cpu:{mesh_devices}"),
            "the program runs on {mesh_devices} devices (its mesh or its ranks), but --target {} \
             has {devices}",
            args.target
        ));
    }
    if mesh_devices < devices {
        eprintln!(
            "note: the program runs on {mesh_devices} of the {devices} devices of {}; the \
             others stay idle",
            args.target
        );
    }
    let runtime = Runtime::cpu_devices(args.plugin.as_deref(), devices)?;
    let result = match args.cache.open() {
        Ok(cache) => {
            let run = tpuc_driver::run_cached(&prepared, &runtime, &cache.into())?;
            for warning in &run.warnings {
                eprintln!("warning: {warning}");
            }
            let how = if run.hit {
                "loaded from"
            } else {
                "compiled into"
            };
            eprintln!("executable {how} the cache: {}", run.key);
            run.output
        }
        Err(error) => {
            eprintln!("warning: {error}; compiling without the cache");
            prepared.execute(&runtime)?
        }
    };
    if expected.len() > result.outputs.len() {
        return Err(miette!(
            help = "pass at most one --expect file per output, in output order",
            "{} --expect files were given, but the program has {} outputs",
            expected.len(),
            result.outputs.len()
        ));
    }

    // Every output is converted first, then the set is written all or nothing.
    let mut written = Vec::new();
    let mut files = Vec::new();
    let mut whats = Vec::new();
    for (index, output) in result.outputs.iter().enumerate() {
        let path = tpuc_driver::output_path(&args.output_dir, index);
        let array = to_npy(&path, output)?;
        let what = format!("{}{:?}", output.dtype, output.shape);
        files.push((path, array.to_npy_bytes()));
        whats.push(what);
        written.push(array);
    }
    for (source, value) in &result.mutations {
        let name = match source {
            ResultRole::BufferMutation { fqn } => format!("buffer.{fqn}.npy"),
            ResultRole::InputMutation { name } => format!("input.{name}.npy"),
            ResultRole::Gradient { fqn } => format!("grad.{fqn}.npy"),
            ResultRole::ParameterUpdate { fqn } => format!("param.{fqn}.npy"),
            ResultRole::OptimizerState { fqn, slot } => format!("state.{fqn}.{slot}.npy"),
            ResultRole::Loss => "loss.npy".to_owned(),
            ResultRole::Output { .. } | ResultRole::Check { .. } => continue,
        };
        let path = args.output_dir.join(name);
        let bytes = to_npy(&path, value)?.to_npy_bytes();
        let what = format!("mutated, {}{:?}", value.dtype, value.shape);
        files.push((path, bytes));
        whats.push(what);
    }
    crate::output_files::write_all(&files)?;
    for ((path, _), what) in files.iter().zip(&whats) {
        println!("wrote {} ({what})", path.display());
    }
    for (index, array) in written.iter().enumerate() {
        if let Some((first, count)) = tpuc_driver::nans(array) {
            eprintln!(
                "warning: output {index} holds {count} NaN (the first at {:?}); \
                 `tpuc run --debug=nan` names the node that makes the first one",
                tpuc_driver::position(first, array.shape())
            );
        }
    }

    if expected.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let tolerance = Tolerance {
        rtol: args.rtol,
        atol: args.atol,
    };
    let comparisons: Vec<_> = expected
        .iter()
        .zip(&written)
        .map(|((path, want), got)| (*path, tpuc_driver::compare(got, want, tolerance)))
        .collect();
    print_table(&comparisons, tolerance);
    for (index, ((_, c), got)) in comparisons.iter().zip(&written).enumerate() {
        if let Some((first, count)) = c.unexpected_non_finite {
            println!(
                "  out{index}: {count} NaN or infinite values where the expected output is \
                 finite (the first at {:?}); `--debug=nan` names the node that makes them",
                tpuc_driver::position(first, got.shape())
            );
        }
    }
    Ok(if comparisons.iter().all(|(_, c)| c.passed()) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::exit::MISMATCH)
    })
}

fn to_npy(path: &Path, value: &tpuc_driver::HostTensor<'_>) -> Result<Array> {
    value.to_npy().ok_or_else(|| {
        miette!(
            "{} has dtype {}, which .npy files cannot hold",
            path.display(),
            value.dtype
        )
    })
}

fn print_table(comparisons: &[(&PathBuf, Comparison)], tolerance: Tolerance) {
    println!(
        "\ncomparison (|got - want| <= {:e} + {:e} * |want|):",
        tolerance.atol, tolerance.rtol
    );
    println!(
        "  {:<6} {:>12} {:>12} {:>11}  result  expected",
        "output", "max abs err", "max rel err", "mismatched"
    );
    for (index, (path, c)) in comparisons.iter().enumerate() {
        let verdict = if c.passed() { "PASS" } else { "FAIL" };
        match &c.incompatible {
            Some(why) => println!(
                "  out{index:<3} {:>12} {:>12} {:>11}  {verdict}    {} ({why})",
                "-",
                "-",
                "-",
                path.display()
            ),
            None => println!(
                "  out{index:<3} {:>12.3e} {:>12.3e} {:>11}  {verdict}    {}",
                c.max_abs,
                c.max_rel,
                format!("{}/{}", c.mismatched, c.total),
                path.display()
            ),
        }
    }
}
