//! `tpuc compile`: compile a program for one or more targets through the cache.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use miette::{Result, miette};
use tpuc_driver::{ExecutableReport, Origin, PluginPaths, Target};
use tpuc_prewarm::PlanOptions;

use crate::Format;
use crate::cache::{CacheArgs, RemoteArgs};
use crate::lower::LoweringArgs;
use crate::render::{human_size, print_json};

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
    /// The `.pt2` archive written by `torch.export.save` (or a `.mlir` module).
    model: PathBuf,
    /// Also write the serialized executable to this file (one target and shape only).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Shapes (of --dim lists and --buckets) to compile in parallel (default: one per core).
    #[arg(short, long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    jobs: Option<u32>,
    #[command(flatten)]
    common: TargetedArgs,
}

/// What `compile` and `key` take besides the program: its targets, the plugins, the output
/// format, the cache tiers and the lowering flags.
#[derive(clap::Args)]
pub struct TargetedArgs {
    /// What to compile for: tpu:<topology> (e.g. tpu:v5e:2x2; see `tpuc targets`), cpu or
    /// cpu:<devices>. Repeat to compile for several.
    #[arg(long = "target", value_name = "TARGET", default_value = "tpu:v5e:2x2")]
    pub targets: Vec<Target>,
    #[command(flatten)]
    pub plugins: PluginArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    #[command(flatten)]
    pub cache: CacheArgs,
    #[command(flatten)]
    pub remote: RemoteArgs,
    #[command(flatten)]
    pub lowering: LoweringArgs,
}

pub fn run(args: &Args) -> Result<ExitCode> {
    let common = &args.common;
    let started = Instant::now();
    let shapes = common.lowering.shapes(&args.model)?;
    if args.output.is_some() && common.targets.len() * shapes.len() != 1 {
        return Err(miette!(
            help = "compile one target and one shape at a time with -o, or take the \
                    executables from the cache (`tpuc cache show KEY` prints their paths)",
            "-o writes one executable, but {} targets and {} shapes were given",
            common.targets.len(),
            shapes.len()
        ));
    }
    let (caches, opening) = common
        .remote
        .open(common.cache.open()?, &PlanOptions::default())?;
    let plugins = common.plugins.paths();
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
        |jobs| jobs as usize,
    );
    let platform = kernel_platform(&common.targets);
    let (groups, autos) = if common.lowering.sharding.auto()? {
        let options = common.lowering.options_sharded(platform, None)?;
        auto_shard(
            &args.model,
            &common.targets,
            &options,
            &shapes,
            jobs,
            &plugins,
            &caches,
        )?
    } else {
        let options = common.lowering.unsized_options(platform)?;
        (vec![(common.targets.clone(), options)], Vec::new())
    };
    let mut compiles: Vec<tpuc_driver::ShapeCompile> = Vec::new();
    for (targets, options) in &groups {
        let group = tpuc_driver::compile_shapes(
            &args.model,
            targets,
            options,
            &shapes,
            jobs,
            &plugins,
            &caches,
        )?;
        if compiles.is_empty() {
            compiles = group;
            continue;
        }
        for (compile, more) in compiles.iter_mut().zip(group) {
            compile.report.compiled.extend(more.report.compiled);
            compile.report.warnings.extend(more.report.warnings);
        }
    }
    let first = &compiles[0].report;
    if let (Some(path), [compiled]) = (&args.output, first.compiled.as_slice()) {
        tpuc_driver::write_atomically(path, &compiled.executable)?;
    }
    let mut warnings = opening;
    for compile in &compiles {
        let report = &compile.report;
        let new = report
            .warnings
            .iter()
            .cloned()
            .chain(report.compiled.iter().filter_map(one_device_warning));
        for warning in new {
            if !warnings.contains(&warning) {
                warnings.push(warning);
            }
        }
    }
    for warning in &warnings {
        eprintln!("warning: {warning}");
    }
    match &first.passes {
        Some(passes) => common.lowering.passes.print_report(passes),
        None if common.lowering.passes.wants_report() => {
            eprintln!(
                "note: the lowered module came from the cache, so no pass ran; `tpuc lower` with \
                 the same flags shows the passes"
            )
        }
        None => {}
    }
    let seconds = started.elapsed().as_secs_f64();
    match common.format {
        Format::Json => {
            let targets: Vec<_> = compiles
                .iter()
                .flat_map(|compile| {
                    let module = compile.report.module_sha256;
                    compile
                        .report
                        .compiled
                        .iter()
                        .map(move |compiled| target_json(compiled, &compile.dims, module))
                })
                .collect();
            let autos: Vec<_> = autos.iter().map(auto_json).collect();
            print_json(&serde_json::json!({
                "model": args.model,
                "shard_auto": autos,
                "frontend_key": first.frontend_key,
                "frontend_hit": first.frontend_hit,
                "module_sha256": first.module_sha256,
                "targets": targets,
                "output": args.output,
                "warnings": warnings,
                "seconds": seconds,
            }))?;
        }
        Format::Text => {
            for auto in &autos {
                print_auto_text(auto);
            }
            for compile in &compiles {
                print_shape_text(&args.model, compile, shapes.len() > 1);
            }
            if let Some(path) = &args.output {
                println!("wrote {}", path.display());
            }
            println!("total {seconds:.3} s");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Per target, its options: `--shard auto` picks a plan for each multi-device TPU target (on
/// the first shape), the others compile unsharded.
type Groups = Vec<(Vec<Target>, tpuc_driver::Options)>;

fn auto_shard(
    model: &std::path::Path,
    targets: &[Target],
    options: &tpuc_driver::Options,
    shapes: &[std::collections::BTreeMap<String, i64>],
    jobs: usize,
    plugins: &PluginPaths,
    caches: &tpuc_driver::CacheTiers,
) -> Result<(Groups, Vec<tpuc_driver::AutoShard>)> {
    let mut first = options.clone();
    first.lower.dims.extend(shapes[0].clone());
    let (mut groups, mut autos, mut single) = (Vec::new(), Vec::new(), Vec::new());
    for target in targets {
        if target.devices() == 1 {
            single.push(target.clone());
            continue;
        }
        let auto = tpuc_driver::choose_shard(model, target, &first, jobs, plugins, caches)?;
        let mut chosen = options.clone();
        chosen.pipeline.sharding = Some(auto.chosen().request());
        groups.push((vec![target.clone()], chosen));
        autos.push(auto);
    }
    if !single.is_empty() {
        groups.push((single, options.clone()));
    }
    Ok((groups, autos))
}

/// `--shard auto`'s table: each candidate's estimate per device, the pick marked.
fn print_auto_text(auto: &tpuc_driver::AutoShard) {
    println!(
        "--shard auto for {} (per device; * the fastest that fits the chip):",
        auto.target
    );
    println!(
        "    {:<8} {:<10} {:>22} {:>10} {:>14} {:>10}",
        "plan", "mesh", "estimate", "flops", "bytes accessed", "memory"
    );
    for (i, candidate) in auto.candidates.iter().enumerate() {
        let mark = if i == auto.chosen { "*" } else { " " };
        let (preset, mesh) = (candidate.preset.name(), candidate.mesh.to_string());
        match &candidate.outcome {
            Ok(e) => println!(
                "  {mark} {preset:<8} {mesh:<10} {:>22} {:>10} {:>14} {:>10}{}",
                format!("{} ({})", short_duration(e.seconds), e.source),
                e.flops.map_or("-".to_owned(), |f| format!("{f:.2e}")),
                e.bytes_accessed
                    .map_or("-".to_owned(), |b| human_size(b as u64)),
                signed_size(e.memory_bytes),
                if e.fits { "" } else { "  does not fit" }
            ),
            Err(reason) => println!("  {mark} {preset:<8} {mesh:<10} failed: {reason}"),
        }
    }
}

fn auto_json(auto: &tpuc_driver::AutoShard) -> serde_json::Value {
    let candidates: Vec<_> = auto
        .candidates
        .iter()
        .map(|candidate| {
            let mut entry = serde_json::json!({
                "plan": candidate.preset.name(),
                "mesh": candidate.mesh.to_string(),
            });
            match &candidate.outcome {
                Ok(e) => {
                    entry["estimate_seconds"] = serde_json::json!(e.seconds);
                    entry["estimate_source"] = serde_json::json!(e.source);
                    entry["flops"] = serde_json::json!(e.flops);
                    entry["bytes_accessed"] = serde_json::json!(e.bytes_accessed);
                    entry["memory_bytes"] = serde_json::json!(e.memory_bytes);
                    entry["fits"] = serde_json::json!(e.fits);
                }
                Err(reason) => entry["error"] = serde_json::json!(reason),
            }
            entry
        })
        .collect();
    let chosen = auto.chosen();
    serde_json::json!({
        "target": auto.target.to_string(),
        "candidates": candidates,
        "chosen": {"plan": chosen.preset.name(), "mesh": chosen.mesh.to_string()},
    })
}

/// One (shape, target) element of `--format json`'s `targets`.
fn target_json(
    compiled: &tpuc_driver::Compiled,
    dims: &std::collections::BTreeMap<String, i64>,
    module_sha256: tpuc_cache::Digest,
) -> serde_json::Value {
    let signature = &compiled.manifest.signature;
    let mesh = signature.mesh.as_ref().map(|axes| {
        axes.iter()
            .map(|a| format!("{}={}", a.name, a.size))
            .collect::<Vec<_>>()
            .join(",")
    });
    let inputs: Vec<_> = signature
        .arguments
        .iter()
        .filter(|binding| binding.kind == "input")
        .map(|binding| serde_json::json!({"name": binding.name, "shape": binding.shape}))
        .collect();
    serde_json::json!({
        "target": compiled.target.to_string(),
        "dims": dims,
        "inputs": inputs,
        "module_sha256": module_sha256,
        "devices": compiled.target.devices(),
        "partitions": tpuc_driver::compile::partitions(signature),
        "mesh": mesh,
        "key": compiled.key,
        "hit": compiled.origin != Origin::Compiled,
        "origin": compiled.origin.name(),
        "entry": compiled.entry,
        "size": compiled.executable.len(),
        "seconds": compiled.seconds,
        "compile_seconds": compiled.manifest.compile_seconds,
        "memory": compiled.manifest.report.memory,
        "cost": compiled.manifest.report.cost,
    })
}

/// The text report of one shape's compile: the module line (with the sizes when several
/// shapes were compiled), then a line per target.
fn print_shape_text(model: &std::path::Path, compile: &tpuc_driver::ShapeCompile, several: bool) {
    let report = &compile.report;
    let lowering = if report.frontend_hit {
        "cached"
    } else {
        "lowered"
    };
    let shape = if several {
        let dims: Vec<String> = compile
            .dims
            .iter()
            .map(|(s, n)| format!("{s}={n}"))
            .collect();
        format!(" [{}]", dims.join(","))
    } else {
        String::new()
    };
    println!(
        "{}{shape} ({lowering} module {})",
        model.display(),
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
        if let Some(line) = report_line(&compiled.manifest.report) {
            println!("  {line}");
        }
        match &compiled.entry {
            Some(entry) => println!("  entry {}", entry.display()),
            None => println!("  not stored in the cache"),
        }
    }
}

/// Says so when the executable for a multi-device target uses one of its devices.
fn one_device_warning(compiled: &tpuc_driver::Compiled) -> Option<String> {
    let devices = compiled.target.devices();
    let signature = &compiled.manifest.signature;
    let used = tpuc_driver::compile::partitions(signature) * signature.replicas.unwrap_or(1);
    (devices > 1 && used == 1).then(|| {
        format!(
            "{} has {devices} devices, but this executable uses one of them; --shard auto \
             picks the fastest plan that uses them all (or --shard dp|fsdp|tp|dp+tp|fsdp+tp, \
             a plan file; docs/sharding.md)",
            compiled.target
        )
    })
}

/// The main numbers of what the plugin reported, per device: `flops 3.4e7, bytes accessed
/// 2.9 MB, arguments 640.0 KB, temp 0 B, est. 4.1 µs`. `None` if it reported nothing.
fn report_line(report: &ExecutableReport) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(cost) = &report.cost {
        if let Some(flops) = cost.flops {
            parts.push(format!("flops {flops:.1e}"));
        }
        if let Some(bytes) = cost.bytes_accessed {
            parts.push(format!("bytes accessed {}", human_size(bytes as u64)));
        }
    }
    if let Some(memory) = &report.memory {
        for (name, bytes) in [
            ("arguments", memory.argument_bytes),
            ("outputs", memory.output_bytes),
            ("temp", memory.temp_bytes),
        ] {
            parts.push(format!("{name} {}", signed_size(bytes)));
        }
    }
    if let Some(seconds) = report.cost.as_ref().and_then(|cost| cost.optimal_seconds) {
        parts.push(format!("est. {}", short_duration(seconds)));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// A byte count a plugin reported; a negative one is shown as it is.
fn signed_size(bytes: i64) -> String {
    u64::try_from(bytes).map_or_else(|_| format!("{bytes} B"), human_size)
}

/// Seconds in the unit that keeps them readable: `27.1 ns`, `69.0 µs`, `1.2 ms`, `3.40 s`.
fn short_duration(seconds: f64) -> String {
    if seconds < 1e-6 {
        format!("{:.1} ns", seconds * 1e9)
    } else if seconds < 1e-3 {
        format!("{:.1} µs", seconds * 1e6)
    } else if seconds < 1.0 {
        format!("{:.1} ms", seconds * 1e3)
    } else {
        format!("{seconds:.2} s")
    }
}

/// The platform whose kernels a compile for `targets` uses: `tpu` or `cpu` when all targets
/// are of one kind, `None` when they mix.
pub fn kernel_platform(targets: &[Target]) -> Option<&'static str> {
    let tpu = targets
        .iter()
        .filter(|t| matches!(t, Target::Tpu { .. }))
        .count();
    match tpu {
        0 => Some("cpu"),
        n if n == targets.len() => Some("tpu"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpuc_driver::{CostAnalysis, MemoryStats};

    #[test]
    fn the_text_line_shows_the_main_numbers() {
        let report = ExecutableReport {
            memory: Some(MemoryStats {
                argument_bytes: 655_360,
                output_bytes: 262_144,
                ..MemoryStats::default()
            }),
            cost: Some(CostAnalysis {
                flops: Some(2.69e8),
                bytes_accessed: Some(5.09e7),
                optimal_seconds: Some(6.9e-5),
                ..CostAnalysis::default()
            }),
        };
        assert_eq!(
            report_line(&report).unwrap(),
            "flops 2.7e8, bytes accessed 48.5 MB, arguments 640.0 KB, outputs 256.0 KB, \
             temp 0 B, est. 69.0 µs"
        );
        let memory_only = ExecutableReport {
            cost: None,
            ..report
        };
        assert_eq!(
            report_line(&memory_only).unwrap(),
            "arguments 640.0 KB, outputs 256.0 KB, temp 0 B"
        );
        assert_eq!(report_line(&ExecutableReport::default()), None);
        assert_eq!(short_duration(2.7e-8), "27.0 ns");
        assert_eq!(short_duration(0.0012), "1.2 ms");
        assert_eq!(short_duration(3.4), "3.40 s");
        assert_eq!(signed_size(-1), "-1 B");
    }
}
