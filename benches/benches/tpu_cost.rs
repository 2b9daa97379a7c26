//! TPU cost against torch_xla, by libtpu's own reports (no TPU needed): every model of the peer
//! comparison set (`../shared/peers/models/<name>.pt2`) is built by tpuc with the default
//! pipeline and compiled for one chip of each generation, side by side with torch_xla's
//! StableHLO for the same program (`../shared/peers/torch_xla/<name>.mlir`). Per model and
//! target: flops, bytes accessed, transcendentals, `optimal_seconds` where libtpu gives it,
//! peak and temp memory, each as tpuc / torch_xla, then the geomean of each ratio.
//!
//!     cargo bench -p tpuc-benches --bench tpu_cost [-- --target tpu:v5e:1 ...]
//!
//! Exits non-zero when a model fails to build or compile either way.

use std::process::ExitCode;

use tpuc_benches::peers_dir;
use tpuc_driver::{Emit, ExecutableReport, Options, PluginPaths, Target};

/// The figures compared, by name, from one report.
fn figures(report: &ExecutableReport) -> [(&'static str, Option<f64>); 6] {
    let cost = report.cost.as_ref();
    let memory = report.memory.as_ref();
    [
        ("flops", cost.and_then(|c| c.flops)),
        ("bytes", cost.and_then(|c| c.bytes_accessed)),
        ("transc", cost.and_then(|c| c.transcendentals)),
        ("optimal_s", cost.and_then(|c| c.optimal_seconds)),
        ("peak", memory.and_then(|m| m.peak_bytes).map(|b| b as f64)),
        ("temp", memory.map(|m| m.temp_bytes as f64)),
    ]
}

fn compile(text: &str, target: &Target) -> Result<ExecutableReport, String> {
    tpuc_driver::compile_module_report(text, target, &PluginPaths::default())
        .map(|(_, report)| report)
        .map_err(|e| e.to_string())
}

fn targets() -> Vec<Target> {
    let args: Vec<String> = std::env::args().collect();
    let given: Vec<Target> = args
        .windows(2)
        .filter(|pair| pair[0] == "--target")
        .filter_map(|pair| pair[1].parse().ok())
        .collect();
    if !given.is_empty() {
        return given;
    }
    ["tpu:v5e:1", "tpu:v6e:1"]
        .iter()
        .map(|t| t.parse().expect("a known target"))
        .collect()
}

fn main() -> ExitCode {
    let Some(peers) = peers_dir() else {
        println!("no ../shared/peers: nothing to compare");
        return ExitCode::SUCCESS;
    };
    let mut models: Vec<String> = std::fs::read_dir(peers.join("torch_xla"))
        .expect("the torch_xla texts")
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".mlir").map(str::to_owned)
        })
        .collect();
    models.sort();
    let names = figures(&ExecutableReport::default()).map(|(name, _)| name);
    let mut failed = false;
    for target in targets() {
        println!("\n{target}: tpuc / torch_xla");
        print!("{:<10}", "model");
        names.iter().for_each(|name| print!(" {name:>10}"));
        println!();
        let mut logs = vec![Vec::new(); names.len()];
        for model in &models {
            let ours = tpuc_driver::lower(
                &peers.join(format!("models/{model}.pt2")),
                &Options::default(),
            )
            .map(|lowered| lowered.text(Emit::StablehloGeneric))
            .map_err(|e| e.to_string())
            .and_then(|text| compile(&text, &target));
            let theirs = std::fs::read_to_string(peers.join(format!("torch_xla/{model}.mlir")))
                .map_err(|e| e.to_string())
                .and_then(|text| compile(&text, &target));
            let (ours, theirs) = match (ours, theirs) {
                (Ok(ours), Ok(theirs)) => (ours, theirs),
                (ours, theirs) => {
                    println!(
                        "{model:<10} fails: tpuc {:?}, torch_xla {:?}",
                        ours.err(),
                        theirs.err()
                    );
                    failed = true;
                    continue;
                }
            };
            print!("{model:<10}");
            for (k, ((_, a), (_, b))) in
                figures(&ours).into_iter().zip(figures(&theirs)).enumerate()
            {
                match (a, b) {
                    (Some(a), Some(b)) if a > 0.0 && b > 0.0 => {
                        logs[k].push((a / b).ln());
                        print!(" {:>10.3}", a / b);
                    }
                    (Some(a), Some(b)) if a == b => print!(" {:>10}", "="),
                    _ => print!(" {:>10}", "-"),
                }
            }
            println!();
        }
        print!("{:<10}", "geomean");
        for log in &logs {
            match log.len() {
                0 => print!(" {:>10}", "-"),
                n => print!(" {:>10.3}", (log.iter().sum::<f64>() / n as f64).exp()),
            }
        }
        println!();
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
