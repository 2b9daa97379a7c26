//! Training steps on TPU by libtpu's own reports (no TPU needed).
//!
//! 1. The Llama training fixture (`testdata/training/llama.loss.pt2`, batch 4) as one AdamW step
//!    on `tpu:v5e:2x2`, unsharded, `dp` and `fsdp`: per-chip argument, alias, output, temp and
//!    peak bytes, each sharded figure against the unsharded one. Checks the goals:
//!    `fsdp` per-chip arguments at most 0.3x, and every output but the loss aliased to its
//!    argument, holding the parameters plus the optimizer state (donation works).
//! 2. With `--llama-1b ARCHIVE` (a loss-only export of a 1B-parameter Llama, made on the fly by
//!    `benches/gen/llama_1b.py`, random weights, not committed): the fsdp AdamW step for v5e
//!    topologies from the smallest up, until libtpu's peak per chip fits the chip's HBM.
//!
//!     cargo bench -p tpuc-benches --bench training [-- --llama-1b LLAMA_1B.pt2]
//!
//! Exits non-zero when a compile fails or a goal is missed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use tpuc_driver::{
    ArgumentRole, Emit, ExecutableReport, MemoryStats, Options, PluginPaths, Target,
};
use tpuc_passes::sharding::{PlanSource, ShardRequest};
use tpuc_passes::{OptimizerSpec, PipelineRequest};

const ADAMW: &str = "adamw:lr=1e-3,weight_decay=0.01";
/// The largest padded scalar: the loss, the one output not donated.
const LOSS_TILE: i64 = 4096;

/// How many chips a preset spreads the state over (fsdp shards it; the others replicate).
fn devices(preset: Option<&str>) -> i64 {
    if preset == Some("fsdp") { 4 } else { 1 }
}

/// HBM of one v5e chip.
const V5E_HBM: i64 = 16 << 30;

fn options(preset: Option<&str>, input_shapes: BTreeMap<usize, Vec<i64>>) -> Options {
    let mut options = Options {
        pipeline: PipelineRequest {
            optimizer: Some(OptimizerSpec::parse(ADAMW).expect("a valid spec")),
            sharding: preset
                .map(|p| ShardRequest::new(PlanSource::parse(p).expect("a preset"), None)),
            ..PipelineRequest::default()
        },
        ..Options::default()
    };
    options.lower.input_shapes = input_shapes;
    options
}

/// The step's report, and the bytes of its parameters and optimizer state (whole).
fn compile(
    model: &Path,
    target: &Target,
    options: &Options,
) -> Result<(ExecutableReport, i64), String> {
    let lowered =
        tpuc_driver::lower(model, &options.for_target(target)).map_err(|e| format!("{e:?}"))?;
    let interface = lowered
        .built
        .program
        .interface()
        .map_err(|e| e.to_string())?;
    let main = lowered.built.program.main().map_err(|e| e.to_string())?;
    let state_bytes: i64 = interface
        .arguments
        .iter()
        .zip(main.arg_types())
        .filter(|(role, _)| {
            matches!(
                role,
                ArgumentRole::Parameter { .. } | ArgumentRole::OptimizerState { .. }
            )
        })
        .filter_map(|(_, ty)| {
            let ty = ty.as_tensor()?.clone();
            Some((ty.num_elements()? * ty.element.storage_bytes() as u64) as i64)
        })
        .sum();
    let text = lowered.text(Emit::StablehloGeneric);
    let (_, report) = tpuc_driver::compile_module_report(&text, target, &PluginPaths::default())
        .map_err(|e| e.to_string())?;
    Ok((report, state_bytes))
}

fn memory(report: &ExecutableReport) -> MemoryStats {
    report.memory.clone().unwrap_or_default()
}

fn mib(bytes: i64) -> String {
    format!("{:.2}", bytes as f64 / (1 << 20) as f64)
}

fn fixture_table(failed: &mut bool) {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/training/llama.loss.pt2");
    let target: Target = "tpu:v5e:2x2".parse().expect("a target");
    let batch = BTreeMap::new();
    println!("Llama training fixture, AdamW step on {target}, MiB per chip");
    println!(
        "{:<10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10}",
        "plan", "args", "alias", "output", "temp", "peak", "args/none"
    );
    let mut unsharded = None;
    for preset in [None, Some("dp"), Some("fsdp")] {
        let name = preset.unwrap_or("none");
        let (report, state_bytes) = match compile(&model, &target, &options(preset, batch.clone()))
        {
            Ok(done) => done,
            Err(error) => {
                println!("{name:<10} fails: {error}");
                *failed = true;
                continue;
            }
        };
        let m = memory(&report);
        let ratio = match unsharded {
            None => {
                unsharded = Some(m.argument_bytes);
                1.0
            }
            Some(base) => m.argument_bytes as f64 / base as f64,
        };
        println!(
            "{name:<10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10.3}",
            mib(m.argument_bytes),
            mib(m.alias_bytes),
            mib(m.output_bytes),
            mib(m.temp_bytes),
            m.peak_bytes.map_or_else(|| "-".to_owned(), mib),
            ratio
        );
        // libtpu counts padded (tiled) buffers: every output but the loss must be aliased,
        // and the aliased bytes hold at least the parameters and optimizer state.
        let unaliased = m.output_bytes - m.alias_bytes;
        if m.alias_bytes < state_bytes / devices(preset) || unaliased > LOSS_TILE {
            println!(
                "  alias bytes {} (outputs {}) for {} bytes of parameters and optimizer state: \
                 not everything is donated",
                m.alias_bytes, m.output_bytes, state_bytes
            );
            *failed = true;
        }
        if preset == Some("fsdp") && ratio > 0.3 {
            println!("  fsdp arguments {ratio:.3}x unsharded: goal 0.3x");
            *failed = true;
        }
    }
}

fn llama_1b(archive: &Path, failed: &mut bool) {
    println!(
        "\n1B Llama, fsdp AdamW step: the smallest v5e topology whose peak fits {} GiB HBM",
        V5E_HBM >> 30
    );
    println!(
        "{:<14} {:>10} {:>10} {:>10} {:>10}  fits",
        "target", "args GiB", "alias GiB", "temp GiB", "peak GiB"
    );
    let gib = |b: i64| b as f64 / (1i64 << 30) as f64;
    for topology in ["1x1", "2x2", "2x4", "4x4"] {
        let target: Target = format!("tpu:v5e:{topology}").parse().expect("a target");
        let preset = (topology != "1x1").then_some("fsdp");
        match compile(archive, &target, &options(preset, BTreeMap::new())) {
            Ok((report, _)) => {
                let m = memory(&report);
                let peak = m
                    .peak_bytes
                    .unwrap_or(m.argument_bytes + m.temp_bytes + m.output_bytes);
                let fits = peak <= V5E_HBM;
                println!(
                    "{:<14} {:>10.2} {:>10.2} {:>10.2} {:>10.2}  {}",
                    target.to_string(),
                    gib(m.argument_bytes),
                    gib(m.alias_bytes),
                    gib(m.temp_bytes),
                    gib(peak),
                    if fits { "yes" } else { "no" }
                );
                if fits {
                    return;
                }
            }
            Err(error) => println!(
                "{:<14} does not compile: {}",
                target.to_string(),
                error.lines().next().unwrap_or("")
            ),
        }
    }
    println!("  no topology up to 4x4 fits");
    *failed = true;
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let mut failed = false;
    fixture_table(&mut failed);
    let big = args
        .iter()
        .position(|a| a == "--llama-1b")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from);
    match big {
        Some(archive) => llama_1b(&archive, &mut failed),
        None => println!("\n(1B Llama: pass --llama-1b ARCHIVE, made by benches/gen/llama_1b.py)"),
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
