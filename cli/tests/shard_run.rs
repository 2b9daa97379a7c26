//! Sharded programs run on several XLA:CPU devices: every preset that applies to the decoder,
//! GPT-2, BERT, Llama and CNN fixtures runs on `cpu:4` (and Llama over a 2x4 mesh on `cpu:8`),
//! each input and weight placed as its blocks on the devices, and matches PyTorch eager and
//! the one-device run.

mod support;

use std::path::Path;

use serde_json::Value;
use support::{manifest, repo_root, tpuc};
use tpuc_npy::Array;

const FIXTURES: [&str; 5] = ["decoder", "gpt2", "bert", "llama", "cnn"];

/// (preset, mesh): one-axis presets use one axis over all devices.
const PLANS: [(&str, Option<&str>); 5] = [
    ("dp", None),
    ("fsdp", None),
    ("tp", None),
    ("dp+tp", Some("dp=2,tp=2")),
    ("fsdp+tp", Some("dp=2,tp=2")),
];

/// Runs `fixture` on `target` with `extra` flags, comparing with eager; `None` when the plan
/// does not apply (a `tpuc::shard` diagnostic), else the outputs.
fn run(cache: &Path, fixture: &Value, target: &str, extra: &[&str]) -> Option<Vec<Array>> {
    let set = &fixture["files"]["sets"][0];
    let out_dir = tempfile::tempdir().unwrap();
    let tolerance = &fixture["tolerance"];
    let (rtol, atol) = (
        tolerance["rtol"].as_f64().unwrap().to_string(),
        tolerance["atol"].as_f64().unwrap().to_string(),
    );
    let model = format!("testdata/{}", fixture["files"]["pt2"].as_str().unwrap());
    let mut args = vec![
        "run",
        &model,
        "--target",
        target,
        "--output-dir",
        out_dir.path().to_str().unwrap(),
        "--rtol",
        &rtol,
        "--atol",
        &atol,
    ];
    let paths = |key: &str| -> Vec<String> {
        set[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| format!("testdata/{}", p.as_str().unwrap()))
            .collect()
    };
    let (inputs, outputs) = (paths("inputs"), paths("outputs"));
    for input in &inputs {
        args.extend(["--input", input]);
    }
    for output in &outputs {
        args.extend(["--expect", output]);
    }
    args.extend(extra);
    let out = tpuc(cache, &args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && stderr.contains("tpuc::shard::") {
        return None;
    }
    assert!(
        out.status.success(),
        "{target} {extra:?}: {}{stderr}",
        String::from_utf8_lossy(&out.stdout)
    );
    Some(
        (0..outputs.len())
            .map(|i| Array::read(out_dir.path().join(format!("out{i}.npy"))).unwrap())
            .collect(),
    )
}

#[test]
fn every_preset_that_applies_matches_eager_and_the_one_device_run() {
    tpuc_expect::skip_without!(Plugins);
    assert!(repo_root().join("testdata").is_dir());
    let manifest = manifest();
    let cache = tempfile::tempdir().unwrap();
    let mut ran = Vec::new();
    for name in FIXTURES {
        let fixture = &manifest["models"][name];
        let single = run(cache.path(), fixture, "cpu", &[]).expect("the one-device run");
        let mut applied = Vec::new();
        for (preset, mesh) in PLANS {
            let mut extra = vec!["--shard", preset];
            if let Some(mesh) = mesh {
                extra.extend(["--mesh", mesh]);
            }
            let Some(sharded) = run(cache.path(), fixture, "cpu:4", &extra) else {
                continue;
            };
            for (got, want) in sharded.iter().zip(&single) {
                let tolerance = tpuc_driver::Tolerance {
                    rtol: fixture["tolerance"]["rtol"].as_f64().unwrap(),
                    atol: fixture["tolerance"]["atol"].as_f64().unwrap(),
                };
                let comparison = tpuc_driver::compare(got, want, tolerance);
                assert!(
                    comparison.passed(),
                    "{name} {preset} against one device: {comparison:?}"
                );
            }
            applied.push(preset);
        }
        for required in ["fsdp", "tp"] {
            assert!(
                applied.contains(&required),
                "{name}: {required} did not apply"
            );
        }
        ran.push(format!("{name}: {applied:?}"));
    }
    eprintln!("{}", ran.join("\n"));

    let llama = &manifest["models"]["llama"];
    let on_eight = run(
        cache.path(),
        llama,
        "cpu:8",
        &["--shard", "dp+tp", "--mesh", "dp=2,tp=4"],
    );
    assert!(on_eight.is_some(), "llama dp+tp over a 2x4 mesh");
}
