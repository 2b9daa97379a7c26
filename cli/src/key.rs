//! `tpuc key`: the front-end key and the compile keys of a program, without compiling, for
//! deployment manifests and runtimes that look executables up in the cache.

use std::path::PathBuf;
use std::process::ExitCode;

use miette::Result;
use tpuc_driver::Target;
use tpuc_prewarm::PlanOptions;

use crate::Format;
use crate::cache::{CacheArgs, RemoteArgs, print_json};
use crate::compile::PluginArgs;
use crate::lower::LoweringArgs;

#[derive(clap::Args)]
pub struct Args {
    /// The `.pt2` archive (or `.mlir` module).
    model: PathBuf,
    /// The targets, as `tpuc compile` takes them. Repeat for several.
    #[arg(long = "target", value_name = "TARGET", default_value = "tpu:v5e:2x2")]
    targets: Vec<Target>,
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
    let (caches, mut warnings) = args
        .remote
        .open(args.cache.open()?, &PlanOptions::default())?;
    let keys = tpuc_driver::keys(
        &args.model,
        &args.targets,
        &args
            .lowering
            .options(crate::compile::kernel_platform(&args.targets))?,
        &args.plugins.paths(),
        &caches,
        &mut warnings,
    )?;
    for warning in &warnings {
        eprintln!("warning: {warning}");
    }
    match args.format {
        Format::Json => print_json(&serde_json::json!({
            "model": args.model.display().to_string(),
            "frontend_key": keys.frontend_key.to_string(),
            "module_sha256": keys.module_sha256.to_string(),
            "targets": keys.targets.iter().map(|t| serde_json::json!({
                "target": t.target.to_string(),
                "key": t.key.to_string(),
                "cached": t.cached,
            })).collect::<Vec<_>>(),
            "warnings": warnings,
        }))?,
        Format::Text => {
            println!("frontend  {}", keys.frontend_key);
            println!("module    {}", keys.module_sha256);
            for target in &keys.targets {
                let state = if target.cached {
                    "cached"
                } else {
                    "not cached"
                };
                println!("{:<14}  {}  {state}", target.target.to_string(), target.key);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
