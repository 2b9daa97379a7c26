//! `tpuc key`: the front-end key and the compile keys of a program, without compiling, for
//! deployment manifests and runtimes that look executables up in the cache; with `--shape`,
//! the compiled bucket that serves a request's shape and the padding it needs.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use miette::Result;
use tpuc_cache::{Bucket, Key};
use tpuc_driver::{Keys, Target};
use tpuc_prewarm::PlanOptions;

use crate::Format;
use crate::compile::TargetedArgs;
use crate::render::print_json;

#[derive(clap::Args)]
pub struct Args {
    /// The `.pt2` archive (or `.mlir` module).
    model: PathBuf,
    /// A request's input shape, e.g. `--shape input_ids=1x300` (repeat per input): answer with
    /// the smallest compiled bucket that holds it (from the cache's shape index).
    #[arg(long = "shape", value_name = "INPUT=AxB...", value_parser = tpuc_driver::parse_shape)]
    shapes: Vec<(String, Vec<i64>)>,
    #[command(flatten)]
    common: TargetedArgs,
}

/// One shape's keys, and the bucket it was chosen as (with `--shape`).
struct ShapeKeys {
    dims: BTreeMap<String, i64>,
    keys: Keys,
    bucket: Option<Bucket>,
}

pub fn run(args: &Args) -> Result<ExitCode> {
    let common = &args.common;
    let (caches, mut warnings) = common
        .remote
        .open(common.cache.open()?, &PlanOptions::default())?;
    let options = common
        .lowering
        .unsized_options(crate::compile::kernel_platform(&common.targets))?;
    let plugins = common.plugins.paths();
    let keys_at = |dims: &BTreeMap<String, i64>, targets: &[Target], warnings: &mut Vec<String>| {
        let mut options = options.clone();
        options.lower.dims.extend(dims.clone());
        tpuc_driver::keys(&args.model, targets, &options, &plugins, &caches, warnings)
    };
    let families = common
        .targets
        .iter()
        .map(|target| {
            Ok((
                target.clone(),
                tpuc_driver::family_key(&args.model, target, &options)?,
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut answers = Vec::new();
    if args.shapes.is_empty() {
        for dims in common.lowering.shapes(&args.model)? {
            let keys = keys_at(&dims, &common.targets, &mut warnings)?;
            answers.push(ShapeKeys {
                dims,
                keys,
                bucket: None,
            });
        }
    } else {
        for target in &common.targets {
            let records = caches.local.shapes(family_of(&families, target))?;
            let bucket = tpuc_driver::smallest_bucket(&records, &target.to_string(), &args.shapes)?;
            let dims = bucket.record.dims.clone();
            let keys = keys_at(&dims, std::slice::from_ref(target), &mut warnings)?;
            answers.push(ShapeKeys {
                dims,
                keys,
                bucket: Some(bucket),
            });
        }
    }
    for warning in &warnings {
        eprintln!("warning: {warning}");
    }
    match common.format {
        Format::Json => print_json(&json(args, &families, &answers, &warnings))?,
        Format::Text => print_text(&families, &answers),
    }
    Ok(ExitCode::SUCCESS)
}

fn family_of<'a>(families: &'a [(Target, Key)], target: &Target) -> &'a Key {
    &families
        .iter()
        .find(|(t, _)| t == target)
        .expect("a family per target")
        .1
}

fn json(
    args: &Args,
    families: &[(Target, Key)],
    answers: &[ShapeKeys],
    warnings: &[String],
) -> serde_json::Value {
    let first = &answers[0].keys;
    let targets: Vec<_> = answers
        .iter()
        .flat_map(|answer| {
            answer.keys.targets.iter().map(move |t| {
                let mut target = serde_json::json!({
                    "target": t.target.to_string(),
                    "dims": answer.dims,
                    "family_key": family_of(families, &t.target).to_string(),
                    "key": t.key.to_string(),
                    "cached": t.cached,
                });
                if let Some(bucket) = &answer.bucket {
                    target["inputs"] = serde_json::json!(bucket.record.inputs);
                    target["padding"] = serde_json::json!(bucket.padding);
                }
                target
            })
        })
        .collect();
    serde_json::json!({
        "model": args.model.display().to_string(),
        "frontend_key": first.frontend_key.to_string(),
        "module_sha256": first.module_sha256.to_string(),
        "targets": targets,
        "warnings": warnings,
    })
}

fn print_text(families: &[(Target, Key)], answers: &[ShapeKeys]) {
    for answer in answers {
        if !answer.dims.is_empty() {
            let dims: Vec<String> = answer
                .dims
                .iter()
                .map(|(s, n)| format!("{s}={n}"))
                .collect();
            println!("shape     {}", dims.join(","));
        }
        println!("frontend  {}", answer.keys.frontend_key);
        println!("module    {}", answer.keys.module_sha256);
        for target in &answer.keys.targets {
            let state = if target.cached {
                "cached"
            } else {
                "not cached"
            };
            println!("{:<14}  {}  {state}", target.target.to_string(), target.key);
        }
        if let Some(bucket) = &answer.bucket {
            for input in &bucket.record.inputs {
                let shape: Vec<String> = input.shape.iter().map(i64::to_string).collect();
                println!("input     {}={}", input.name, shape.join("x"));
            }
            if bucket.padding.is_empty() {
                println!("padding   none");
            }
            for pad in &bucket.padding {
                println!(
                    "pad       {} axis {} from {} to {}",
                    pad.input, pad.axis, pad.from, pad.to
                );
            }
        }
    }
    for (target, family) in families {
        println!("family    {family}  {target}");
    }
}
