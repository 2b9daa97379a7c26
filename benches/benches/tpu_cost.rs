//! TPU cost against torch_xla, by libtpu's own reports (no TPU needed): every model of the peer
//! comparison set (`../shared/peers/models/<name>.pt2`) is built by tpuc with the default
//! pipeline and compiled for one chip of each generation, side by side with torch_xla's
//! StableHLO for the same program (`../shared/peers/torch_xla/<name>.mlir`). Per model and
//! target: flops, bytes accessed, transcendentals, `optimal_seconds` where libtpu gives it,
//! peak and temp memory, each as tpuc / torch_xla, then the geomean of each ratio.
//!
//! `--large DIR` adds the larger configurations (Llama ~125M and BERT-base at sequence 512,
//! ResNet-50 at 224), laid out like the peers and made by `benches/gen/tpu_cost_large.py`
//! (about 1.4 GB, not committed).
//!
//!     cargo bench -p tpuc-benches --bench tpu_cost [-- --target tpu:v5e:1 ... --large DIR]
//!
//! Exits non-zero when a model fails to build or compile either way.

use std::path::{Path, PathBuf};
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

/// The values given to `flag` on the command line.
fn flag_values(flag: &str) -> Vec<String> {
    let args: Vec<String> = std::env::args().collect();
    args.windows(2)
        .filter(|pair| pair[0] == flag)
        .map(|pair| pair[1].clone())
        .collect()
}

fn targets() -> Vec<Target> {
    let given: Vec<Target> = flag_values("--target")
        .iter()
        .filter_map(|target| target.parse().ok())
        .collect();
    if !given.is_empty() {
        return given;
    }
    ["tpu:v5e:1", "tpu:v6e:1"]
        .iter()
        .map(|t| t.parse().expect("a known target"))
        .collect()
}

/// The models of a directory laid out like `../shared/peers`, each with that directory.
fn models_in(root: &Path) -> Vec<(PathBuf, String)> {
    let mut models: Vec<String> = std::fs::read_dir(root.join("torch_xla"))
        .unwrap_or_else(|e| panic!("{}: {e}", root.join("torch_xla").display()))
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".mlir").map(str::to_owned)
        })
        .collect();
    models.sort();
    models
        .into_iter()
        .map(|model| (root.to_path_buf(), model))
        .collect()
}

fn main() -> ExitCode {
    let mut models: Vec<(PathBuf, String)> =
        peers_dir().as_deref().map(models_in).unwrap_or_default();
    for large in flag_values("--large") {
        models.extend(models_in(Path::new(&large)));
    }
    if models.is_empty() {
        println!("no ../shared/peers and no --large: nothing to compare");
        return ExitCode::SUCCESS;
    }
    let names = figures(&ExecutableReport::default()).map(|(name, _)| name);
    let mut failed = false;
    for target in targets() {
        println!("\n{target}: tpuc / torch_xla");
        print!("{:<12}", "model");
        names.iter().for_each(|name| print!(" {name:>10}"));
        println!();
        let mut logs = vec![Vec::new(); names.len()];
        for (root, model) in &models {
            let ours = tpuc_driver::lower(
                &root.join(format!("models/{model}.pt2")),
                &Options::default(),
            )
            .map(|lowered| lowered.text(Emit::StablehloGeneric))
            .map_err(|e| e.to_string())
            .and_then(|text| compile(&text, &target));
            let theirs = std::fs::read_to_string(root.join(format!("torch_xla/{model}.mlir")))
                .map_err(|e| e.to_string())
                .and_then(|text| compile(&text, &target));
            let (ours, theirs) = match (ours, theirs) {
                (Ok(ours), Ok(theirs)) => (ours, theirs),
                (ours, theirs) => {
                    println!(
                        "{model:<12} fails: tpuc {:?}, torch_xla {:?}",
                        ours.err(),
                        theirs.err()
                    );
                    failed = true;
                    continue;
                }
            };
            print!("{model:<12}");
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
        print!("{:<12}", "geomean");
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
