//! `tpuc prewarm`: compile a plan's models, shapes and targets into the cache ahead of time.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use miette::{IntoDiagnostic, Result, miette};
use tpuc_driver::prewarm::{ItemOutcome, Mode, Progress, Status};
use tpuc_driver::{Options, Target};
use tpuc_prewarm::{Item, Plan};

use crate::cache::{CacheArgs, RemoteArgs};
use crate::compile::PluginArgs;
use crate::render::human_size;

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
    #[command(flatten)]
    plugins: PluginArgs,
    #[command(flatten)]
    cache: CacheArgs,
    #[command(flatten)]
    remote: RemoteArgs,
    /// The sharding of items whose entry gives none.
    #[command(flatten)]
    sharding: crate::lower::ShardArgs,
}

pub fn run(args: &Args) -> Result<ExitCode> {
    let started = Instant::now();
    let plan = Plan::<Target>::load(&args.plan)?;
    let (caches, opening) = args.remote.open(args.cache.open()?, &plan.options)?;
    for warning in &opening {
        eprintln!("warning: {warning}");
    }
    let plugins = args.plugins.paths();
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
    let progress: Box<dyn Progress> = if std::io::stderr().is_terminal() {
        Box::new(Bars::new(total))
    } else {
        Box::new(Lines::new(total))
    };
    let outcomes = tpuc_driver::prewarm::prewarm(
        &plan,
        mode,
        jobs,
        &{
            let mut options = lower_options(&plan)?;
            options.pipeline.sharding = args.sharding.request()?;
            options
        },
        &plugins,
        &caches,
        progress.as_ref(),
    );
    drop(progress);

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

/// One line per finished item, for logs.
struct Lines {
    total: usize,
    done: Mutex<usize>,
}

impl Lines {
    fn new(total: usize) -> Lines {
        Lines {
            total,
            done: Mutex::new(0),
        }
    }
}

impl Progress for Lines {
    fn finished(&self, _index: usize, outcome: &ItemOutcome) {
        let mut done = self
            .done
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *done += 1;
        eprintln!("[{}/{}] {}", *done, self.total, describe(outcome));
    }
}

/// On a terminal: an overall bar, a spinner for each item in flight, and a line above them
/// for each finished item.
struct Bars {
    bars: MultiProgress,
    overall: ProgressBar,
    in_flight: Mutex<HashMap<usize, ProgressBar>>,
}

impl Bars {
    fn new(total: usize) -> Bars {
        let bars = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
        let overall = bars.add(ProgressBar::new(total as u64));
        overall.set_style(
            ProgressStyle::with_template("{elapsed:>4} [{wide_bar}] {pos}/{len} items")
                .expect("the template is valid")
                .progress_chars("=> "),
        );
        Bars {
            bars,
            overall,
            in_flight: Mutex::new(HashMap::new()),
        }
    }
}

impl Progress for Bars {
    fn started(&self, index: usize, item: &Item<Target>) {
        let spinner = self.bars.add(ProgressBar::new_spinner());
        spinner.set_style(
            ProgressStyle::with_template("  {spinner} {elapsed:>4} {msg}")
                .expect("the template is valid"),
        );
        spinner.set_message(format!(
            "{} {} {}",
            item.model.display(),
            item.shape,
            item.target
        ));
        spinner.enable_steady_tick(Duration::from_millis(120));
        self.in_flight
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(index, spinner);
    }

    fn finished(&self, index: usize, outcome: &ItemOutcome) {
        let spinner = self
            .in_flight
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .remove(&index);
        if let Some(spinner) = spinner {
            spinner.finish_and_clear();
            self.bars.remove(&spinner);
        }
        let _ = self.bars.println(describe(outcome));
        self.overall.inc(1);
    }
}

impl Drop for Bars {
    fn drop(&mut self) {
        self.overall.finish_and_clear();
        let _ = self.bars.clear();
    }
}

fn describe(outcome: &ItemOutcome) -> String {
    format!(
        "{:<9} {} {} {} ({:.2} s)",
        status_name(outcome.status),
        outcome.model.display(),
        outcome.shape,
        outcome.target,
        outcome.seconds
    )
}

fn status_name(status: Status) -> &'static str {
    match status {
        Status::Hit => "hit",
        Status::Fetched => "fetched",
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
        "{} items: {} {verb}, {} hit, {} fetched from the shared cache, {} failed in \
         {seconds:.2} s",
        outcomes.len(),
        count(if mode == Mode::Compile {
            Status::Compiled
        } else {
            Status::Missing
        }),
        count(Status::Hit),
        count(Status::Fetched),
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
                "warnings": o.warnings,
            })
        })
        .collect();
    let text =
        serde_json::to_string_pretty(&serde_json::json!({ "items": items })).into_diagnostic()?;
    tpuc_driver::write_atomically(path, text.as_bytes())?;
    Ok(())
}

/// The lowering options the plan's `fuse`, `kernels` and `kernel_target` ask for; the kernels'
/// platform is the plan's targets' when `kernel_target` is absent.
fn lower_options(plan: &Plan<Target>) -> Result<Options> {
    let options = &plan.options;
    let mut pipeline = tpuc_passes::PipelineRequest::default();
    if options.fuse {
        pipeline.fusion = tpuc_passes::Fusion::Fuse;
    }
    if let Some(dir) = &options.kernels {
        let tpu = plan
            .items
            .iter()
            .filter(|i| i.target.to_string().starts_with("tpu"))
            .count();
        let target = match (&options.kernel_target, tpu) {
            (Some(target), _) => target.as_str(),
            (None, 0) => "cpu",
            (None, n) if n == plan.items.len() => "tpu",
            (None, _) => {
                return Err(miette!(
                    help = "set kernel_target = \"tpu\" or \"cpu\" in [options]",
                    "the plan's kernels need one platform, but its targets mix TPU and CPU"
                ));
            }
        };
        pipeline.kernels = Some(tpuc_passes::KernelLibrary::load(dir, target)?);
    }
    Ok(Options {
        pipeline,
        ..Options::default()
    })
}
