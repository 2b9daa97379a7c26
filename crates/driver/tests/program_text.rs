//! `tpuc lower M.pt2 -o m.mlir`, then `tpuc compile m.mlir`, is the same program as `tpuc compile
//! M.pt2`: for every fixture (both dialects), every target and every sharding preset that
//! applies, the text gets the archive's compile key; and the text runs on XLA:CPU, with the
//! archive's weights bound by the names its interface gives them, to eager PyTorch's outputs.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tpuc_cache::Cache;
use tpuc_driver::{CacheTiers, Emit, Input, Options, PluginPaths, Runtime, Target, Tolerance};
use tpuc_passes::sharding::{PlanSource, Preset, ShardRequest};

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

fn manifest() -> Value {
    let text = std::fs::read_to_string(testdata().join("manifest.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Every fixture archive with its manifest entry.
fn fixtures() -> Vec<(String, PathBuf, Value)> {
    let manifest = manifest();
    let mut all = Vec::new();
    for (name, entry) in manifest["models"].as_object().unwrap() {
        for variant in ["pt2", "core"] {
            let path = testdata().join(entry["files"][variant].as_str().unwrap());
            all.push((format!("{name} ({variant})"), path, entry.clone()));
        }
    }
    all
}

/// `main` as `tpuc lower` prints it, written to `dir`.
fn lowered_text(archive: &Path, dir: &Path, options: &Options) -> PathBuf {
    let text = tpuc_driver::lower(archive, options)
        .unwrap_or_else(|e| panic!("{}: {:?}", archive.display(), miette::Report::new(e)))
        .text(Emit::Stablehlo);
    let name = archive.file_name().unwrap().to_string_lossy();
    let path = dir.join(format!("{name}.mlir"));
    std::fs::write(&path, text).unwrap();
    path
}

fn sharded(preset: Option<Preset>) -> Options {
    let mut options = Options::default();
    options.pipeline.sharding = preset.map(|p| ShardRequest::new(PlanSource::Preset(p), None));
    options
}

#[test]
fn the_printed_program_compiles_to_the_archives_key() {
    tpuc_expect::skip_without!(Plugins);
    let work = tempfile::tempdir().unwrap();
    let caches = CacheTiers::from(Cache::open(
        work.path().join("cache"),
        tpuc_cache::Mode::ReadWrite,
    ));
    let plugins = PluginPaths::default();
    let targets: [Target; 2] = ["cpu:2".parse().unwrap(), "tpu:v5e:2x2".parse().unwrap()];
    let presets = std::iter::once(None).chain(Preset::ALL.map(Some));
    let presets: Vec<Option<Preset>> = presets.collect();
    let (mut compared, mut failures) = (0, Vec::new());
    for (label, archive, _) in fixtures() {
        let text = lowered_text(&archive, work.path(), &Options::default());
        for target in &targets {
            for &preset in &presets {
                let options = sharded(preset);
                let key = |model: &Path| {
                    tpuc_driver::cached_key(
                        model,
                        target,
                        &options,
                        &plugins,
                        &caches,
                        &mut Vec::new(),
                    )
                    .map(|(key, _)| key)
                    .map_err(|e| e.to_string())
                };
                let what = format!("{label} {target} {preset:?}");
                match (key(&archive), key(&text)) {
                    (Ok(from_archive), Ok(from_text)) if from_archive == from_text => compared += 1,
                    // A preset that does not fit the program is refused the same way.
                    (Err(a), Err(b)) if a == b => {}
                    (a, b) => failures.push(format!("{what}: {a:?} vs {b:?}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    eprintln!("{compared} compile keys equal between archives and their printed programs");
    assert!(compared > 200, "only {compared} keys compared");
}

/// Runs `model` on `devices` XLA:CPU devices for the manifest's first input set and compares
/// with eager's outputs.
fn matches_eager(
    model: &Path,
    weights: &Path,
    entry: &Value,
    options: &Options,
    devices: usize,
) -> Result<(), String> {
    let set = &entry["files"]["sets"][0];
    let files = |list: &Value| -> Vec<PathBuf> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|p| testdata().join(p.as_str().unwrap()))
            .collect()
    };
    let inputs = files(&set["inputs"])
        .iter()
        .map(Input::read)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let tolerance = Tolerance {
        rtol: entry["tolerance"]["rtol"].as_f64().unwrap(),
        atol: entry["tolerance"]["atol"].as_f64().unwrap(),
    };
    let mut options = options.for_target(&Target::Cpu { devices });
    options.weights = Some(weights.to_owned());
    let runtime = Runtime::cpu_devices(None, devices).map_err(|e| e.to_string())?;
    let run = tpuc_driver::run(&runtime, model, &inputs, &options)
        .map_err(|e| format!("{:?}", miette::Report::new(e)))?;
    for (i, (got, want)) in run.outputs.iter().zip(files(&set["outputs"])).enumerate() {
        let got = got.to_npy().ok_or("no .npy form")?;
        let want = tpuc_npy::Array::read(&want).map_err(|e| e.to_string())?;
        let comparison = tpuc_driver::compare(&got, &want, tolerance);
        if !comparison.passed() {
            return Err(format!("out{i}: {comparison:?}"));
        }
    }
    Ok(())
}

#[test]
fn the_printed_program_runs_to_eagers_outputs() {
    tpuc_expect::skip_without!(CpuPlugin);
    let work = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (label, archive, entry) in fixtures() {
        let text = lowered_text(&archive, work.path(), &Options::default());
        if let Err(why) = matches_eager(&text, &archive, &entry, &Options::default(), 1) {
            failures.push(format!("{label}: {why}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The text sharded by each preset that fits, on two XLA:CPU devices, for the transformer
/// fixtures (each preset compiles and runs the model once more).
#[test]
fn the_printed_program_runs_sharded_to_eagers_outputs() {
    tpuc_expect::skip_without!(CpuPlugin);
    let work = tempfile::tempdir().unwrap();
    let mut ran = 0;
    let mut failures = Vec::new();
    for (label, archive, entry) in fixtures() {
        if !["gpt2 (pt2)", "bert (core)", "llama (pt2)", "mlp (pt2)"].contains(&label.as_str()) {
            continue;
        }
        let text = lowered_text(&archive, work.path(), &Options::default());
        for preset in Preset::ALL {
            let options = sharded(Some(preset));
            // A preset that does not fit the archive does not fit its text either (see above).
            if tpuc_driver::lower(&archive, &options.for_target(&Target::Cpu { devices: 2 }))
                .is_err()
            {
                continue;
            }
            ran += 1;
            if let Err(why) = matches_eager(&text, &archive, &entry, &options, 2) {
                failures.push(format!("{label} {preset}: {why}"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    eprintln!("{ran} sharded runs of printed programs matched eager");
    assert!(ran >= 8, "only {ran} sharded runs");
}
