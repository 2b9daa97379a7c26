//! `tpuc compile`: compile a program for one or more targets through the cache.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use miette::{Result, miette};
use tpuc_driver::{Origin, PluginPaths, Target};
use tpuc_prewarm::PlanOptions;

use crate::Format;
use crate::cache::{CacheArgs, RemoteArgs, human_size, print_json};
use crate::lower::LoweringArgs;

/// Exit code of `tpuc cache verify` when it found corrupt entries.
pub const CACHE_CORRUPT: u8 = 4;

/// Explicit plugin libraries; shared by the commands that load plugins.
#[derive(clap::Args)]
pub struct PluginArgs {
    /// The XLA:CPU plugin library (else $TPUC_CPU_PLUGIN, else the plugin directory).
    #[arg(long, value_name = "PATH")]
    cpu_plugin: Option<PathBuf>,
    /// libtpu (else $TPU_LIBRARY_PATH, else the plugin directory).
    #[arg(long, value_name = "PATH")]
    tpu_plugin: Option<PathBuf>,
}

impl PluginArgs {
    pub fn paths(&self) -> PluginPaths {
        PluginPaths {
            cpu: self.cpu_plugin.clone(),
            tpu: self.tpu_plugin.clone(),
        }
    }
}

#[derive(clap::Args)]
pub struct Args {
    /// The `.pt2` archive written by `torch.export.save`.
    model: PathBuf,
    /// What to compile for: tpu:<topology> (e.g. tpu:v5e:2x2; see `tpuc targets`), cpu or
    /// cpu:<devices>. Repeat to compile for several.
    #[arg(long = "target", value_name = "TARGET", default_value = "tpu:v5e:2x2")]
    targets: Vec<Target>,
    /// Also write the serialized executable to this file (one target only).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    #[command(flatten)]
    plugins: PluginArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    #[command(flatten)]
    cache: CacheArgs,
    #[command(flatten)]
    remote: RemoteArgs,
    #[command(flatten)]
    lowering: LoweringArgs,
}

pub fn run(args: &Args) -> Result<ExitCode> {
    let started = Instant::now();
    if args.output.is_some() && args.targets.len() != 1 {
        return Err(miette!(
            help = "compile one target at a time with -o, or take the executables from the cache \
                    (`tpuc cache show KEY` prints their paths)",
            "-o writes one executable, but {} targets were given",
            args.targets.len()
        ));
    }
    let caches = args
        .remote
        .open(args.cache.open()?, &PlanOptions::default())?;
    let plugins = args.plugins.paths();
    let report = tpuc_driver::compile(
        &args.model,
        &args.targets,
        &args.lowering.options(),
        &plugins,
        &caches,
    )?;
    if let (Some(path), [compiled]) = (&args.output, report.compiled.as_slice()) {
        tpuc_driver::write_atomically(path, &compiled.executable)?;
    }
    for warning in &report.warnings {
        eprintln!("warning: {warning}");
    }
    match &report.passes {
        Some(passes) => args.lowering.passes.print_report(passes),
        None if args.lowering.passes.wants_report() => {
            eprintln!(
                "note: the module came from the cache; no pass ran (`--cache-dir` elsewhere reruns them)"
            )
        }
        None => {}
    }
    let seconds = started.elapsed().as_secs_f64();
    match args.format {
        Format::Json => {
            let targets: Vec<_> = report
                .compiled
                .iter()
                .map(|compiled| {
                    serde_json::json!({
                        "target": compiled.target.to_string(),
                        "key": compiled.key,
                        "hit": compiled.origin != Origin::Compiled,
                        "origin": compiled.origin.name(),
                        "entry": compiled.entry,
                        "size": compiled.executable.len(),
                        "seconds": compiled.seconds,
                        "compile_seconds": compiled.manifest.compile_seconds,
                    })
                })
                .collect();
            print_json(&serde_json::json!({
                "model": args.model,
                "frontend_key": report.frontend_key,
                "frontend_hit": report.frontend_hit,
                "module_sha256": report.module_sha256,
                "targets": targets,
                "output": args.output,
                "warnings": report.warnings,
                "seconds": seconds,
            }))?;
        }
        Format::Text => {
            let lowering = if report.frontend_hit {
                "cached"
            } else {
                "lowered"
            };
            println!(
                "{} ({lowering} module {})",
                args.model.display(),
                report.module_sha256
            );
            for compiled in &report.compiled {
                let status = match compiled.origin {
                    Origin::Local => "hit",
                    Origin::Shared => "hit (shared)",
                    Origin::Compiled => "miss",
                };
                println!(
                    "{:<14} {status:<12} {}  {:>10}  {:.3} s",
                    compiled.target.to_string(),
                    compiled.key,
                    human_size(compiled.executable.len() as u64),
                    compiled.seconds
                );
                match &compiled.entry {
                    Some(entry) => println!("  entry {}", entry.display()),
                    None => println!("  not stored in the cache"),
                }
            }
            if let Some(path) = &args.output {
                println!("wrote {}", path.display());
            }
            println!("total {seconds:.3} s");
        }
    }
    Ok(ExitCode::SUCCESS)
}
