//! `tpuc inspect` on every fixture, checked against the expectations the fixture generator wrote
//! from the eager model (testdata/manifest.json), plus reviewed snapshots of the text form.

mod support;

use std::collections::BTreeMap;

use serde_json::{Value, json};
use support::{repo_root, stdout_of, uncached as tpuc};
use tpuc_expect::expect_file;

/// The reviewed output `name`: `tests/snapshots/inspect/NAME.txt` (`BLESS=1` rewrites it).
fn snapshot(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots/inspect")
        .join(format!("{name}.txt"))
}

fn manifest() -> Value {
    let text = std::fs::read_to_string(repo_root().join("testdata/manifest.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Every (model, variant, archive path) of the manifest.
fn fixtures(manifest: &Value) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for (name, model) in manifest["models"].as_object().unwrap() {
        for variant in ["pt2", "core"] {
            let file = model["files"][variant].as_str().unwrap();
            out.push((name.clone(), variant.to_owned(), format!("testdata/{file}")));
        }
    }
    assert!(out.len() >= 20, "the manifest lists too few fixtures");
    out
}

fn counts(value: &Value) -> BTreeMap<String, u64> {
    value
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .collect()
}

#[test]
fn json_report_matches_the_manifest_for_every_fixture() {
    let manifest = manifest();
    for (name, variant, path) in fixtures(&manifest) {
        let model = &manifest["models"][&name];
        let expected = &model["variants"][&variant];
        let report: Value =
            serde_json::from_str(&stdout_of(&["inspect", &path, "--format", "json"])).unwrap();
        let ctx = &path;

        assert_eq!(report["dialect"], expected["dialect"], "{ctx}: dialect");
        assert!(
            report["torch_version"]
                .as_str()
                .unwrap()
                .starts_with("2.15."),
            "{ctx}"
        );

        let inputs: Vec<Value> = report["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| json!({"name": i["name"], "dtype": i["dtype"], "shape": i["shape"]}))
            .collect();
        assert_eq!(Value::from(inputs), model["inputs"], "{ctx}: inputs");

        let outputs: Vec<Value> = report["outputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| json!({"dtype": o["dtype"], "shape": o["shape"]}))
            .collect();
        assert_eq!(Value::from(outputs), model["outputs"], "{ctx}: outputs");

        let ranges: BTreeMap<String, Value> = report["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["name"].as_str().unwrap().to_owned(),
                    json!([s["min"], s["max"]]),
                )
            })
            .collect();
        let expected_ranges: BTreeMap<String, Value> = model["range_constraints"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        assert_eq!(ranges, expected_ranges, "{ctx}: symbols");

        let mutations: Vec<Value> = report["buffer_mutations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["target"].clone())
            .collect();
        assert_eq!(
            Value::from(mutations),
            expected["buffer_mutations"],
            "{ctx}"
        );

        assert_eq!(
            counts(&report["ops"]),
            counts(&expected["ops"]),
            "{ctx}: ops"
        );
        let mut sub_ops = BTreeMap::new();
        for sub in report["subgraphs"].as_array().unwrap() {
            for (target, n) in counts(&sub["ops"]) {
                *sub_ops.entry(target).or_insert(0) += n;
            }
        }
        assert_eq!(
            sub_ops,
            counts(&expected["subgraph_ops"]),
            "{ctx}: subgraph ops"
        );

        check_weights(ctx, &report["weights"], model, expected);
    }
}

/// `variant`'s own weights when it lists them (tensor-subclass weights), else the model's.
fn check_weights(ctx: &str, weights: &Value, model: &Value, variant: &Value) {
    let tensors: BTreeMap<String, &Value> = weights["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["fqn"].as_str().unwrap().to_owned(), t))
        .collect();
    let expected = variant
        .get("weights")
        .unwrap_or(&model["weights"])
        .as_object()
        .unwrap();
    assert_eq!(
        tensors.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "{ctx}: weight names"
    );
    for (fqn, want) in expected {
        let got = tensors[fqn];
        assert_eq!(got["kind"], want["kind"], "{ctx}: kind of {fqn}");
        assert_eq!(got["dtype"], want["dtype"], "{ctx}: dtype of {fqn}");
        assert_eq!(got["shape"], want["shape"], "{ctx}: shape of {fqn}");
        if let Some(persistent) = want.get("persistent") {
            assert_eq!(
                &got["persistent"], persistent,
                "{ctx}: persistence of {fqn}"
            );
        }
    }
    let tallied: u64 = [
        "parameters",
        "persistent_buffers",
        "non_persistent_buffers",
        "constants",
    ]
    .iter()
    .map(|kind| weights[kind]["count"].as_u64().unwrap())
    .sum();
    assert_eq!(tallied as usize, expected.len(), "{ctx}: tallies");

    // Tied tensors must be reported as sharing one storage record.
    let shared: Vec<Vec<String>> = weights["shared_storages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| serde_json::from_value(s["tensors"].clone()).unwrap())
        .collect();
    for group in variant
        .get("tied")
        .unwrap_or(&model["tied"])
        .as_array()
        .unwrap()
    {
        let group: Vec<String> = serde_json::from_value(group.clone()).unwrap();
        assert!(
            shared
                .iter()
                .any(|s| group.iter().all(|fqn| s.contains(fqn))),
            "{ctx}: tied {group:?} not in a shared storage: {shared:?}"
        );
    }
}

#[test]
fn graph_listing_covers_every_node_with_its_source_line() {
    let manifest = manifest();
    for (_, _, path) in fixtures(&manifest) {
        let report: Value = serde_json::from_str(&stdout_of(&[
            "inspect", &path, "--graph", "--format", "json",
        ]))
        .unwrap();
        let ops: u64 = counts(&report["ops"]).values().sum();
        let nodes = report["graph"]["nodes"].as_array().unwrap();
        assert_eq!(nodes.len() as u64, ops, "{path}");
        for node in nodes {
            let source = &node["source"];
            if source.is_null() {
                continue;
            }
            let file = source["file"].as_str().unwrap();
            assert!(
                !file.starts_with('/'),
                "{path}: absolute source path {file}"
            );
            assert!(source["line"].as_u64().unwrap() > 0, "{path}");
        }
        assert!(
            nodes.iter().any(|n| !n["source"].is_null()),
            "{path}: no node has a source line"
        );
    }
}

#[test]
fn nodes_of_hand_written_models_point_at_the_generator() {
    let report: Value = serde_json::from_str(&stdout_of(&[
        "inspect",
        "testdata/models/mlp.pt2",
        "--graph",
        "--format",
        "json",
    ]))
    .unwrap();
    for node in report["graph"]["nodes"].as_array().unwrap() {
        assert_eq!(node["source"]["file"], "testdata/generate.py", "{node}");
    }
}

#[test]
fn text_reports() {
    for (name, args) in [
        ("decoder", &["inspect", "testdata/models/decoder.pt2"][..]),
        (
            "dyn_batch_core",
            &["inspect", "testdata/models/dyn_batch.core.pt2"][..],
        ),
        ("misc", &["inspect", "testdata/models/misc.pt2"][..]),
        (
            "stateful_core",
            &["inspect", "testdata/models/stateful.core.pt2"][..],
        ),
        (
            "cond_core_graph",
            &["inspect", "testdata/models/cond.core.pt2", "--graph"][..],
        ),
    ] {
        expect_file(snapshot(name), &stdout_of(args));
    }
}

#[test]
fn json_report_is_deterministic() {
    let args = [
        "inspect",
        "testdata/models/gpt2.pt2",
        "--graph",
        "--format",
        "json",
    ];
    assert_eq!(stdout_of(&args), stdout_of(&args));
}

#[test]
fn missing_file_is_a_diagnostic_not_a_panic() {
    let out = tpuc(&["inspect", "testdata/models/no_such_model.pt2"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no_such_model.pt2"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
