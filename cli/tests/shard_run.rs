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

/// `--shard auto` on v5e:2x2 and v5e:2x4 compiles every preset on every mesh and picks the
/// candidate with the smallest estimate among those that fit the chip; the pick for 2x2 runs
/// on `cpu:4` and matches eager.
#[test]
fn shard_auto_picks_the_fastest_plan_that_fits_and_the_pick_matches_eager() {
    tpuc_expect::skip_without!(Plugins);
    let manifest = manifest();
    let cache = tempfile::tempdir().unwrap();
    for name in ["gpt2", "llama", "bert"] {
        let fixture = &manifest["models"][name];
        let model = format!("testdata/{}", fixture["files"]["pt2"].as_str().unwrap());
        for (target, devices) in [("tpu:v5e:2x2", 4), ("tpu:v5e:2x4", 8)] {
            let args = [
                "compile", &model, "--target", target, "--shard", "auto", "--format", "json",
            ];
            let out = tpuc(cache.path(), &args);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{name} {target}: {stderr}");
            assert!(
                !stderr.contains("uses one of them"),
                "{name} {target}: {stderr}"
            );
            let report: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(
                report["targets"][0]["partitions"], devices,
                "{name} {target}"
            );
            let auto = &report["shard_auto"][0];
            let candidates = auto["candidates"].as_array().unwrap();
            assert_eq!(candidates.len(), if devices == 4 { 5 } else { 7 });
            let fitting: Vec<&Value> = candidates.iter().filter(|c| c["fits"] == true).collect();
            let best = fitting
                .iter()
                .map(|c| c["estimate_seconds"].as_f64().unwrap())
                .fold(f64::INFINITY, f64::min);
            let chosen = &auto["chosen"];
            let picked = fitting
                .iter()
                .find(|c| c["plan"] == chosen["plan"] && c["mesh"] == chosen["mesh"])
                .unwrap_or_else(|| panic!("{name} {target}: the pick fits: {auto}"));
            assert_eq!(picked["estimate_seconds"].as_f64().unwrap(), best, "{auto}");
            assert_eq!(
                report["targets"][0]["mesh"], chosen["mesh"],
                "{name} {target}"
            );
            eprintln!("{name} {target}: {} on {}", chosen["plan"], chosen["mesh"]);
            if devices == 4 {
                let (plan, mesh) = (
                    chosen["plan"].as_str().unwrap(),
                    chosen["mesh"].as_str().unwrap(),
                );
                let extra = ["--shard", plan, "--mesh", mesh];
                run(cache.path(), fixture, "cpu:4", &extra).expect("the picked plan applies");
            }
        }
    }
}
