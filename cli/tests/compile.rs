//! `tpuc compile` on every fixture for a TPU topology (libtpu, compile-only) and XLA:CPU:
//! cold compiles store entries, warm ones hit them without lowering; weights never enter a key.

mod support;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use support::{compile, fixture, json, manifest, repo_root, tpuc, warnings, with_other_weights};

/// Fixtures whose archives (both dialects) are expected to compile for both targets.
const EXPECTED: &[&str] = &[
    "bert",
    "cnn",
    "cond",
    "control",
    "decoder",
    "dyn_batch",
    "dyn_conv",
    "dyn_seq",
    "dyn_tokens",
    "gpt2",
    "llama",
    "misc",
    "mlp",
    "quant_bf16",
    "resnet",
    "stateful",
    "vit",
];

const TARGETS: [&str; 2] = ["tpu:v5e:2x2", "cpu"];

fn archives() -> Vec<(String, String)> {
    let manifest = manifest();
    let models = manifest["models"].as_object().unwrap();
    let mut archives = Vec::new();
    for (name, model) in models {
        if !EXPECTED.contains(&name.as_str()) {
            eprintln!("{name}: not in EXPECTED, skipped");
            continue;
        }
        for variant in ["pt2", "core"] {
            let file = model["files"][variant].as_str().unwrap().to_owned();
            archives.push((name.clone(), file));
        }
    }
    assert!(
        archives.len() >= 2 * EXPECTED.len(),
        "the manifest lists every expected fixture"
    );
    archives
}

#[test]
fn every_fixture_compiles_for_tpu_and_cpu_and_then_hits() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let mut keys: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut compiled_modules = std::collections::BTreeSet::new();
    for (name, file) in archives() {
        let path = repo_root().join("testdata").join(&file);
        let (report, stderr) = compile(cache.path(), &path, &TARGETS);
        // Unsharded, the 4-chip target is told it gets a one-chip executable.
        let warned = warnings(&stderr);
        assert_eq!(warned.len(), 1, "{file}: {stderr}");
        assert!(
            warned[0].contains("tpu:v5e:2x2 has 4 devices, but this executable uses one"),
            "{file}: {stderr}"
        );
        assert_eq!(report["warnings"].as_array().unwrap().len(), 1, "{file}");
        assert_eq!(report["frontend_hit"], false, "{file}: first compile");
        // The two dialects of a model may lower to the same module, whose entries then hit.
        let module = report["module_sha256"].as_str().unwrap().to_owned();
        let seen = !compiled_modules.insert(module);
        let targets = report["targets"].as_array().unwrap();
        assert_eq!(targets.len(), 2, "{file}");
        for (target, expected) in targets.iter().zip(TARGETS) {
            assert_eq!(target["target"], expected, "{file}");
            assert_eq!(target["hit"], seen, "{file} {expected}");
            check_entry(&file, target);
        }
        let target_keys = targets
            .iter()
            .map(|t| t["key"].as_str().unwrap().to_owned())
            .collect();
        keys.insert(file.clone(), target_keys);
        eprintln!(
            "{name} ({file}): {:.2} s",
            report["seconds"].as_f64().unwrap()
        );
    }

    for (file, cold_keys) in &keys {
        let path = repo_root().join("testdata").join(file);
        let (report, _) = compile(cache.path(), &path, &TARGETS);
        assert_eq!(
            report["frontend_hit"], true,
            "{file}: warm compile lowered again"
        );
        let targets = report["targets"].as_array().unwrap();
        let warm_keys: Vec<&str> = targets.iter().map(|t| t["key"].as_str().unwrap()).collect();
        assert_eq!(&warm_keys, cold_keys, "{file}");
        assert!(targets.iter().all(|t| t["hit"] == true), "{file}: {report}");
    }

    let (verify, _) = json(cache.path(), &["cache", "verify"]);
    let distinct: std::collections::BTreeSet<&String> = keys.values().flatten().collect();
    assert_eq!(verify["ok"], distinct.len());
    assert_eq!(verify["corrupt"], Value::Array(vec![]));
}

/// The entry a compile reports exists and holds an executable of the reported size.
fn check_entry(file: &str, target: &Value) {
    let entry = Path::new(
        target["entry"]
            .as_str()
            .unwrap_or_else(|| panic!("{file}: not stored")),
    );
    let key = target["key"].as_str().unwrap();
    assert!(entry.ends_with(key), "{file}: {}", entry.display());
    let size = std::fs::metadata(entry.join("executable")).unwrap().len();
    assert_eq!(size, target["size"].as_u64().unwrap(), "{file}");
    assert!(size > 1000, "{file}: a {size}-byte executable");
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(entry.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["key"], key);
    assert_eq!(manifest["payload"]["size"], size);
    assert_eq!(manifest["target"], target["target"]);
}

/// Bytes of the float32 bindings (arguments or results) of an entry's signature.
fn float32_bytes(bindings: &Value) -> i64 {
    bindings
        .as_array()
        .unwrap()
        .iter()
        .map(|binding| {
            assert_eq!(binding["dtype"], "float32", "{binding}");
            let shape = binding["shape"].as_array().unwrap();
            4 * shape.iter().map(|n| n.as_i64().unwrap()).product::<i64>()
        })
        .sum()
}

#[test]
fn memory_and_cost_are_reported_cold_and_warm_alike() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let model = fixture("mlp.pt2");
    let (cold, _) = compile(cache.path(), &model, &TARGETS);
    let (warm, _) = compile(cache.path(), &model, &TARGETS);
    let [tpu, cpu] = [0, 1].map(|i| &cold["targets"][i]);
    let entry = Path::new(cpu["entry"].as_str().unwrap());
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(entry.join("manifest.json")).unwrap()).unwrap();
    let arguments = float32_bytes(&manifest["signature"]["arguments"]);
    let results = float32_bytes(&manifest["signature"]["results"]);

    // XLA:CPU: the arguments and results exactly as the signature has them; no cost model.
    let memory = &cpu["memory"];
    assert_eq!(memory["argument_bytes"], arguments, "{memory}");
    assert_eq!(memory["output_bytes"], results, "{memory}");
    assert!(memory["temp_bytes"].is_i64(), "{memory}");
    assert_eq!(cpu["cost"], Value::Null);

    // libtpu: tiled layouts pad small arrays, so at least the signature's bytes; and a cost
    // model with an estimate.
    let memory = &tpu["memory"];
    assert!(
        memory["argument_bytes"].as_i64().unwrap() >= arguments,
        "{memory}"
    );
    assert!(
        memory["output_bytes"].as_i64().unwrap() >= results,
        "{memory}"
    );
    assert!(
        memory["generated_code_bytes"].as_i64().unwrap() > 0,
        "{memory}"
    );
    let cost = &tpu["cost"];
    // fc1 (2x4 · 4x8) and fc2 (2x8 · 8x3): at least a multiply and an add per term.
    let matmul_flops = 2.0 * (2.0 * 4.0 * 8.0 + 2.0 * 8.0 * 3.0);
    assert!(cost["flops"].as_f64().unwrap() >= matmul_flops, "{cost}");
    assert!(
        cost["bytes_accessed"].as_f64().unwrap() >= (arguments + results) as f64,
        "{cost}"
    );
    assert!(cost["optimal_seconds"].as_f64().unwrap() > 0.0, "{cost}");

    // The warm compile hits and reports the very same numbers, from the entries.
    for (cold, warm) in [0, 1].map(|i| (&cold["targets"][i], &warm["targets"][i])) {
        assert_eq!(warm["hit"], true);
        assert_eq!(warm["memory"], cold["memory"]);
        assert_eq!(warm["cost"], cold["cost"]);
    }

    // The text output shows the main numbers on each target's second line.
    let text = tpuc(
        cache.path(),
        &[
            "compile",
            model.to_str().unwrap(),
            "--target",
            "tpu:v5e:2x2",
            "--target",
            "cpu",
        ],
    );
    let stdout = String::from_utf8_lossy(&text.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    let tpu_line = lines
        .iter()
        .position(|l| l.starts_with("tpu:v5e:2x2"))
        .unwrap();
    assert!(lines[tpu_line + 1].starts_with("  flops "), "{stdout}");
    assert!(lines[tpu_line + 1].contains(", est. "), "{stdout}");
    let cpu_line = lines.iter().position(|l| l.starts_with("cpu ")).unwrap();
    assert_eq!(
        lines[cpu_line + 1],
        format!(
            "  arguments {arguments} B, outputs {results} B, temp {} B",
            cpu["memory"]["temp_bytes"]
        ),
        "{stdout}"
    );
}

#[test]
fn a_checkpoint_with_other_weights_hits_the_same_executable() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let original = fixture("decoder.pt2");
    let tuned = work.path().join("decoder-tuned.pt2");
    with_other_weights(&original, &tuned, |i| (i * 7 % 251) as u8);
    assert_ne!(
        std::fs::read(&original).unwrap(),
        std::fs::read(&tuned).unwrap()
    );

    let (cold, _) = compile(cache.path(), &original, &["cpu"]);
    let (warm, _) = compile(cache.path(), &tuned, &["cpu"]);
    assert_eq!(
        warm["frontend_hit"], true,
        "the front-end key must not see weights"
    );
    assert_eq!(warm["targets"][0]["key"], cold["targets"][0]["key"]);
    assert_eq!(warm["targets"][0]["hit"], true);

    // Inlined weights are part of the module, so there the keys must differ.
    let inline = |model: &Path| {
        let model = model.to_str().unwrap();
        json(
            cache.path(),
            &["compile", model, "--target", "cpu", "--inline-weights"],
        )
        .0
    };
    let (a, b) = (inline(&original), inline(&tuned));
    assert_ne!(a["module_sha256"], b["module_sha256"]);
    assert_ne!(a["targets"][0]["key"], b["targets"][0]["key"]);
}

#[test]
fn a_warm_compile_reads_no_weight_bytes() {
    tpuc_expect::skip_without!(Plugins);
    // The warm compile of an archive whose every weight byte is 0xFF (NaN for floats, not
    // the weights the module was lowered with) finds the cached module and executable: only
    // the program JSON was read.
    let cache = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let garbage = work.path().join("gpt2-garbage.pt2");
    with_other_weights(&fixture("gpt2.core.pt2"), &garbage, |_| 0xFF);
    let (cold, _) = compile(cache.path(), &fixture("gpt2.core.pt2"), &["tpu:v5e:2x2"]);
    let (warm, _) = compile(cache.path(), &garbage, &["tpu:v5e:2x2"]);
    assert_eq!(warm["frontend_hit"], true);
    assert_eq!(warm["targets"][0]["hit"], true);
    assert_eq!(warm["targets"][0]["key"], cold["targets"][0]["key"]);
}

#[test]
fn dims_and_input_shapes_change_the_module_and_the_key() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let model = fixture("dyn_batch.pt2");
    let model = model.to_str().unwrap();
    let batch = |n: &str| {
        let shape = format!("0={n}x4x6");
        json(
            cache.path(),
            &["compile", model, "--target", "cpu", "--input-shape", &shape],
        )
        .0
    };
    let (four, seven) = (batch("4"), batch("7"));
    assert_ne!(four["module_sha256"], seven["module_sha256"]);
    assert_ne!(four["targets"][0]["key"], seven["targets"][0]["key"]);
    assert_eq!(batch("4")["targets"][0]["hit"], true);
}

#[test]
fn xla_flags_are_hashed_and_unknown_xla_variables_are_reported() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let model = fixture("mlp.pt2");
    let run = |env: &[(&str, &str)]| {
        let mut command = support::command(
            cache.path(),
            &[
                "compile",
                model.to_str().unwrap(),
                "--target",
                "cpu",
                "--format",
                "json",
            ],
        );
        command.env_remove("XLA_FLAGS");
        for (name, value) in env {
            command.env(name, value);
        }
        let out = command.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        (
            report["targets"][0]["key"].clone(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (plain, _) = run(&[]);
    let (flagged, _) = run(&[("XLA_FLAGS", "--xla_backend_optimization_level=2")]);
    assert_ne!(plain, flagged);
    // Assembled at run time: the knob registry's source scan must not see it, it is meant to
    // be unknown.
    let name = ["XLA", "TPUC", "TEST", "UNKNOWN"].join("_");
    let (unknown, stderr) = run(&[(name.as_str(), "1")]);
    assert_ne!(plain, unknown);
    assert!(
        stderr.contains(&format!("{name} is not a known")),
        "{stderr}"
    );
}

#[test]
fn output_file_and_bad_targets() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("mlp.cpu.exe");
    let model = fixture("mlp.pt2");
    let model = model.to_str().unwrap();
    let (report, _) = json(
        cache.path(),
        &[
            "compile",
            model,
            "--target",
            "cpu",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    let entry = Path::new(report["targets"][0]["entry"].as_str().unwrap());
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(entry.join("executable")).unwrap()
    );

    let bad = tpuc(cache.path(), &["compile", model, "--target", "tpu:v9:2x2"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("v4, v5e, v5p, v6e"));
    let two = tpuc(
        cache.path(),
        &[
            "compile", model, "--target", "cpu", "--target", "cpu:2", "-o", "x",
        ],
    );
    assert!(!two.status.success());
    assert!(String::from_utf8_lossy(&two.stderr).contains("one executable"));
}

#[test]
fn targets_lists_both_plugins_with_versions() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let (report, _) = json(cache.path(), &["targets"]);
    let plugins = report["plugins"].as_array().unwrap();
    assert_eq!(plugins.len(), 2);
    for plugin in plugins {
        assert_eq!(plugin["found"], true, "{plugin}");
        assert!(
            plugin["pjrt_api_version"]
                .as_str()
                .unwrap()
                .starts_with("0.")
        );
        let stablehlo = plugin["stablehlo_version"].as_str().unwrap();
        assert_eq!(stablehlo.split('.').count(), 3, "{stablehlo}");
        assert!(Path::new(plugin["path"].as_str().unwrap()).is_file());
    }
    assert!(
        plugins[0]["targets"]
            .as_str()
            .unwrap()
            .contains("tpu:v5e:2x2")
    );
}
