//! The cache under faults, with real processes: concurrent writers, writers killed at random
//! points, damaged entries, and caches that cannot be written.

mod support;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::{command, compile, fixture, json, tpuc, warnings};

/// Every entry verifies and no temporary is visible as an entry; returns the entry count.
fn assert_consistent(cache: &Path) -> u64 {
    let (verify, _) = json(cache, &["cache", "verify"]);
    assert_eq!(verify["corrupt"], Value::Array(vec![]), "{verify}");
    verify["ok"].as_u64().unwrap()
}

#[test]
fn concurrent_compiles_of_one_model_all_succeed_with_one_entry() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let model = fixture("cnn.pt2");
    let children: Vec<_> = (0..4)
        .map(|_| {
            command(
                cache.path(),
                &[
                    "compile",
                    model.to_str().unwrap(),
                    "--target",
                    "cpu",
                    "--format",
                    "json",
                ],
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    let mut keys = Vec::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        assert!(warnings(&stderr).is_empty(), "{stderr}");
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        keys.push(report["targets"][0]["key"].clone());
    }
    assert!(keys.windows(2).all(|pair| pair[0] == pair[1]), "{keys:?}");
    assert_eq!(assert_consistent(cache.path()), 1);
    let (stats, _) = json(cache.path(), &["cache", "stats"]);
    assert_eq!(stats["entries"], 1);
    assert_eq!(stats["temporary"], 0, "{stats}");
}

#[test]
fn a_writer_killed_at_any_point_leaves_no_partial_entry() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let model = fixture("mlp.pt2");
    let args = ["compile", model.to_str().unwrap(), "--target", "cpu"];
    // How long a whole cold compile takes, so the kills spread over all of it.
    let reference = tempfile::tempdir().unwrap();
    let started = Instant::now();
    assert!(tpuc(reference.path(), &args).status.success());
    let whole = started.elapsed();

    let rounds = 10;
    for round in 0..rounds {
        let mut child = command(cache.path(), &args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(whole.mul_f64(f64::from(round) / f64::from(rounds)));
        let _ = child.kill();
        let _ = child.wait();
        let entries = assert_consistent(cache.path());
        assert!(entries <= 1, "round {round}: {entries} entries");
        if entries == 1 {
            // Once an entry is visible it is whole: start again from an empty cache.
            let (ls, _) = json(cache.path(), &["cache", "ls"]);
            let key = ls["entries"][0]["key"].as_str().unwrap().to_owned();
            json(cache.path(), &["cache", "rm", &key]);
        }
    }
    let (report, stderr) = compile(cache.path(), &model, &["cpu"]);
    assert!(warnings(&stderr).is_empty(), "{stderr}");
    assert_eq!(report["targets"][0]["hit"], false);
    assert_eq!(assert_consistent(cache.path()), 1);
}

#[test]
fn a_writer_killed_between_staging_and_commit_leaves_no_entry() {
    tpuc_expect::skip_without!(Plugins);
    // Random kills rarely land in the few milliseconds of a write; the debug-build hook
    // holds a fully staged entry before its rename so the kill lands exactly there.
    let cache = tempfile::tempdir().unwrap();
    let model = fixture("mlp.pt2");
    let args = ["compile", model.to_str().unwrap(), "--target", "cpu"];
    let mut child = command(cache.path(), &args)
        .env("TPUC_TEST_PAUSE_BEFORE_COMMIT", "60000")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let tmp = cache.path().join("v1/tmp");
    let started = Instant::now();
    let staged = loop {
        let staged = std::fs::read_dir(&tmp)
            .into_iter()
            .flatten()
            .flatten()
            .find(|e| {
                e.path().join("manifest.json").exists() && e.path().join("executable").exists()
            });
        if let Some(staged) = staged {
            break staged.path();
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the writer never staged an entry"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        staged.exists(),
        "the killed writer's staging directory stays in tmp/"
    );
    assert_eq!(
        assert_consistent(cache.path()),
        0,
        "nothing half-written is an entry"
    );
    let (stats, _) = json(cache.path(), &["cache", "stats"]);
    assert_eq!(
        (stats["entries"].as_u64(), stats["temporary"].as_u64()),
        (Some(0), Some(1))
    );
    // The next writer stores the entry normally.
    let (report, _) = compile(cache.path(), &model, &["cpu"]);
    assert_eq!(report["targets"][0]["hit"], false);
    assert_eq!(assert_consistent(cache.path()), 1);
}

/// Damages one file of the entry and checks the next compile reports it, recompiles and
/// leaves a good entry.
fn damaged_entry_is_recompiled(what: &str, file: &str, damage: impl Fn(&mut Vec<u8>)) {
    let cache = tempfile::tempdir().unwrap();
    let model = fixture("mlp.pt2");
    let (cold, _) = compile(cache.path(), &model, &["cpu"]);
    let entry = Path::new(cold["targets"][0]["entry"].as_str().unwrap()).to_owned();
    let path = entry.join(file);
    let mut bytes = std::fs::read(&path).unwrap();
    damage(&mut bytes);
    std::fs::write(&path, bytes).unwrap();

    let out = tpuc(
        cache.path(),
        &["cache", "verify", "--cache-read-only", "--format", "json"],
    );
    assert_eq!(
        out.status.code(),
        Some(4),
        "{what}: verify exits 4 on corrupt entries"
    );
    let verify: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        verify["corrupt"].as_array().unwrap().len(),
        1,
        "{what}: {verify}"
    );
    let (again, stderr) = compile(cache.path(), &model, &["cpu"]);
    let warned = warnings(&stderr);
    assert!(
        warned.len() == 1 && warned[0].contains("is corrupt"),
        "{what}: {stderr}"
    );
    assert_eq!(again["targets"][0]["hit"], false, "{what}");
    assert_eq!(
        again["targets"][0]["key"], cold["targets"][0]["key"],
        "{what}"
    );
    assert_eq!(assert_consistent(cache.path()), 1, "{what}");
    let (stats, _) = json(cache.path(), &["cache", "stats"]);
    assert_eq!(stats["quarantined"], 1, "{what}");
    let (third, _) = compile(cache.path(), &model, &["cpu"]);
    assert_eq!(third["targets"][0]["hit"], true, "{what}");
}

#[test]
fn a_bit_flipped_payload_is_detected_and_recompiled() {
    tpuc_expect::skip_without!(Plugins);
    damaged_entry_is_recompiled("bit flip", "executable", |bytes| {
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0x04;
    });
}

#[test]
fn a_truncated_payload_is_detected_and_recompiled() {
    tpuc_expect::skip_without!(Plugins);
    damaged_entry_is_recompiled("truncation", "executable", |bytes| {
        bytes.truncate(bytes.len() - 100)
    });
}

#[test]
fn a_truncated_or_altered_manifest_is_detected_and_recompiled() {
    tpuc_expect::skip_without!(Plugins);
    damaged_entry_is_recompiled("truncated manifest", "manifest.json", |bytes| {
        bytes.truncate(bytes.len() / 3);
    });
    damaged_entry_is_recompiled("altered manifest", "manifest.json", |bytes| {
        let text = String::from_utf8(bytes.clone())
            .unwrap()
            .replacen("\"cpu:1\"", "\"cpu:8\"", 1);
        *bytes = text.into_bytes();
    });
}

#[test]
fn every_single_bit_flip_in_every_file_of_an_entry_is_detected() {
    tpuc_expect::skip_without!(Plugins);
    use std::os::unix::fs::FileExt;
    use tpuc_cache::{Cache, Key, Lookup, Mode};

    let cache_dir = tempfile::tempdir().unwrap();
    let (report, _) = compile(cache_dir.path(), &fixture("mlp.pt2"), &["cpu"]);
    let key: Key = report["targets"][0]["key"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let cache = Cache::open(cache_dir.path(), Mode::ReadOnly);
    let mut files: Vec<_> = std::fs::read_dir(cache.entry_path(&key))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 3, "payload, manifest and its seal: {files:?}");
    let mut flips = 0;
    for path in &files {
        let original = std::fs::read(path).unwrap();
        let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        for (offset, &byte) in original.iter().enumerate() {
            for bit in 0..8 {
                file.write_all_at(&[byte ^ (1 << bit)], offset as u64)
                    .unwrap();
                let verified = cache.verify().unwrap();
                let where_ = format!("{} byte {offset} bit {bit}", path.display());
                assert_eq!((verified.ok, verified.corrupt.len()), (0, 1), "{where_}");
                assert!(
                    matches!(cache.lookup(&key).unwrap(), Lookup::Corrupt { .. }),
                    "{where_}"
                );
                flips += 1;
            }
            file.write_all_at(&[byte], offset as u64).unwrap();
        }
    }
    assert!(flips > 80_000, "{flips} flips");
    assert_eq!(cache.verify().unwrap().ok, 1, "every file restored");
}

#[test]
fn an_unwritable_cache_warns_but_the_executable_is_still_returned() {
    tpuc_expect::skip_without!(Plugins);
    let work = tempfile::tempdir().unwrap();
    // A regular file where the cache directory should be: no write can succeed, even as root.
    let blocked = work.path().join("cache-is-a-file");
    std::fs::write(&blocked, b"").unwrap();
    let output = work.path().join("mlp.exe");
    let model = fixture("mlp.pt2");
    let out = tpuc(
        &blocked,
        &[
            "compile",
            model.to_str().unwrap(),
            "--target",
            "cpu",
            "-o",
            output.to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("not stored in the cache") && stderr.contains("cache-is-a-file"),
        "{stderr}"
    );
    assert!(std::fs::metadata(&output).unwrap().len() > 1000);
    assert!(String::from_utf8_lossy(&out.stdout).contains("not stored in the cache"));
}

#[test]
fn a_read_only_cache_is_used_but_never_written() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let model = fixture("mlp.pt2");
    let model = model.to_str().unwrap();
    let (report, stderr) = json(
        cache.path(),
        &["compile", model, "--target", "cpu", "--cache-read-only"],
    );
    assert_eq!(report["targets"][0]["entry"], Value::Null);
    assert!(stderr.contains("read-only"), "{stderr}");
    assert_eq!(
        std::fs::read_dir(cache.path()).unwrap().count(),
        0,
        "nothing written"
    );

    compile(cache.path(), Path::new(model), &["cpu"]);
    let mut read_only = command(
        cache.path(),
        &["compile", model, "--target", "cpu", "--format", "json"],
    );
    let out = read_only.env("TPUC_CACHE_READ_ONLY", "1").output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["targets"][0]["hit"], true);
}

#[test]
fn a_full_disk_warns_but_the_executable_is_still_returned() {
    tpuc_expect::skip_without!(Plugins);
    let mount = tempfile::tempdir().unwrap();
    let mounted = std::process::Command::new("mount")
        .args([
            "-t",
            "tmpfs",
            "-o",
            "size=24k",
            "tpuc-test-full",
            mount.path().to_str().unwrap(),
        ])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !mounted {
        eprintln!(
            "skipped: mounting a small tmpfs needs root; the unwritable-directory test covers the rest"
        );
        return;
    }
    struct Unmount<'a>(&'a Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(self.0).status();
        }
    }
    let _unmount = Unmount(mount.path());
    let model = fixture("resnet.core.pt2");
    let started = Instant::now();
    let (report, stderr) = compile(mount.path(), &model, &["cpu"]);
    assert!(started.elapsed() < Duration::from_secs(300));
    assert!(
        stderr.contains("No space left on device") && stderr.contains("not stored"),
        "{stderr}"
    );
    assert_eq!(report["targets"][0]["entry"], Value::Null);
    assert!(report["targets"][0]["size"].as_u64().unwrap() > 24 * 1024);
    // Nothing half-written is visible.
    assert_eq!(assert_consistent(mount.path()), 0);
}
