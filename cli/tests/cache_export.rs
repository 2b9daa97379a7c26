//! `tpuc cache export`: a cached executable as a file for PJRT clients or for jaxlib.

mod support;

use std::path::Path;
use std::process::Output;

use support::{compile, fixture, tpuc};

fn export(cache: &Path, key: &str, runtime: &str, file: &Path) -> Output {
    tpuc(
        cache,
        &[
            "cache",
            "export",
            key,
            "--for",
            runtime,
            "-o",
            file.to_str().unwrap(),
        ],
    )
}

#[test]
fn exports_the_payload_and_the_jax_envelope() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let (report, _) = compile(cache.path(), &fixture("mlp.pt2"), &["cpu"]);
    let key = report["targets"][0]["key"].as_str().unwrap();
    let entry = report["targets"][0]["entry"].as_str().unwrap();
    let payload = std::fs::read(Path::new(entry).join("executable")).unwrap();

    let pjrt = out.path().join("mlp.pjrt");
    let done = export(cache.path(), key, "pjrt", &pjrt);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert_eq!(std::fs::read(&pjrt).unwrap(), payload);

    let jax = out.path().join("mlp.jax");
    let done = export(cache.path(), key, "jax", &jax);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let envelope = std::fs::read(&jax).unwrap();
    // A varint length, the metadata (version 3, runtime `pjrt_ifrt`), then the payload.
    let (length, header) = match envelope[0] {
        byte if byte < 0x80 => (usize::from(byte), 1),
        low => (usize::from(low & 0x7f) | usize::from(envelope[1]) << 7, 2),
    };
    assert_eq!(&envelope[header..header + 13], b"\x08\x03\x12\x09pjrt_ifrt");
    assert_eq!(&envelope[header + length..], payload.as_slice());
}

#[test]
fn a_missing_entry_is_an_error_and_writes_nothing() {
    let cache = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("x.jax");
    let key = "0".repeat(64);
    let done = export(cache.path(), &key, "jax", &file);
    assert_eq!(done.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(stderr.contains("no cache entry"), "{stderr}");
    assert!(!file.exists());
}
