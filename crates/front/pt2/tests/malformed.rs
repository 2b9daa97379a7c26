//! The malformed-archive corpus (testdata/malformed, rebuilt by
//! `cargo run -p tpuc-pt2 --example make_malformed`): each damaged archive must be refused with
//! its specific diagnostic, naming the file and saying what to do.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use miette::Diagnostic;
use tpuc_pt2::{Archive, Pt2Error};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../testdata/malformed")
}

/// Reads the bytes of every weight, as `tpuc run` does.
fn read_weights(archive: &Archive) -> Result<(), Pt2Error> {
    for weight in archive.weights() {
        archive.view(weight).to_contiguous_bytes()?;
    }
    Ok(())
}

/// Codes marked `read:` in expected.json: the archive opens, reading its weights fails.
fn read_code(code: &str) -> Option<&str> {
    code.strip_prefix("read:")
}

fn expected() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(corpus().join("expected.json")).expect("expected.json");
    serde_json::from_str(&text).expect("expected.json maps file names to codes")
}

/// Opens the archive and, when it opens, reads its weights: the first error, if any.
fn open_and_read(path: &Path) -> Result<(), Pt2Error> {
    read_weights(&Archive::open(path)?)
}

#[test]
fn each_damaged_archive_gets_its_diagnostic() {
    let expected = expected();
    assert!(expected.len() >= 30, "the corpus is incomplete");
    let mut failures = Vec::new();
    for (file, code) in &expected {
        let path = corpus().join(file);
        if let Some(read) = read_code(code)
            && let Err(error) = Archive::open(&path)
        {
            failures.push(format!(
                "{file}: {error}, expected to open and fail with {read}"
            ));
            continue;
        }
        let code = read_code(code).unwrap_or(code);
        match (open_and_read(&path), code) {
            (Ok(()), "ok") => {}
            (Ok(()), _) => failures.push(format!("{file}: opened and read, expected {code}")),
            (Err(error), "ok") => failures.push(format!("{file}: {error}")),
            (Err(error), _) => {
                let actual = error.code_str();
                if actual != *code {
                    failures.push(format!("{file}: got {actual} ({error}), expected {code}"));
                }
                let help = error.help().map(|h| h.to_string()).unwrap_or_default();
                if help.len() < 20 {
                    failures.push(format!("{file}: no useful help: {help:?}"));
                }
                let message = error.to_string();
                if !message.contains(file.as_str()) && actual != "tpuc::pt2::view_too_large" {
                    failures.push(format!(
                        "{file}: message does not name the archive: {message}"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_table_lists_every_corpus_file() {
    let expected = expected();
    for entry in std::fs::read_dir(corpus()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".pt2") {
            assert!(
                expected.contains_key(&name),
                "{name} is not in expected.json"
            );
        }
    }
}

#[test]
fn the_same_bytes_in_memory_give_the_same_error() {
    for (file, code) in expected() {
        let bytes = std::fs::read(corpus().join(&file)).unwrap();
        let result = Archive::from_bytes(&file, bytes).and_then(|a| read_weights(&a));
        let code = read_code(&code).unwrap_or(&code);
        match result {
            Ok(()) => assert_eq!(code, "ok", "{file}"),
            Err(error) => assert_eq!(error.code_str(), code, "{file}"),
        }
    }
}

#[test]
fn a_missing_file_is_an_io_error() {
    let error = Archive::open(corpus().join("no_such_file.pt2")).unwrap_err();
    assert_eq!(error.code_str(), "tpuc::pt2::io");
}

#[test]
fn messages_name_the_culprit() {
    let cases = [
        ("legacy_flat_2_7.pt2", "torch 2.7"),
        ("pickled_weights_2_8.pt2", "torch 2.8.0"),
        (
            "schema_major_7.pt2",
            "torch 2.5.1 with export schema 7.3, older",
        ),
        (
            "schema_major_9_unparseable.pt2",
            "schema 9.0, newer than this tpuc knows",
        ),
        ("deflate_compressed_json.pt2", "mlp/models/model.json"),
        ("unknown_dtype_code.pt2", "`fc1.weight`"),
        ("unknown_dtype_code.pt2", "code 99"),
        ("view_beyond_storage.pt2", "mlp/data/weights/weight_0"),
        ("dotdot_entry_name.pt2", "mlp/../byteorder"),
        ("custom_obj_constant.pt2", "custom_obj_0"),
        ("use_pickle_weight.pt2", "`fc1.weight`"),
        (
            "local_extra_length_plus_64.pt2",
            "mlp/data/weights/weight_0",
        ),
        ("local_padding_record_plus_64.pt2", "next record"),
        ("json_bit_flipped.pt2", "mlp/models/model.json"),
    ];
    for (file, needle) in cases {
        let error = Archive::open(corpus().join(file)).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains(needle),
            "{file}: `{message}` lacks `{needle}`"
        );
    }
}

#[test]
fn a_flipped_weight_bit_is_found_when_the_weight_is_read() {
    let path = corpus().join("weight_bit_flipped.pt2");
    // Opening reads no weight bytes, so it succeeds, as fast as ever.
    let archive = Archive::open(&path).expect("the zip structure and JSON are intact");
    let error = archive
        .tensor("fc1.weight")
        .unwrap()
        .to_contiguous_bytes()
        .unwrap_err();
    assert_eq!(error.code_str(), "tpuc::pt2::zip::checksum");
    let message = error.to_string();
    for needle in [
        "weight_bit_flipped.pt2",
        "`mlp/data/weights/weight_0`",
        "0x",
    ] {
        assert!(message.contains(needle), "`{message}` lacks `{needle}`");
    }
    // The check is cached per record, and other records are unaffected.
    assert!(archive.tensor("fc1.weight").unwrap().storage().is_err());
    assert!(
        archive
            .tensor("fc1.bias")
            .unwrap()
            .to_contiguous_bytes()
            .is_ok()
    );
}
