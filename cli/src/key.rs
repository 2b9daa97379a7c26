//! `tpuc key`: the front-end key and the compile keys of a program, without compiling, for
//! deployment manifests and runtimes that look executables up in the cache.

use std::path::PathBuf;
use std::process::ExitCode;

use miette::Result;
use tpuc_prewarm::PlanOptions;

use crate::Format;
use crate::cache::print_json;
use crate::compile::TargetedArgs;

#[derive(clap::Args)]
pub struct Args {
    /// The `.pt2` archive (or `.mlir` module).
    model: PathBuf,
    #[command(flatten)]
    common: TargetedArgs,
}

pub fn run(args: &Args) -> Result<ExitCode> {
    let common = &args.common;
    let (caches, mut warnings) = common
        .remote
        .open(common.cache.open()?, &PlanOptions::default())?;
    let keys = tpuc_driver::keys(
        &args.model,
        &common.targets,
        &common
            .lowering
            .options(crate::compile::kernel_platform(&common.targets))?,
        &common.plugins.paths(),
        &caches,
        &mut warnings,
    )?;
    for warning in &warnings {
        eprintln!("warning: {warning}");
    }
    match common.format {
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
