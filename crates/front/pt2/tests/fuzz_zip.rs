//! A structure-aware fuzzer of the reader, seeded so that every failure is reproducible: it
//! rewrites single fields of the zip records (sizes, offsets, CRCs, name and extra lengths, end
//! records, data descriptors) and of the JSON records of the fixtures and the malformed corpus,
//! and flips bits in weight bytes. No input may panic or take long, and every changed weight byte
//! must be reported, with the record's name, when the weight is read.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;
use tpuc_pt2::{Archive, Pt2Error};

#[path = "support/harness.rs"]
mod harness;
#[path = "support/zip_writer.rs"]
mod zip_writer;

use harness::{Rng, panic_message};
use zip_writer::{Layout, read_entries, write_zip};

/// Cases in all, spread over the inputs; a few seconds in a debug build.
const CASES: usize = 4000;

/// Larger fixtures take too long to reparse thousands of times; the small ones have every kind of
/// record.
const MAX_INPUT_BYTES: u64 = 64 << 10;

/// The longest any one case may take: far more than a real open, far less than a hang.
const MAX_CASE_TIME: Duration = Duration::from_secs(2);

/// Fields of a central-directory record: (offset, width).
const CENTRAL_FIELDS: [(usize, usize); 9] = [
    (8, 2),  // flags
    (10, 2), // method
    (16, 4), // CRC-32
    (20, 4), // stored size
    (24, 4), // size
    (28, 2), // name length
    (30, 2), // extra length
    (32, 2), // comment length
    (42, 4), // local header offset
];

/// Fields of a local header.
const LOCAL_FIELDS: [(usize, usize); 7] = [
    (6, 2),  // flags
    (8, 2),  // method
    (14, 4), // CRC-32
    (18, 4), // stored size
    (22, 4), // size
    (26, 2), // name length
    (28, 2), // extra length
];

/// Fields of the end records: (offset, width) in the zip64 record, in the classic one.
const ZIP64_FIELDS: [(usize, usize); 4] = [(24, 8), (32, 8), (40, 8), (48, 8)];
const EOCD_FIELDS: [(usize, usize); 4] = [(8, 2), (10, 2), (12, 4), (16, 4)];

struct Input {
    name: String,
    bytes: Vec<u8>,
    layout: Layout,
    /// Whether the intact input opens: only then are its records rewritten.
    opens: bool,
    /// Storage records that weights of the intact archive view, with bytes to damage.
    storages: Vec<String>,
}

fn inputs() -> Vec<Input> {
    let testdata = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../testdata");
    let mut paths: Vec<PathBuf> = ["models", "malformed"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(testdata.join(dir)).expect("testdata"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pt2"))
        .filter(|p| p.metadata().is_ok_and(|m| m.len() <= MAX_INPUT_BYTES))
        .collect();
    paths.sort();
    let inputs: Vec<Input> = paths
        .iter()
        .filter_map(|path| {
            let bytes = std::fs::read(path).unwrap();
            let layout = Layout::try_of(&bytes)?;
            let name = path.file_name()?.to_string_lossy().into_owned();
            let opened = Archive::from_bytes(&name, bytes.clone());
            let opens = opened.is_ok();
            let storages = match opened {
                Ok(archive) => {
                    let mut names: Vec<String> = archive
                        .weights()
                        .filter(|w| w.storage_len() > 0 && archive.view(w).numel() > 0)
                        .filter(|w| archive.view(w).storage().is_ok())
                        .map(|w| w.storage_entry().to_owned())
                        // Storages nested in a record (subclass weights) are damaged as part of
                        // it, where the open may fail first.
                        .filter(|entry| layout.records.iter().any(|(n, _)| n == entry))
                        .collect();
                    names.sort();
                    names.dedup();
                    names
                }
                Err(_) => Vec::new(),
            };
            Some(Input {
                name,
                bytes,
                layout,
                opens,
                storages,
            })
        })
        .collect();
    assert!(
        inputs.iter().filter(|i| !i.storages.is_empty()).count() >= 5,
        "too few readable inputs"
    );
    inputs
}

/// A value worth trying in a `width`-byte field that holds `old`.
fn interesting(rng: &mut Rng, old: u64, width: usize) -> u64 {
    let max = if width == 8 {
        u64::MAX
    } else {
        (1 << (8 * width)) - 1
    };
    let value = match rng.below(9) {
        0 => 0,
        1 => max,
        2 => max >> 1,
        3 => old.wrapping_add(1),
        4 => old.wrapping_sub(1),
        5 => old.wrapping_add(64),
        6 => old.wrapping_sub(64),
        7 => old ^ 1 << rng.below(8 * width),
        _ => rng.next(),
    };
    value & max
}

fn read_field(bytes: &[u8], at: usize, width: usize) -> Option<u64> {
    let field = bytes.get(at..at.checked_add(width)?)?;
    Some(field.iter().rev().fold(0, |v, &b| v << 8 | u64::from(b)))
}

fn write_field(bytes: &mut [u8], at: usize, width: usize, value: u64) -> bool {
    let Some(field) = at.checked_add(width).and_then(|end| bytes.get_mut(at..end)) else {
        return false;
    };
    field.copy_from_slice(&value.to_le_bytes()[..width]);
    true
}

/// Sets one field at `base + offset` to an interesting value; describes the edit.
fn edit_field(
    bytes: &mut [u8],
    rng: &mut Rng,
    what: &str,
    base: usize,
    fields: &[(usize, usize)],
) -> String {
    let (offset, width) = fields[rng.below(fields.len())];
    let at = base + offset;
    let Some(old) = read_field(bytes, at, width) else {
        return format!("{what}+{offset}: outside the file");
    };
    let value = interesting(rng, old, width);
    write_field(bytes, at, width, value);
    format!("{what}+{offset} {old:#x} -> {value:#x}")
}

/// Replaces one leaf or member of a JSON value.
fn mutate_json(value: &mut Value, rng: &mut Rng) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            let key = map.keys().nth(rng.below(map.len())).unwrap().clone();
            if rng.below(6) == 0 {
                map.remove(&key);
            } else {
                mutate_json(map.get_mut(&key).unwrap(), rng);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            if rng.below(6) == 0 {
                items.remove(rng.below(items.len()));
            } else {
                let i = rng.below(items.len());
                mutate_json(&mut items[i], rng);
            }
        }
        leaf => {
            *leaf = match rng.below(7) {
                0 => Value::Null,
                1 => Value::from(-1),
                2 => Value::from(i64::MAX),
                3 => Value::from(u64::MAX),
                4 => Value::from(""),
                5 => Value::from(true),
                _ => Value::Array(Vec::new()),
            }
        }
    }
}

/// What a case did, and what must follow.
enum Damage {
    /// Anything but a panic is fine.
    Any(String),
    /// Bytes of this storage record changed: reading it must fail, naming it.
    Weight(String),
}

fn damage(input: &Input, rng: &mut Rng) -> (Vec<u8>, Damage) {
    let mut bytes = input.bytes.clone();
    let layout = &input.layout;
    let record = |rng: &mut Rng| &layout.records[rng.below(layout.records.len())];
    // Field edits for every input; JSON rewrites of those that open; weight damage where any.
    let kinds = match (input.opens, input.storages.is_empty()) {
        (false, _) => 4,
        (true, true) => 5,
        (true, false) => 7,
    };
    let choice = rng.below(kinds);
    let what = match choice {
        _ if layout.records.is_empty() => {
            edit_field(&mut bytes, rng, "eocd", layout.eocd, &EOCD_FIELDS)
        }
        0 => {
            let (name, at) = record(rng);
            edit_field(
                &mut bytes,
                rng,
                &format!("central `{name}`"),
                *at,
                &CENTRAL_FIELDS,
            )
        }
        1 => {
            let (name, _) = record(rng);
            let local = layout.local_header(&input.bytes, name);
            edit_field(
                &mut bytes,
                rng,
                &format!("local `{name}`"),
                local,
                &LOCAL_FIELDS,
            )
        }
        2 => match layout.zip64_record {
            Some(at) if rng.below(2) == 0 => {
                edit_field(&mut bytes, rng, "zip64", at, &ZIP64_FIELDS)
            }
            _ => edit_field(&mut bytes, rng, "eocd", layout.eocd, &EOCD_FIELDS),
        },
        3 => {
            // The data descriptor torch writes after each record: signature, CRC-32, sizes.
            let (name, at) = record(rng);
            let size = read_field(&input.bytes, at + 24, 4).unwrap_or(0) as usize;
            let Some(start) = layout.try_data(&input.bytes, name) else {
                return (
                    bytes,
                    Damage::Any("local header outside the file".to_owned()),
                );
            };
            let end = start + size;
            edit_field(
                &mut bytes,
                rng,
                &format!("descriptor `{name}`"),
                end,
                &[(0, 4), (4, 4), (8, 4)],
            )
        }
        4 => {
            let entries = read_entries(&input.bytes);
            let json: Vec<usize> = (0..entries.len())
                .filter(|&i| entries[i].name.ends_with(".json"))
                .collect();
            if json.is_empty() {
                return (bytes, Damage::Any("no JSON record".to_owned()));
            }
            let mut entries = entries;
            let entry = &mut entries[json[rng.below(json.len())]];
            let Ok(mut value) = serde_json::from_slice::<Value>(&entry.data) else {
                return (bytes, Damage::Any("unparseable JSON record".to_owned()));
            };
            for _ in 0..1 + rng.below(3) {
                mutate_json(&mut value, rng);
            }
            entry.data = serde_json::to_vec(&value).unwrap();
            let what = format!("JSON of `{}` rewritten", entry.name);
            return (write_zip(&entries), Damage::Any(what));
        }
        _ => {
            let name = &input.storages[rng.below(input.storages.len())];
            let start = layout.data(&input.bytes, name);
            let size = read_field(&input.bytes, layout.record(name) + 24, 4).unwrap() as usize;
            let flips = 1 + rng.below(3);
            for _ in 0..flips {
                bytes[start + rng.below(size)] ^= 1 << rng.below(8);
            }
            // An even number of flips of one bit cancels out; flip one more elsewhere then.
            if bytes == input.bytes {
                bytes[start] ^= 1;
            }
            return (bytes, Damage::Weight(name.clone()));
        }
    };
    (bytes, Damage::Any(what))
}

/// Opens and reads everything; checks what `damage` promises. Err describes a violated promise.
fn exercise(input: &Input, bytes: Vec<u8>, damage: &Damage) -> Result<(), String> {
    let archive = match (Archive::from_bytes(&input.name, bytes), damage) {
        (Ok(archive), _) => archive,
        (Err(_), Damage::Any(_)) => return Ok(()),
        (Err(error), Damage::Weight(_)) => {
            return Err(format!("damaged weight bytes made the open fail: {error}"));
        }
    };
    for weight in archive.weights() {
        let view = archive.view(weight);
        let read = view.to_contiguous_bytes().map(|_| ());
        let streamed = view.write_contiguous(&mut std::io::sink());
        let Damage::Weight(damaged) = damage else {
            continue;
        };
        if weight.storage_entry() != damaged || view.numel() == 0 {
            if input.storages.iter().any(|s| s == weight.storage_entry()) {
                read.map_err(|e| format!("an intact weight failed to read: {e}"))?;
            }
            continue;
        }
        match read {
            Err(Pt2Error::ChecksumMismatch { entry, .. }) if entry == *damaged => {}
            other => return Err(format!("`{}` read as {other:?}", weight.fqn())),
        }
        if streamed.is_ok() {
            return Err(format!("`{}` streamed from damaged bytes", weight.fqn()));
        }
    }
    let _ = archive.extra_file("x");
    Ok(())
}

#[test]
fn structured_damage_is_refused_or_detected_and_never_panics() {
    let inputs = inputs();
    let mut failures = Vec::new();
    let mut weight_cases = 0;
    let started = Instant::now();
    for case in 0..CASES {
        let input = &inputs[case % inputs.len()];
        let seed = 0x7A1D_0000_0000 | case as u64;
        let mut rng = Rng(seed);
        let (bytes, damage) = damage(input, &mut rng);
        let what = match &damage {
            Damage::Any(what) => what.clone(),
            Damage::Weight(entry) => {
                weight_cases += 1;
                format!("bits of `{entry}` flipped")
            }
        };
        let case_started = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| exercise(input, bytes, &damage)));
        let took = case_started.elapsed();
        let context = format!("{} seed {seed:#x} ({what})", input.name);
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(failure)) => failures.push(format!("{context}: {failure}")),
            Err(panic) => {
                failures.push(format!("{context}: panicked: {}", panic_message(&*panic)));
            }
        }
        if took > MAX_CASE_TIME {
            failures.push(format!("{context}: took {took:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        weight_cases >= CASES / 10,
        "only {weight_cases} weight cases"
    );
    eprintln!(
        "{CASES} cases over {} inputs in {:?}",
        inputs.len(),
        started.elapsed()
    );
}
