//! `tpuc prewarm`: compile a plan's models, shapes and targets into the cache ahead of time.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

use miette::{IntoDiagnostic, Result, miette};
use tpuc_driver::prewarm::{ItemOutcome, Mode, Status};
use tpuc_driver::{LowerOptions, PluginPaths, Target};
use tpuc_prewarm::Plan;

use crate::cache::{CacheArgs, human_size};

#[derive(clap::Args)]
pub struct Args {
    /// The plan: a TOML file listing models, shapes and targets (see docs/prewarm.md).
    plan: PathBuf,
    /// Compiles to run in parallel (else the plan's `jobs`, else one per core).
    #[arg(short, long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    jobs: Option<u32>,
    /// Write one JSON record per item to this file.
    #[arg(long, value_name = "FILE.json")]
    report: Option<PathBuf>,
    /// Print each item's cache key; compile nothing.
    #[arg(long, conflicts_with = "check")]
    dry_run: bool,
    /// Compile nothing; exit non-zero listing the items missing from the cache.
    #[arg(long)]
    check: bool,
    /// The XLA:CPU plugin library (else $TPUC_CPU_PLUGIN, else the plugin directory).
    #[arg(long, value_name = "PATH")]
    cpu_plugin: Option<PathBuf>,
    /// libtpu (else $TPU_LIBRARY_PATH, else the plugin directory).
    #[arg(long, value_name = "PATH")]
    tpu_plugin: Option<PathBuf>,
    #[command(flatten)]
    cache: CacheArgs,
}

pub fn run(args: &Args) -> Result<ExitCode> {
    let started = Instant::now();
    let plan = Plan::<Target>::load(&args.plan)?;
    let cache = args.cache.open()?;
    let plugins = PluginPaths {
        cpu: args.cpu_plugin.clone(),
        tpu: args.tpu_plugin.clone(),
    };
    let mode = match (args.dry_run, args.check) {
        (true, _) => Mode::DryRun,
        (_, true) => Mode::Check,
        _ => Mode::Compile,
    };
    let jobs = args
        .jobs
        .map(|n| n as usize)
        .or(plan.options.jobs)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    let total = plan.items.len();
    let done = Mutex::new(0usize);
    let log = |outcome: &ItemOutcome| {
        let mut done = done.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        *done += 1;
        eprintln!(
            "[{}/{total}] {:<9} {} {} {} ({:.2} s)",
            *done,
            status_name(outcome.status),
            outcome.model.display(),
            outcome.shape,
            outcome.target,
            outcome.seconds
        );
    };
    let outcomes = tpuc_driver::prewarm::prewarm(
        &plan,
        mode,
        jobs,
        &LowerOptions::default(),
        &plugins,
        &cache,
        &log,
    );

    if let Some(path) = &args.report {
        write_report(path, &outcomes)?;
    }
    print_summary(&outcomes, mode, started.elapsed().as_secs_f64());

    for outcome in &outcomes {
        for warning in &outcome.warnings {
            eprintln!("warning: {}: {warning}", outcome.model.display());
        }
    }
    let (failed, outcomes): (Vec<ItemOutcome>, Vec<ItemOutcome>) = outcomes
        .into_iter()
        .partition(|o| o.status == Status::Failed);
    let missing: Vec<&ItemOutcome> = outcomes
        .iter()
        .filter(|o| o.status == Status::Missing)
        .collect();
    let failures = failed.len();
    for outcome in failed {
        eprintln!(
            "failed: {} {} {}",
            outcome.model.display(),
            outcome.shape,
            outcome.target,
        );
        if let Some(error) = outcome.error {
            eprintln!("{:?}", miette::Report::new(error));
        }
    }
    if failures > 0 {
        return Err(miette!("{failures} of {total} items failed (listed above)"));
    }
    if mode == Mode::Check && !missing.is_empty() {
        for outcome in &missing {
            eprintln!(
                "missing: {} {} {}",
                outcome.model.display(),
                outcome.shape,
                outcome.target
            );
        }
        return Err(miette!(
            help = format!("run `tpuc prewarm {}` to compile them", args.plan.display()),
            "{} of {total} items are missing from the cache",
            missing.len()
        ));
    }
    Ok(ExitCode::SUCCESS)
}

fn status_name(status: Status) -> &'static str {
    match status {
        Status::Hit => "hit",
        Status::Compiled => "compiled",
        Status::Missing => "missing",
        Status::Failed => "failed",
    }
}

fn print_summary(outcomes: &[ItemOutcome], mode: Mode, seconds: f64) {
    let mut out = std::io::stdout().lock();
    for outcome in outcomes {
        let key = outcome
            .key
            .map_or_else(|| "-".to_owned(), |k| k.to_string());
        let size = outcome.bytes.map_or_else(|| "-".to_owned(), human_size);
        let _ = writeln!(
            out,
            "{:<9} {key}  {:>10}  {:>8.2} s  {} {} {}",
            status_name(outcome.status),
            size,
            outcome.seconds,
            outcome.model.display(),
            outcome.shape,
            outcome.target,
        );
    }
    let count = |status| outcomes.iter().filter(|o| o.status == status).count();
    let verb = if mode == Mode::Compile {
        "compiled"
    } else {
        "missing"
    };
    let _ = writeln!(
        out,
        "{} items: {} {verb}, {} hit, {} failed in {seconds:.2} s",
        outcomes.len(),
        count(if mode == Mode::Compile {
            Status::Compiled
        } else {
            Status::Missing
        }),
        count(Status::Hit),
        count(Status::Failed),
    );
}

fn write_report(path: &std::path::Path, outcomes: &[ItemOutcome]) -> Result<()> {
    let items: Vec<_> = outcomes
        .iter()
        .map(|o| {
            serde_json::json!({
                "model": o.model,
                "shape": o.shape,
                "target": o.target.to_string(),
                "key": o.key,
                "status": o.status,
                "seconds": o.seconds,
                "bytes": o.bytes,
                "error": o.error.as_ref().map(ToString::to_string),
            })
        })
        .collect();
    let text =
        serde_json::to_string_pretty(&serde_json::json!({ "items": items })).into_diagnostic()?;
    tpuc_driver::write_atomically(path, text.as_bytes())?;
    Ok(())
}
