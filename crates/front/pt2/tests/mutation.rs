//! Damages the real fixtures at random (seeded, so every failure is reproducible) and checks
//! that opening and reading them never panics: every outcome is a value or a `Pt2Error`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use tpuc_pt2::Archive;

#[path = "support/harness.rs"]
mod harness;

use harness::{Rng, panic_message};

/// Mutations per fixture archive; together a few seconds in debug builds.
const ROUNDS_PER_ARCHIVE: u64 = 64;

/// Larger fixtures (real networks) are left to the manifest test: cloning and reparsing them for
/// every mutation would take minutes.
const MAX_FIXTURE_BYTES: u64 = 256 << 10;

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../testdata/models");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("testdata/models")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pt2"))
        .filter(|p| p.metadata().is_ok_and(|m| m.len() <= MAX_FIXTURE_BYTES))
        .collect();
    paths.sort();
    assert!(!paths.is_empty());
    paths
}

/// Start offsets of the JSON records (program and payload configs).
fn json_starts(bytes: &[u8]) -> Vec<usize> {
    let mut starts = Vec::new();
    for needle in [&b"{\"graph_module\""[..], b"{\"config\""] {
        starts.extend(
            bytes
                .windows(needle.len())
                .enumerate()
                .filter(|(_, w)| *w == needle)
                .map(|(i, _)| i),
        );
    }
    starts
}

/// Applies one random mutation; returns its description.
fn mutate(bytes: &mut Vec<u8>, json: &[usize], rng: &mut Rng) -> String {
    let len = bytes.len();
    match rng.below(6) {
        0 => {
            let flips = 1 + rng.below(8);
            // Half of the flips hit the tail, where the JSON records and the zip directory live.
            for _ in 0..flips {
                let at = if rng.below(2) == 0 {
                    rng.below(len)
                } else {
                    len - 1 - rng.below(len.min(4096))
                };
                bytes[at] ^= 1 << rng.below(8);
            }
            format!("{flips} bit flips")
        }
        1 => {
            let keep = rng.below(len);
            bytes.truncate(keep);
            format!("truncated to {keep}")
        }
        2 => {
            let at = rng.below(len + 1);
            let n = 1 + rng.below(64);
            let junk: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
            bytes.splice(at..at, junk);
            format!("{n} bytes inserted at {at}")
        }
        3 => {
            // Same-length edits of a JSON record keep the zip valid and reach the parser.
            let start = json[rng.below(json.len())];
            let span = (len - start).min(8192);
            let mut edits = Vec::new();
            for _ in 0..1 + rng.below(4) {
                let at = start + rng.below(span);
                let replacement = b"{}[],:\"0123456789-eE.ntfu "[rng.below(26)];
                edits.push(at);
                bytes[at] = replacement;
            }
            format!("JSON characters replaced at {edits:?}")
        }
        4 => {
            // Turn a number in a JSON record into a huge or negative one.
            let start = json[rng.below(json.len())];
            let span = (len - start).min(8192);
            let at = start + rng.below(span);
            let Some(digit) = (at..len).find(|&i| bytes[i].is_ascii_digit()) else {
                return "no number found".to_owned();
            };
            let end = (digit..len)
                .find(|&i| !bytes[i].is_ascii_digit())
                .unwrap_or(len);
            if rng.below(2) == 0 {
                bytes[digit..end].fill(b'9');
                format!("number at {digit} set to 9s")
            } else {
                bytes[digit] = b'-';
                format!("number at {digit} negated")
            }
        }
        _ => {
            // Overwrite a little-endian field of the zip directory with an extreme value.
            let at = len - 1 - rng.below(len.min(2048));
            let value = [0u8, 0xFF, 0x7F, 0x80][rng.below(4)];
            let width = [2, 4, 8][rng.below(3)].min(len - at);
            bytes[at..at + width].fill(value);
            format!("{width} directory bytes at {at} set to {value:#x}")
        }
    }
}

/// Opens and reads everything a client would; any error is fine, a panic is not.
/// Returns whether the archive was refused.
fn exercise(name: &str, bytes: Vec<u8>) -> bool {
    let Ok(archive) = Archive::from_bytes(name, bytes) else {
        return true;
    };
    for weight in archive.weights() {
        let view = archive.view(weight);
        let _ = view.to_contiguous_bytes();
    }
    let _ = archive.storage_bytes();
    let _ = archive.user_inputs();
    for (_, node) in archive.graph().walk() {
        let _ = node.user_frame();
        let _ = node.module_path();
    }
    for meta in archive.graph().tensor_values.values() {
        if let Ok(shape) = meta.shape() {
            for dim in shape {
                if let tpuc_pt2::Dim::Symbolic { expr, .. } = dim {
                    let _ = expr.eval_with(&|_| Some(3));
                    let _ = expr.to_string();
                }
            }
        }
    }
    false
}

#[test]
fn random_damage_never_panics() {
    let mut panics = Vec::new();
    let mut errors = 0u64;
    let mut total = 0u64;
    for (index, path) in fixtures().iter().enumerate() {
        let original = std::fs::read(path).unwrap();
        let json = json_starts(&original);
        assert!(!json.is_empty(), "{}: no JSON record found", path.display());
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for round in 0..ROUNDS_PER_ARCHIVE {
            let seed = (index as u64) << 32 | round;
            let mut rng = Rng(seed);
            let mut bytes = original.clone();
            let mutation = mutate(&mut bytes, &json, &mut rng);
            total += 1;
            let outcome = catch_unwind(AssertUnwindSafe(|| exercise(&name, bytes)));
            match outcome {
                Ok(refused) => errors += u64::from(refused),
                Err(panic) => {
                    let message = panic_message(&*panic);
                    panics.push(format!("{name} seed {seed:#x} ({mutation}): {message}"));
                }
            }
        }
    }
    assert!(panics.is_empty(), "panics:\n{}", panics.join("\n"));
    // The mutations must actually reach the validation code, not only pass through harmlessly.
    assert!(
        errors * 4 > total,
        "only {errors} of {total} mutations were rejected"
    );
}
