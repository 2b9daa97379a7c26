//! Serving decode steps: libtpu's reports and XLA:CPU's per-token cost.
//!
//! 1. Each decode step of `testdata/serving` (float32, and with `--kv-dtype bf16` and
//!    `f8e4m3fn`) compiled for `tpu:v5e:2x2` (no TPU needed), and with `--decode ARCHIVE` a
//!    larger one (`benches/gen/llama_decode.py`, ~0.4 B parameters, not committed): argument,
//!    output and alias bytes against the parameters and the KV cache. libtpu pads every array
//!    to its tiles, which dominates the tiny fixtures' figures; the 1.1x goal is the large
//!    step's. Checks: alias bytes at least the cache's (the
//!    cache is donated), argument + unaliased output bytes at most 1.1x parameters + one
//!    cache, and float8's cache bytes half bfloat16's.
//! 2. `tpuc generate` on XLA:CPU: the median per-token time of the Llama decode step after a
//!    2-token and a 16-token prompt (the cache stays on the device, so the two should match),
//!    and, with `--python PYTHON` (a Python with the pinned torch), PyTorch eager running the
//!    same exported program in the same run, as a ratio.
//!
//!     cargo bench -p tpuc-benches --bench serving [-- --decode LLAMA.pt2] [--python PYTHON]
//!
//! Exits non-zero when a compile fails or a check is missed.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use tpuc_driver::{
    ArgumentRole, CacheTiers, Emit, GenerateRequest, Options, PluginPaths, Runtime, Target,
};
use tpuc_npy::{Array, Dtype};
use tpuc_passes::{KvDtype, PipelineRequest};

fn serving() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/serving")
}

const FAMILIES: [&str; 4] = ["llama", "qwen3", "phi3", "gpt2"];

fn options(kv: Option<&str>) -> Options {
    Options {
        pipeline: PipelineRequest {
            kv_dtype: kv.map(|text| KvDtype::parse(text).expect("a cache type")),
            ..PipelineRequest::default()
        },
        ..Options::default()
    }
}

/// Bytes of the step's parameters and of its cache (the float buffers it updates in place).
fn state_bytes(lowered: &tpuc_driver::Lowered) -> Result<(i64, i64), String> {
    let program = &lowered.built.program;
    let interface = program.interface().map_err(|e| e.to_string())?;
    let main = program.main().map_err(|e| e.to_string())?;
    let bytes = |index: usize| -> i64 {
        main.arg_types()[index].as_tensor().map_or(0, |ty| {
            (ty.num_elements().unwrap_or(0) * ty.element.storage_bytes() as u64) as i64
        })
    };
    let parameters = (0..interface.arguments.len())
        .filter(|&i| matches!(interface.arguments[i], ArgumentRole::Parameter { .. }))
        .map(bytes)
        .sum();
    let cache = interface
        .aliases
        .iter()
        .filter(|&&(argument, _)| {
            main.arg_types()[argument]
                .as_tensor()
                .is_some_and(|ty| ty.element.is_float())
        })
        .map(|&(argument, _)| bytes(argument))
        .sum();
    Ok((parameters, cache))
}

fn tpu_table(models: &[(String, PathBuf)], failed: &mut bool) {
    let target: Target = "tpu:v5e:2x2".parse().expect("a target");
    println!("Decode steps on {target} by libtpu's report, bytes");
    println!(
        "{:<8} {:<9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "model", "kv", "params", "cache", "args", "output", "alias", "ratio"
    );
    for (family, model) in models {
        let mut bf16_cache = None;
        for kv in [None, Some("bf16"), Some("f8e4m3fn")] {
            let name = kv.unwrap_or("f32");
            let result = tpuc_driver::lower(model, &options(kv).for_target(&target))
                .map_err(|e| format!("{e:?}"))
                .and_then(|lowered| {
                    let state = state_bytes(&lowered)?;
                    let text = lowered.text(Emit::StablehloGeneric);
                    tpuc_driver::compile_module_report(&text, &target, &PluginPaths::default())
                        .map(|(_, report)| (state, report))
                        .map_err(|e| e.to_string())
                });
            let ((parameters, cache), report) = match result {
                Ok(done) => done,
                Err(error) => {
                    println!("{family:<8} {name:<9} fails: {error}");
                    *failed = true;
                    continue;
                }
            };
            let m = report.memory.clone().unwrap_or_default();
            let held = m.argument_bytes + m.output_bytes - m.alias_bytes;
            let ratio = held as f64 / (parameters + cache) as f64;
            println!(
                "{family:<8} {name:<9} {parameters:>8} {cache:>8} {:>8} {:>8} {:>8} {ratio:>8.3}",
                m.argument_bytes, m.output_bytes, m.alias_bytes
            );
            if m.alias_bytes < cache {
                println!("  alias bytes below the cache's: the cache is not donated");
                *failed = true;
            }
            if ratio > 1.1 && family == "large" {
                println!(
                    "  arguments + unaliased outputs {ratio:.3}x parameters + cache: goal 1.1x"
                );
                *failed = true;
            }
            match kv {
                Some("bf16") => bf16_cache = Some(cache),
                Some(_) if bf16_cache.is_some_and(|bf16| cache * 2 != bf16) => {
                    println!("  float8 cache {cache} bytes, bfloat16's {bf16_cache:?}: goal 0.5x");
                    *failed = true;
                }
                _ => {}
            }
        }
    }
}

/// The median of `seconds`.
fn median(mut seconds: Vec<f64>) -> f64 {
    seconds.sort_by(f64::total_cmp);
    seconds.get(seconds.len() / 2).copied().unwrap_or(f64::NAN)
}

/// tpuc's median per-token seconds after a prompt of `length` tokens.
fn tpuc_per_token(dir: &Path, length: usize, tokens: usize) -> Result<f64, String> {
    let prompt = dir.join(format!("prompt{length}.npy"));
    let ids: Vec<u8> = (0..length as i64)
        .flat_map(|i| (1 + i % 100).to_le_bytes())
        .collect();
    let array = Array::new(Dtype::I64, vec![1, length], ids).map_err(|e| e.to_string())?;
    std::fs::write(&prompt, array.to_npy_bytes()).map_err(|e| e.to_string())?;
    let decode = serving().join("llama.decode.pt2");
    let options = options(None);
    let request = GenerateRequest {
        decode: &decode,
        prefill: None,
        prompt: &prompt,
        max_new_tokens: tokens,
        cache_length: None,
        options: &options,
    };
    let runtime = Runtime::cpu(None).map_err(|e| e.to_string())?;
    let cache = tpuc_cache::Cache::open(dir.join("cache"), tpuc_cache::Mode::ReadWrite);
    let caches = CacheTiers::from(cache);
    let generated =
        tpuc_driver::generate(&request, &runtime, &caches, |_, _| {}).map_err(|e| e.to_string())?;
    Ok(median(generated.token_seconds))
}

/// PyTorch eager's median per-token seconds for the same exported program.
const TORCH_SCRIPT: &str = r#"
import sys, time, torch
program = torch.export.load(sys.argv[1]).module()
length, tokens = int(sys.argv[2]), int(sys.argv[3])
seconds = []
with torch.no_grad():
    for position in range(length + tokens - 1):
        started = time.perf_counter()
        program(input_ids=torch.tensor([[1 + position % 100]]), cache_position=torch.tensor([position]))
        if position >= length:
            seconds.append(time.perf_counter() - started)
seconds.sort()
print(seconds[len(seconds) // 2])
"#;

fn torch_per_token(python: &str, length: usize, tokens: usize) -> Result<f64, String> {
    let decode = serving().join("llama.decode.pt2");
    let output = std::process::Command::new(python)
        .args(["-c", TORCH_SCRIPT])
        .arg(&decode)
        .args([length.to_string(), tokens.to_string()])
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .map_err(|e| format!("{e}"))
}

fn cpu_table(python: Option<&str>, failed: &mut bool) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let tokens = 16;
    println!("\nLlama decode step on XLA:CPU, median seconds per token ({tokens} tokens)");
    println!(
        "{:<8} {:>12} {:>12} {:>10}",
        "prompt", "tpuc", "torch", "tpuc/torch"
    );
    let mut per_prompt = Vec::new();
    for length in [2, 16] {
        let ours = match tpuc_per_token(dir.path(), length, tokens) {
            Ok(seconds) => seconds,
            Err(error) => {
                println!("{length:<8} tpuc fails: {error}");
                *failed = true;
                continue;
            }
        };
        per_prompt.push(ours);
        let theirs = python.map(|python| torch_per_token(python, length, tokens));
        match theirs {
            Some(Ok(theirs)) => println!(
                "{length:<8} {ours:>12.6} {theirs:>12.6} {:>10.3}",
                ours / theirs
            ),
            Some(Err(error)) => {
                println!("{length:<8} {ours:>12.6}  torch fails: {error}");
                *failed = true;
            }
            None => println!("{length:<8} {ours:>12.6} {:>12} {:>10}", "-", "-"),
        }
    }
    if let [short, long] = per_prompt[..] {
        println!(
            "per-token time after 16 prompt tokens / after 2: {:.3}",
            long / short
        );
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let python = args
        .iter()
        .position(|a| a == "--python")
        .and_then(|i| args.get(i + 1))
        .map(String::as_str);
    let mut models: Vec<(String, PathBuf)> = FAMILIES
        .iter()
        .map(|family| {
            (
                family.to_string(),
                serving().join(format!("{family}.decode.pt2")),
            )
        })
        .collect();
    if let Some(decode) = args
        .iter()
        .position(|a| a == "--decode")
        .and_then(|i| args.get(i + 1))
    {
        models.push(("large".to_owned(), PathBuf::from(decode)));
    }
    let mut failed = false;
    tpu_table(&models, &mut failed);
    cpu_table(python, &mut failed);
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
