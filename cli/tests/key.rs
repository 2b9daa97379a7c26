//! `tpuc key` prints the keys `tpuc compile` uses, without compiling.

mod support;

use std::path::Path;

use serde_json::Value;
use support::{compile, fixture, json, repo_root};

/// `tpuc key MODEL --target cpu --target tpu:v5e:2x2 --format json`.
fn keys(cache: &Path, model: &Path) -> Value {
    let model = model.to_str().unwrap();
    let args = ["key", model, "--target", "cpu", "--target", "tpu:v5e:2x2"];
    json(cache, &args).0
}

#[test]
fn keys_match_compile_and_report_the_cache() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let model = fixture("mlp.pt2");
    let before = keys(cache.path(), &model);
    assert_eq!(before["targets"][0]["cached"], false, "{before}");
    assert_eq!(before["targets"][1]["cached"], false, "{before}");
    let entries = cache.path().join("v1/entries");
    assert!(
        !entries.exists() || std::fs::read_dir(&entries).unwrap().next().is_none(),
        "tpuc key compiled something"
    );

    let (compiled, _) = compile(cache.path(), &model, &["cpu"]);
    assert_eq!(compiled["frontend_key"], before["frontend_key"]);
    assert_eq!(compiled["module_sha256"], before["module_sha256"]);
    assert_eq!(compiled["targets"][0]["key"], before["targets"][0]["key"]);

    let after = keys(cache.path(), &model);
    assert_eq!(after["targets"][0]["cached"], true, "{after}");
    assert_eq!(after["targets"][1]["cached"], false, "{after}");
    assert_eq!(after["targets"][1]["key"], before["targets"][1]["key"]);
}

#[test]
fn keys_of_a_mlir_module_depend_on_its_text_only() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let jax = repo_root().join("testdata/jax");
    let pretty = keys(cache.path(), &jax.join("chlo_ops.pretty.mlir"));
    let generic = keys(cache.path(), &jax.join("chlo_ops.generic.mlir"));
    // Two texts of one module: different front-end keys, one canonical module and compile key.
    assert_ne!(pretty["frontend_key"], generic["frontend_key"]);
    assert_eq!(pretty["module_sha256"], generic["module_sha256"]);
    let keys = |report: &Value| -> Vec<(Value, Value)> {
        let targets = report["targets"].as_array().unwrap();
        targets
            .iter()
            .map(|t| (t["key"].clone(), t["cached"].clone()))
            .collect()
    };
    assert_eq!(keys(&pretty), keys(&generic));
}

#[test]
fn text_output_names_each_target() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let model = fixture("mlp.pt2");
    let out = support::tpuc(
        cache.path(),
        &["key", model.to_str().unwrap(), "--target", "cpu"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("frontend  "), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("cpu ") && l.ends_with("not cached")),
        "{text}"
    );
}
