//! Sharding: for every fixture in `testdata/models` and every preset, the per-device figures
//! libtpu reports for the sharded executable against the one-chip executable of the same
//! program, on `tpu:v5e:2x2` (or `--target T`): argument bytes, flops and libtpu's
//! `optimal_seconds` estimate where it gives one. A preset that cannot apply to a fixture
//! (a batch the data axis does not divide) shows its reason.
//!
//!     cargo bench -p tpuc-benches --bench sharding [-- --target tpu:v5e:2x4]
//!
//! The goals, for the Llama-style fixture on `tpu:v5e:2x2`: `fsdp` and `tp` arguments
//! at most 0.3x, `tp` flops at most 0.3x.

use std::process::ExitCode;

use tpuc_driver::{Emit, ExecutableReport, Options, PluginPaths, Target};
use tpuc_passes::sharding::{MeshSpec, PlanSource, Preset, ShardRequest};

/// The presets, with the mesh of the two-axis ones on a 4- or 8-device target.
fn plans(devices: u64) -> Vec<(Preset, Option<MeshSpec>)> {
    let two_axes = format!("dp=2,tp={}", devices / 2).parse().ok();
    Preset::ALL
        .into_iter()
        .map(|preset| match preset {
            Preset::DpTp | Preset::FsdpTp => (preset, two_axes.clone()),
            _ => (preset, None),
        })
        .collect()
}

fn compile(
    fixture: &std::path::Path,
    target: &Target,
    options: &Options,
) -> Result<ExecutableReport, String> {
    let lowered =
        tpuc_driver::lower(fixture, &options.for_target(target)).map_err(|e| e.to_string())?;
    let text = lowered.text(Emit::StablehloGeneric);
    tpuc_driver::compile_module_report(&text, target, &PluginPaths::default())
        .map(|(_, report)| report)
        .map_err(|e| e.to_string())
}

fn figures(report: &ExecutableReport) -> (f64, f64, Option<f64>) {
    let arguments = report
        .memory
        .as_ref()
        .map_or(f64::NAN, |m| m.argument_bytes as f64);
    let cost = report.cost.as_ref();
    let flops = cost.and_then(|c| c.flops).unwrap_or(f64::NAN);
    let optimal = cost.and_then(|c| c.optimal_seconds).filter(|s| *s > 0.0);
    (arguments, flops, optimal)
}

fn seconds(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_owned(), |s| format!("{:.2e}", s))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let target: Target = args
        .iter()
        .position(|a| a == "--target")
        .and_then(|i| args.get(i + 1))
        .map_or("tpu:v5e:2x2", String::as_str)
        .parse()
        .expect("a target");
    let mut fixtures: Vec<_> = std::fs::read_dir(tpuc_benches::fixture_dir())
        .expect("testdata/models")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".pt2") && !n.ends_with(".core.pt2"))
        })
        .collect();
    fixtures.sort();
    println!("per-device figures on {target}, sharded / one chip");
    println!(
        "{:<12} {:<8} {:>9} {:>9} {:>12} {:>12}",
        "fixture", "preset", "args", "flops", "est. 1 chip", "est. sharded"
    );
    let mut failed = false;
    for fixture in &fixtures {
        let name = fixture.file_stem().and_then(|n| n.to_str()).unwrap_or("?");
        let whole = match compile(fixture, &target, &Options::default()) {
            Ok(report) => figures(&report),
            Err(error) => {
                println!("{name:<12} does not compile unsharded: {error}");
                failed = true;
                continue;
            }
        };
        for (preset, mesh) in plans(target.devices()) {
            let mut options = Options::default();
            options.pipeline.sharding = Some(ShardRequest::new(PlanSource::Preset(preset), mesh));
            match compile(fixture, &target, &options) {
                Ok(report) => {
                    let (arguments, flops, optimal) = figures(&report);
                    println!(
                        "{name:<12} {:<8} {:>8.3}x {:>8.3}x {:>12} {:>12}",
                        preset.name(),
                        arguments / whole.0,
                        flops / whole.1,
                        seconds(whole.2),
                        seconds(optimal)
                    );
                }
                Err(error) => {
                    let reason = error.lines().next().unwrap_or_default().to_owned();
                    println!("{name:<12} {:<8} n/a: {reason}", preset.name());
                }
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
