//! Shared by the `tpuc` command tests: running the built binary from the repository root
//! (against a private cache directory where it matters), and archives derived from the fixtures.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

pub fn fixture(name: &str) -> PathBuf {
    repo_root().join("testdata/models").join(name)
}

/// `tpuc ARGS` with the cache at `cache`, no cache settings from outside, and the test S3
/// server's credentials (never real ones, never a cloud metadata service).
pub fn command(cache: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tpuc"));
    command
        .args(args)
        .current_dir(repo_root())
        .env("TPUC_CACHE_DIR", cache)
        .env_remove("TPUC_CACHE_READ_ONLY")
        .env_remove("TPUC_REMOTE")
        .env_remove("TPUC_REMOTE_ENDPOINT")
        .env_remove("TPUC_REMOTE_READ_ONLY")
        .env_remove("TPUC_REMOTE_DEADLINE")
        .env_remove("TPUC_TRUST_KEYS")
        .env_remove("TPUC_SIGN_KEY")
        .env_remove("AWS_SESSION_TOKEN")
        .env_remove("AWS_ENDPOINT_URL")
        .envs(tpuc_testkit::S3Server::client_env());
    command
}

/// `tpuc ARGS` from the repository root, so the paths it prints are repo-relative.
pub fn uncached(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tpuc"))
        .args(args)
        .current_dir(repo_root())
        .output()
        .expect("tpuc runs")
}

/// The standard output of `tpuc ARGS` from the repository root, which must succeed.
pub fn stdout_of(args: &[&str]) -> String {
    let out = uncached(args);
    assert!(
        out.status.success(),
        "tpuc {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

pub fn tpuc(cache: &Path, args: &[&str]) -> Output {
    command(cache, args).output().expect("tpuc runs")
}

/// Runs `tpuc ARGS --format json`, which must succeed; its JSON and its stderr.
pub fn json(cache: &Path, args: &[&str]) -> (Value, String) {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let out = tpuc(cache, &all);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "tpuc {all:?} failed:\n{stderr}");
    let value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "tpuc {all:?}: bad JSON ({e}):\n{}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    (value, stderr)
}

/// `tpuc compile MODEL --target T...` as JSON.
pub fn compile(cache: &Path, model: &Path, targets: &[&str]) -> (Value, String) {
    let mut args = vec!["compile", model.to_str().unwrap()];
    for target in targets {
        args.extend(["--target", target]);
    }
    json(cache, &args)
}

/// A rendered diagnostic as one line: the renderer's wrapping, gutter (`│`) and mark (`×`)
/// undone, words separated by one space, so a message can be found wherever it was wrapped.
pub fn unwrapped(text: &str) -> String {
    text.split(|c: char| c.is_whitespace() || c == '│')
        .filter(|word| !word.is_empty() && *word != "×")
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `tpuc:` warnings of a run's stderr (the plugins log there too).
pub fn warnings(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|line| line.starts_with("warning: "))
        .collect()
}

/// The fixture manifest.
pub fn manifest() -> Value {
    let text = std::fs::read_to_string(repo_root().join("testdata/manifest.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// A copy of a fixture archive whose weight payloads are replaced by `fill(offset)` bytes,
/// with the zip CRCs fixed up: a checkpoint of the same program with other weights.
pub fn with_other_weights(source: &Path, destination: &Path, fill: impl Fn(usize) -> u8) {
    let mut bytes = std::fs::read(source).unwrap();
    let changed = tpuc_testkit::zip::edit_records(&mut bytes, is_weight, |_, start, data| {
        for (i, byte) in data.iter_mut().enumerate() {
            *byte = fill(start + i);
        }
    });
    assert!(changed > 0, "{} has no weight records", source.display());
    std::fs::write(destination, bytes).unwrap();
}

fn is_weight(name: &str) -> bool {
    (name.contains("/data/weights/") || name.contains("/data/constants/"))
        && !name.ends_with(".json")
}

/// Why an OpInfo entry has no sample (`docs/opinfo.md`, `docs/opinfo_grad.md`): `why`, and the
/// manifest's reasons for its skipped samples with their counts.
pub fn opinfo_refusal(op: &Value, why: &str) -> String {
    let mut reasons: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for skipped in op["skipped"].as_array().into_iter().flatten() {
        *reasons
            .entry(skipped["why"].as_str().unwrap_or("?"))
            .or_default() += 1;
    }
    let samples: Vec<String> = reasons.iter().map(|(w, n)| format!("{n}× {w}")).collect();
    if samples.is_empty() {
        why.to_owned()
    } else {
        format!("{why} ({})", samples.join("; "))
    }
}

/// `passed` of `total` as a percentage (0 of 0 is 0%).
pub fn percent(passed: usize, total: usize) -> f64 {
    100.0 * passed as f64 / total.max(1) as f64
}
