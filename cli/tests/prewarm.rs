//! `tpuc prewarm` with the real plugins: a plan compiles its items once, a second run finds
//! them all in the cache, `--check` gates on them, and a failing item does not stop the others.
//! With a shared tier on a real S3-compatible server: two caches share one bucket, overlapping
//! prewarms run at once, the server dies mid-run, a tampered entry is never used, and a server
//! too slow to finish costs a deadline, not the compile.

mod support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::{command, fixture};
use tpuc_testkit::{S3Server, TrickleServer};

/// Three models with a symbolic dimension, at two sizes each, for two targets: 12 items.
/// `dyn_batch` and `dyn_conv` have a batch dimension `s77` in [1, 64], `dyn_seq` a sequence
/// length `s27` in [2, 128].
const PLAN: [&str; 2] = [BATCHED, SEQUENCE];
const BATCHED: &str = r#"
[[models]]
path = "models/dyn_[bc]*.pt2"
targets = ["cpu", "tpu:v5e:2x2"]
dims = { s77 = [2, SIZE] }
"#;
const SEQUENCE: &str = r#"
[[models]]
path = "models/dyn_seq.pt2"
targets = ["cpu", "tpu:v5e:2x2"]
dims = { s27 = [8, 32] }
"#;

const MODELS: [&str; 3] = ["dyn_batch.pt2", "dyn_conv.pt2", "dyn_seq.pt2"];

/// A directory with `plan.toml` (`s77`'s second size `second_size`) and the models it names.
fn plan_dir(second_size: u64) -> tempfile::TempDir {
    plan_dir_with(&PLAN, second_size, &MODELS)
}

fn plan_dir_with(entries: &[&str], second_size: u64, models: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("models")).unwrap();
    for name in models {
        std::fs::copy(fixture(name), dir.path().join("models").join(name)).unwrap();
    }
    let plan = entries.concat().replace("SIZE", &second_size.to_string());
    std::fs::write(dir.path().join("plan.toml"), plan).unwrap();
    dir
}

/// Runs `tpuc prewarm plan.toml ARGS --report`; exit status, report items, stderr.
fn prewarm(dir: &Path, cache: &Path, args: &[&str]) -> (bool, Vec<Value>, String) {
    let out = command(cache, &prewarm_args(dir, args))
        .current_dir(dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.success(), report_items(dir, &stderr), stderr)
}

/// Like [`prewarm`], for a run that must succeed.
fn prewarm_ok(dir: &Path, cache: &Path, args: &[&str]) -> (Vec<Value>, String) {
    let (ok, items, stderr) = prewarm(dir, cache, args);
    assert!(ok, "tpuc prewarm {args:?} failed:\n{stderr}");
    (items, stderr)
}

fn prewarm_args<'a>(dir: &'a Path, args: &[&'a str]) -> Vec<&'a str> {
    let _ = std::fs::remove_file(dir.join("report.json"));
    let mut all = vec!["prewarm", "plan.toml", "--report", "report.json"];
    all.extend(args);
    all
}

/// The items of `report.json`; `stderr` explains a missing report.
fn report_items(dir: &Path, stderr: &str) -> Vec<Value> {
    let bytes = std::fs::read(dir.join("report.json"))
        .unwrap_or_else(|e| panic!("no report ({e}):\n{stderr}"));
    let report: Value =
        serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("bad report ({e}):\n{stderr}"));
    report["items"].as_array().unwrap().clone()
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
    tpuc_expect::skip_without!(Plugins);
    let dir = plan_dir(8);
    let cache = dir.path().join("cache");

    let (ok, missing, stderr) = prewarm(dir.path(), &cache, &["--check"]);
    assert!(!ok, "--check passed on an empty cache:\n{stderr}");
    assert_eq!(statuses(&missing), ["missing"; 12]);
    assert!(stderr.contains("12 of 12 items are missing"), "{stderr}");

    let (planned, _) = prewarm_ok(dir.path(), &cache, &["--dry-run", "-j", "2"]);
    assert_eq!(statuses(&planned), ["missing"; 12]);

    let (cold, stderr) = prewarm_ok(dir.path(), &cache, &["-j", "2"]);
    assert_eq!(statuses(&cold), ["compiled"; 12], "{stderr}");
    let shapes: Vec<&str> = cold.iter().map(|i| i["shape"].as_str().unwrap()).collect();
    assert_eq!(&shapes[..4], ["s77=2", "s77=2", "s77=8", "s77=8"]);
    assert_eq!(&shapes[8..], ["s27=8", "s27=8", "s27=32", "s27=32"]);
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

    let (warm, stderr) = prewarm_ok(dir.path(), &cache, &[]);
    assert_eq!(statuses(&warm), ["hit"; 12], "{stderr}");
    assert_eq!(keys(&warm), keys(&cold));

    let (checked, _) = prewarm_ok(dir.path(), &cache, &["--check"]);
    assert_eq!(statuses(&checked), ["hit"; 12]);
}

#[test]
fn a_failing_item_is_listed_while_the_others_complete() {
    tpuc_expect::skip_without!(Plugins);
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

/// The flags that put the shared tier of `server`'s bucket `url` behind the local cache.
fn remote<'a>(server: &'a S3Server, url: &'a str) -> [&'a str; 4] {
    ["--remote", url, "--endpoint", &server.endpoint]
}

fn with<'a>(flags: &[&'a str], more: &[&'a str]) -> Vec<&'a str> {
    flags.iter().chain(more).copied().collect()
}

/// The manifests the bucket holds under `prefix`.
fn shared_entries(server: &S3Server, bucket: &str, prefix: &str) -> Vec<PathBuf> {
    let dir = server
        .objects()
        .join(bucket)
        .join(prefix)
        .join("v1/entries");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|listing| listing.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    entries.retain(|path| path.extension().is_some_and(|e| e == "json"));
    entries.sort();
    entries
}

#[test]
fn two_caches_share_one_bucket() {
    tpuc_expect::skip_without!(Plugins, S3Server);
    let server = S3Server::start();
    let url = server.bucket("shared", "tpuc");
    let flags = remote(&server, &url);
    let dir = plan_dir(8);
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));

    let (cold, stderr) = prewarm_ok(dir.path(), &first, &with(&flags, &["-j", "2"]));
    assert_eq!(statuses(&cold), ["compiled"; 12], "{stderr}");
    assert_eq!(shared_entries(&server, "shared", "tpuc").len(), 12);

    // Another machine: an empty local cache, the same bucket.
    let (ok, checked, stderr) = prewarm(dir.path(), &second, &with(&flags, &["--check"]));
    assert!(
        ok,
        "--check with the shared tier found items missing:\n{stderr}"
    );
    assert_eq!(statuses(&checked), ["hit"; 12]);
    let (fetched, stderr) = prewarm_ok(dir.path(), &second, &flags);
    assert_eq!(statuses(&fetched), ["fetched"; 12], "{stderr}");
    assert_eq!(keys(&fetched), keys(&cold));
    // Now local there too, and verified by `tpuc cache verify`.
    let (warm, stderr) = prewarm_ok(dir.path(), &second, &flags);
    assert_eq!(statuses(&warm), ["hit"; 12], "{stderr}");
    let verify = support::tpuc(&second, &["cache", "verify"]);
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );

    // `tpuc compile` reads the same tier: the same program and shape derive the same key.
    let model = dir.path().join("models/dyn_seq.pt2");
    let mut args = vec!["compile", model.to_str().unwrap(), "--dim", "s27=32"];
    args.extend(["--target", "tpu:v5e:2x2"]);
    args.extend(flags);
    let (report, stderr) = support::json(&dir.path().join("third"), &args);
    let target = &report["targets"][0];
    assert_eq!(target["origin"], "shared", "{stderr}");
    assert_eq!(target["hit"], true);
    assert_eq!(target["key"], cold[11]["key"], "{stderr}");

    // Without --remote the second cache stands on its own.
    let (local, _) = prewarm_ok(dir.path(), &second, &[]);
    assert_eq!(statuses(&local), ["hit"; 12]);
}

#[test]
fn a_read_only_job_fetches_but_never_publishes() {
    tpuc_expect::skip_without!(Plugins, S3Server);
    let server = S3Server::start();
    let url = server.bucket("readonly", "c");
    let flags = remote(&server, &url);
    let writer = plan_dir(8);
    prewarm_ok(writer.path(), &writer.path().join("cache"), &flags);
    let published = shared_entries(&server, "readonly", "c");
    assert_eq!(published.len(), 12);

    // An untrusted job with a plan that needs 4 new items (s77 = 16).
    let untrusted = plan_dir(16);
    let cache = untrusted.path().join("cache");
    let (items, stderr) = prewarm_ok(
        untrusted.path(),
        &cache,
        &with(&flags, &["--remote-read-only"]),
    );
    let count = |status| items.iter().filter(|i| i["status"] == status).count();
    assert_eq!((count("fetched"), count("compiled")), (8, 4), "{stderr}");
    assert_eq!(shared_entries(&server, "readonly", "c"), published);

    // The same through the environment, as a CI job would set it.
    let (ok, again, stderr) = {
        let out = command(
            &untrusted.path().join("env"),
            &prewarm_args(untrusted.path(), &[]),
        )
        .current_dir(untrusted.path())
        .env("TPUC_REMOTE", &url)
        .env("TPUC_REMOTE_ENDPOINT", &server.endpoint)
        .env("TPUC_REMOTE_READ_ONLY", "1")
        .output()
        .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        (
            out.status.success(),
            report_items(untrusted.path(), &stderr),
            stderr,
        )
    };
    assert!(ok, "{stderr}");
    assert_eq!(
        again.iter().filter(|i| i["status"] == "fetched").count(),
        8,
        "{stderr}"
    );
    assert_eq!(shared_entries(&server, "readonly", "c"), published);
}

#[test]
fn overlapping_prewarms_run_at_once() {
    tpuc_expect::skip_without!(Plugins, S3Server);
    let server = S3Server::start();
    let url = server.bucket("overlap", "p");
    let flags = remote(&server, &url);
    // One job prewarms dyn_batch and dyn_conv, the other dyn_conv and dyn_seq: 8 items each,
    // dyn_conv's 4 in both.
    let jobs = [
        plan_dir_with(&[BATCHED], 8, &MODELS[..2]),
        plan_dir_with(&PLAN, 8, &MODELS[1..]),
    ];
    let running: Vec<_> = jobs
        .iter()
        .map(|dir| {
            command(&dir.path().join("cache"), &prewarm_args(dir.path(), &flags))
                .current_dir(dir.path())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (child, dir) in running.into_iter().zip(&jobs) {
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
        let items = report_items(dir.path(), &stderr);
        assert_eq!(items.len(), 8);
        assert!(
            items
                .iter()
                .all(|i| i["status"] == "compiled" || i["status"] == "fetched"),
            "{stderr}"
        );
    }
    assert_eq!(shared_entries(&server, "overlap", "p").len(), 12);

    // A third machine finds every item, each intact.
    let all = plan_dir(8);
    let cache = all.path().join("cache");
    let (items, stderr) = prewarm_ok(all.path(), &cache, &flags);
    assert_eq!(statuses(&items), ["fetched"; 12], "{stderr}");
    let verify = support::tpuc(&cache, &["cache", "verify"]);
    assert!(verify.status.success());
}

#[test]
fn a_server_killed_mid_prewarm_costs_a_warning_not_the_run() {
    tpuc_expect::skip_without!(Plugins, S3Server);
    let server = S3Server::start();
    let url = server.bucket("killed", "k");
    let flags = remote(&server, &url);
    let dir = plan_dir(8);
    let cache = dir.path().join("cache");
    let mut child = command(
        &cache,
        &prewarm_args(dir.path(), &with(&flags, &["-j", "1"])),
    )
    .current_dir(dir.path())
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut stderr = String::new();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    for line in lines.by_ref() {
        let line = line.unwrap();
        stderr.push_str(&line);
        stderr.push('\n');
        if line.starts_with("[2/12]") {
            server.kill();
            break;
        }
    }
    for line in lines {
        stderr.push_str(&line.unwrap());
        stderr.push('\n');
    }
    let status = child.wait().unwrap();
    assert!(
        status.success(),
        "the run failed with the server:\n{stderr}"
    );
    let items = report_items(dir.path(), &stderr);
    assert_eq!(statuses(&items), ["compiled"; 12], "{stderr}");
    let published = shared_entries(&server, "killed", "k").len();
    assert!((2..12).contains(&published), "{published} published");
    // One warning for the fault; the tier then rests instead of failing item after item.
    let faults = items
        .iter()
        .flat_map(|i| i["warnings"].as_array().unwrap())
        .filter(|w| w.as_str().unwrap().contains("shared cache"))
        .count();
    assert_eq!(faults, 1, "{stderr}");
    // Everything is in the local cache, intact.
    let (warm, _) = prewarm_ok(dir.path(), &cache, &[]);
    assert_eq!(statuses(&warm), ["hit"; 12]);
}

#[test]
fn a_tampered_shared_entry_is_never_used() {
    tpuc_expect::skip_without!(Plugins, S3Server);
    let server = S3Server::start();
    let url = server.bucket("tampered", "t");
    let flags = remote(&server, &url);
    let dir = plan_dir(8);
    let (cold, _) = prewarm_ok(dir.path(), &dir.path().join("first"), &flags);

    // Replace the executable of the first item with another one (the second item's): a
    // well-formed executable, but not the one the entry's manifest promises.
    let manifest_of = |item: &Value| {
        let path = server
            .objects()
            .join("tampered/t/v1/entries")
            .join(format!("{}.json", item["key"].as_str().unwrap()));
        serde_json::from_slice::<Value>(&std::fs::read(path).unwrap()).unwrap()
    };
    let blob_of = |manifest: &Value| {
        server
            .objects()
            .join("tampered/t/v1/blobs")
            .join(manifest["payload"]["sha256"].as_str().unwrap())
    };
    let (victim, donor) = (manifest_of(&cold[0]), manifest_of(&cold[2]));
    std::fs::copy(blob_of(&donor), blob_of(&victim)).unwrap();

    let (items, stderr) = prewarm_ok(dir.path(), &dir.path().join("second"), &flags);
    assert_eq!(items[0]["status"], "compiled", "{stderr}");
    assert!(
        items[0]["warnings"][0]
            .as_str()
            .unwrap()
            .contains("is not used"),
        "{stderr}"
    );
    assert_eq!(
        items[1..]
            .iter()
            .filter(|i| i["status"] == "fetched")
            .count(),
        11
    );
}

#[test]
fn an_unusable_bucket_is_reported_once_and_the_local_cache_goes_on() {
    tpuc_expect::skip_without!(Plugins, S3Server);
    let server = S3Server::start();
    let flags = remote(&server, "s3://no-such-bucket/x");
    let dir = plan_dir(8);
    let (items, stderr) = prewarm_ok(
        dir.path(),
        &dir.path().join("cache"),
        &with(&flags, &["--dry-run"]),
    );
    assert_eq!(statuses(&items), ["missing"; 12]);
    assert_eq!(
        stderr.matches("no-such-bucket` of the remote").count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains("using the local cache only"), "{stderr}");

    // An endpoint without a bucket is a mistake, not a silent no-op.
    let out = support::tpuc(
        &dir.path().join("cache"),
        &["compile", "models/mlp.pt2", "--endpoint", &server.endpoint],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no --remote"));
}

#[test]
fn a_trickling_server_costs_its_deadline_then_the_compile_goes_on_locally() {
    tpuc_expect::skip_without!(Plugins);
    let server = TrickleServer::start();
    let dir = tempfile::tempdir().unwrap();
    let model = fixture("mlp.pt2");
    let args = [
        "compile",
        model.to_str().unwrap(),
        "--target",
        "cpu",
        "--format",
        "json",
    ];
    // How long the compile takes without a shared tier, for the bound below.
    let started = Instant::now();
    let baseline = support::tpuc(&dir.path().join("baseline"), &args);
    assert!(baseline.status.success(), "{baseline:?}");
    let alone = started.elapsed();

    let remote = ["--remote", "s3://slow/x", "--endpoint", &server.endpoint];
    let started = Instant::now();
    let out = command(
        &dir.path().join("cache"),
        &[&args[..], &remote[..]].concat(),
    )
    .env("TPUC_REMOTE_DEADLINE", "2")
    .output()
    .unwrap();
    let elapsed = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["targets"][0]["origin"], "compiled", "{stderr}");
    assert!(stderr.contains("did not finish"), "{stderr}");
    // One deadline (the tier then rests), not one per operation, and nothing like the minutes
    // the server would take to send its 11 KiB.
    let bound = alone + Duration::from_secs(2 + 5);
    assert!(elapsed < bound, "{elapsed:?} (alone: {alone:?}):\n{stderr}");
}

#[test]
fn a_terminal_gets_progress_bars_and_a_log_gets_lines() {
    tpuc_expect::skip_without!(Plugins);
    let dir = plan_dir(8);
    let cache = dir.path().join("cache");
    let (_, logged) = prewarm_ok(dir.path(), &cache, &["--dry-run"]);
    assert!(logged.contains("[12/12] missing"), "{logged}");
    assert!(
        !logged.contains('\u{1b}'),
        "escape codes in a log:\n{logged}"
    );

    // The same under a pseudo-terminal (util-linux `script`).
    let tpuc = env!("CARGO_BIN_EXE_tpuc");
    let line = format!("{tpuc} prewarm plan.toml --dry-run -j 2");
    let out = std::process::Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .current_dir(dir.path())
        .env("TPUC_CACHE_DIR", &cache)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{shown}");
    assert!(shown.contains("items"), "{shown}");
    assert!(
        shown.contains("\u{1b}[2K"),
        "no progress bar drawn on a terminal:\n{shown}"
    );
    assert!(!shown.contains("[12/12]"), "{shown}");
}
