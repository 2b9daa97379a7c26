//! `tpuc generate`: greedy decoding with a static-KV-cache decode step (and optionally a
//! prefill step) on XLA:CPU; writes the new tokens and every position's logits, all or nothing.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};
use miette::{Result, miette};
use tpuc_driver::{GenerateRequest, Runtime, Target};
use tpuc_npy::{Array, Dtype};

use crate::Format;
use crate::cache::CacheArgs;
use crate::lower::LoweringArgs;

#[derive(clap::Args)]
pub struct Args {
    /// The decode step: a `.pt2` archive taking `input_ids` [batch, 1] and `cache_position` [1]
    /// and returning logits, its KV cache in buffers it updates in place (transformers'
    /// `convert_and_export_with_cache`).
    decode: PathBuf,
    /// The prompt's token ids (`.npy`, integers, [batch, length] or [length]).
    #[arg(long, value_name = "PROMPT.npy")]
    prompt: PathBuf,
    /// How many tokens to generate.
    #[arg(long, value_name = "N")]
    max_new_tokens: usize,
    /// A prefill step for the prompt (`input_ids` [batch, L], `cache_position` [L]), whose
    /// cache buffers have the decode step's names; a prompt shorter than L is padded at the
    /// end. Without it the prompt goes through the decode step token by token.
    #[arg(long, value_name = "PREFILL.pt2")]
    prefill: Option<PathBuf>,
    /// The cache's length, for a step whose cache is inputs of symbolic length (exported with
    /// `Dim`); they start at zero.
    #[arg(long, value_name = "N")]
    cache_length: Option<usize>,
    /// Where to execute: `cpu`, or `cpu:N` for N XLA:CPU devices (with `--shard`).
    #[arg(long, default_value = "cpu", value_parser = crate::run::cpu_target)]
    target: Target,
    /// Directory for `tokens.npy` and `logits.npy` (created if missing).
    #[arg(long, value_name = "DIR")]
    output_dir: PathBuf,
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
    let options = args
        .lowering
        .options(&args.decode, Some("cpu"))?
        .for_target(&args.target);
    let runtime = Runtime::cpu_devices(args.plugin.as_deref(), devices)?;
    let caches = args.cache.open()?.into();
    let request = GenerateRequest {
        decode: &args.decode,
        prefill: args.prefill.as_deref(),
        prompt: &args.prompt,
        max_new_tokens: args.max_new_tokens,
        cache_length: args.cache_length,
        options: &options,
    };
    let bar = (std::io::stderr().is_terminal() && args.format == Format::Text).then(|| {
        let bar = ProgressBar::new(args.max_new_tokens as u64);
        bar.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} tokens  {per_sec}  {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    });
    let generated = tpuc_driver::generate(&request, &runtime, &caches, |_, _| {
        if let Some(bar) = &bar {
            bar.inc(1);
        }
    });
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let generated = generated?;
    for warning in &generated.warnings {
        eprintln!("warning: {warning}");
    }

    let batch = generated.tokens.len();
    let new_tokens = generated.tokens.first().map_or(0, Vec::len);
    let token_shape = if batch == 1 {
        vec![new_tokens]
    } else {
        vec![batch, new_tokens]
    };
    let tokens = Array::new(
        Dtype::I64,
        token_shape,
        generated
            .tokens
            .iter()
            .flatten()
            .flat_map(|t| t.to_le_bytes())
            .collect(),
    )?;
    let logits = Array::new(
        Dtype::F32,
        generated.logits_shape.clone(),
        generated
            .logits
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
    )?;
    let files = [
        (args.output_dir.join("tokens.npy"), tokens.to_npy_bytes()),
        (args.output_dir.join("logits.npy"), logits.to_npy_bytes()),
    ];
    crate::output_files::write_all(&files)?;

    let per_second = generated.tokens_per_second();
    match args.format {
        Format::Json => {
            let executables: Vec<serde_json::Value> = generated
                .executables
                .iter()
                .map(|(key, hit)| serde_json::json!({"key": key, "cache_hit": hit}))
                .collect();
            let summary = serde_json::json!({
                "decode": args.decode.display().to_string(),
                "prefill": args.prefill.as_ref().map(|p| p.display().to_string()),
                "tokens": generated.tokens,
                "executables": executables,
                "prompt_seconds": generated.prompt_seconds,
                "token_seconds": generated.token_seconds,
                "tokens_per_second": per_second,
                "output_dir": args.output_dir.display().to_string(),
            });
            println!(
                "{}",
                serde_json::to_string_pretty(&summary).map_err(|e| miette!("{e}"))?
            );
        }
        Format::Text => {
            for (key, hit) in &generated.executables {
                let how = if *hit { "loaded from" } else { "compiled into" };
                eprintln!("executable {how} the cache: {key}");
            }
            for (row, tokens) in generated.tokens.iter().enumerate() {
                let shown: Vec<String> = tokens.iter().map(i64::to_string).collect();
                let prefix = if batch == 1 {
                    String::new()
                } else {
                    format!("sequence {row}: ")
                };
                println!("{prefix}{}", shown.join(" "));
            }
            println!(
                "{new_tokens} tokens, {per_second:.1} tokens/s after a {:.1} ms prompt; wrote \
                 tokens.npy and logits.npy to {}",
                generated.prompt_seconds * 1e3,
                args.output_dir.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
