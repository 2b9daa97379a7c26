//! `tpuc prewarm` with the real plugins: a plan compiles its items once, a second run finds
//! them all in the cache, `--check` gates on them, and a failing item does not stop the others.

mod support;

use std::path::Path;

use serde_json::Value;
use support::{fixture, tpuc};

/// Symbolic models at two batch sizes and static ones at their example shapes, for both
/// targets: 2 × 2 × 2 + 2 × 1 × 2 = 12 items.
const PLAN: &str = r#"
[[models]]
path = "models/dyn_batch*.pt2"
targets = ["cpu", "tpu:v5e:2x2"]
dims = { s77 = [2, SIZE] }

[[models]]
path = "models/[cm][nl][np].pt2"
targets = ["cpu", "tpu:v5e:2x2"]
"#;

fn plan_dir(second_size: u64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("models")).unwrap();
    for name in ["dyn_batch.pt2", "dyn_batch.core.pt2", "mlp.pt2", "cnn.pt2"] {
        std::fs::copy(fixture(name), dir.path().join("models").join(name)).unwrap();
    }
    let plan = PLAN.replace("SIZE", &second_size.to_string());
    std::fs::write(dir.path().join("plan.toml"), plan).unwrap();
    dir
}

/// Runs `tpuc prewarm plan.toml ARGS --report`; exit status, report items, stderr.
fn prewarm(dir: &Path, cache: &Path, args: &[&str]) -> (bool, Vec<Value>, String) {
    let plan = dir.join("plan.toml");
    let report = dir.join("report.json");
    let _ = std::fs::remove_file(&report);
    let mut all = vec![
        "prewarm",
        plan.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ];
    all.extend(args);
    let out = tpuc(cache, &all);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let report: Value = serde_json::from_slice(&std::fs::read(&report).unwrap())
        .unwrap_or_else(|e| panic!("bad report ({e}):\n{stderr}"));
    let items = report["items"].as_array().unwrap().clone();
    (out.status.success(), items, stderr)
}

fn statuses(items: &[Value]) -> Vec<&str> {
    items
        .iter()
        .map(|i| i["status"].as_str().unwrap())
        .collect()
}

fn keys(items: &[Value]) -> Vec<&str> {
    items.iter().map(|i| i["key"].as_str().unwrap()).collect()
}

#[test]
fn compiles_once_then_hits_and_check_gates() {
    let dir = plan_dir(8);
    let cache = dir.path().join("cache");

    let (ok, missing, stderr) = prewarm(dir.path(), &cache, &["--check"]);
    assert!(!ok, "--check passed on an empty cache:\n{stderr}");
    assert_eq!(statuses(&missing), ["missing"; 12]);
    assert!(stderr.contains("12 of 12 items are missing"), "{stderr}");

    let (ok, planned, stderr) = prewarm(dir.path(), &cache, &["--dry-run", "-j", "2"]);
    assert!(ok, "{stderr}");
    assert_eq!(statuses(&planned), ["missing"; 12]);

    let (ok, cold, stderr) = prewarm(dir.path(), &cache, &["-j", "2"]);
    assert!(ok, "{stderr}");
    assert_eq!(statuses(&cold), ["compiled"; 12], "{stderr}");
    let shapes: Vec<&str> = cold.iter().map(|i| i["shape"].as_str().unwrap()).collect();
    assert_eq!(&shapes[..4], ["s77=2", "s77=2", "s77=8", "s77=8"]);
    assert_eq!(&shapes[8..], ["example"; 4]);
    for item in &cold {
        assert!(item["bytes"].as_u64().unwrap() > 0, "{item}");
        assert!(item["error"].is_null(), "{item}");
    }
    assert_eq!(
        keys(&planned),
        keys(&cold),
        "--dry-run keys differ from the compiled ones"
    );
    let mut distinct = keys(&cold);
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 12);

    let (ok, warm, stderr) = prewarm(dir.path(), &cache, &[]);
    assert!(ok, "{stderr}");
    assert_eq!(statuses(&warm), ["hit"; 12], "{stderr}");
    assert_eq!(keys(&warm), keys(&cold));

    let (ok, checked, stderr) = prewarm(dir.path(), &cache, &["--check"]);
    assert!(ok, "{stderr}");
    assert_eq!(statuses(&checked), ["hit"; 12]);
}

#[test]
fn a_failing_item_is_listed_while_the_others_complete() {
    // s77 was exported with the range [1, 64].
    let dir = plan_dir(100);
    let cache = dir.path().join("cache");
    let (ok, items, stderr) = prewarm(dir.path(), &cache, &["-j", "2"]);
    assert!(!ok, "an out-of-range size passed:\n{stderr}");
    let failed: Vec<&Value> = items.iter().filter(|i| i["status"] == "failed").collect();
    assert_eq!(failed.len(), 4, "{stderr}");
    for item in &failed {
        assert_eq!(item["shape"], "s77=100");
        let error = item["error"].as_str().unwrap();
        assert!(error.contains("outside the range"), "{error}");
    }
    assert_eq!(
        items.iter().filter(|i| i["status"] == "compiled").count(),
        8
    );
    assert!(stderr.contains("4 of 12 items failed"), "{stderr}");
    assert!(stderr.contains("failed:"), "{stderr}");
}
