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
    let entries = zip_entries(&bytes);
    let mut changed = 0;
    for entry in entries.iter().filter(|e| is_weight(&e.name)) {
        for i in entry.data.clone() {
            bytes[i] = fill(i);
        }
        let crc = crc32(&bytes[entry.data.clone()]).to_le_bytes();
        bytes[entry.local_header + 14..entry.local_header + 18].copy_from_slice(&crc);
        bytes[entry.central_header + 16..entry.central_header + 20].copy_from_slice(&crc);
        // Torch writes a data descriptor after each record (flag bit 3); it repeats the CRC.
        let flags =
            u16::from_le_bytes([bytes[entry.local_header + 6], bytes[entry.local_header + 7]]);
        if flags & 0x8 != 0 {
            let mut at = entry.data.end;
            if bytes[at..at + 4] == 0x0807_4b50u32.to_le_bytes() {
                at += 4;
            }
            bytes[at..at + 4].copy_from_slice(&crc);
        }
        changed += 1;
    }
    assert!(changed > 0, "{} has no weight records", source.display());
    std::fs::write(destination, bytes).unwrap();
}

fn is_weight(name: &str) -> bool {
    (name.contains("/data/weights/") || name.contains("/data/constants/"))
        && !name.ends_with(".json")
}

struct ZipEntry {
    name: String,
    local_header: usize,
    central_header: usize,
    data: std::ops::Range<usize>,
}

/// The STORED entries of a zip file, from its central directory (enough for torch archives).
fn zip_entries(bytes: &[u8]) -> Vec<ZipEntry> {
    let u16_at = |at: usize| usize::from(u16::from_le_bytes([bytes[at], bytes[at + 1]]));
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let eocd = (0..bytes.len() - 21)
        .rev()
        .find(|&at| u32_at(at) == 0x0605_4b50)
        .expect("a zip");
    let (count, mut at) = (u16_at(eocd + 10), u32_at(eocd + 16));
    let mut entries = Vec::new();
    for _ in 0..count {
        assert_eq!(u32_at(at), 0x0201_4b50, "central directory entry");
        let size = u32_at(at + 24);
        let (name_len, extra_len, comment_len) =
            (u16_at(at + 28), u16_at(at + 30), u16_at(at + 32));
        let name = String::from_utf8_lossy(&bytes[at + 46..at + 46 + name_len]).into_owned();
        let local = u32_at(at + 42);
        let data_start = local + 30 + u16_at(local + 26) + u16_at(local + 28);
        entries.push(ZipEntry {
            name,
            local_header: local,
            central_header: at,
            data: data_start..data_start + size,
        });
        at += 46 + name_len + extra_len + comment_len;
    }
    entries
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                crc >> 1 ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn crc32_matches_the_zip_standard() {
    assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
}
