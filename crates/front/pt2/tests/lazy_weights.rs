//! Opening an archive with 1 GiB of weights reads its JSON and headers, not its weights: the
//! process's resident memory barely grows, and reading one weight reads only its own storage. Alone in its test binary so that no other test's
//! allocations disturb the measurement.

#[path = "support/zip_writer.rs"]
mod zip_writer;

use std::path::Path;

use tpuc_pt2::Archive;
use zip_writer::{read_entries, write_zip_to};

const GIB: u64 = 1 << 30;

/// Resident set size of this process, from /proc/self/statm.
fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

#[test]
#[cfg(target_os = "linux")]
fn opening_does_not_read_the_weights() {
    let mlp = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../testdata/models/mlp.pt2");
    let mut entries = read_entries(&std::fs::read(mlp).unwrap());
    // fc1.weight views the start of its storage; give that storage 1 GiB more (a hole on disk).
    let storage = entries
        .iter_mut()
        .find(|e| e.name == "mlp/data/weights/weight_0")
        .unwrap();
    storage.sparse_zeros = GIB;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.pt2");
    write_zip_to(&mut std::fs::File::create(&path).unwrap(), &entries).unwrap();

    let before = resident_bytes();
    let archive = Archive::open(&path).unwrap();
    let grown = resident_bytes().saturating_sub(before);
    assert!(archive.storage_bytes() > GIB);
    assert!(
        grown < 16 << 20,
        "opening grew the resident set by {grown} bytes"
    );

    // Reading a small weight touches only its own storage: checking its CRC-32 reads that
    // record whole, and never the 1 GiB one beside it.
    let fc1_bias = archive.weight("fc1.bias").unwrap();
    assert_ne!(fc1_bias.storage_entry(), "mlp/data/weights/weight_0");
    let view = archive.view(fc1_bias);
    assert_eq!(view.to_contiguous_bytes().unwrap().len(), view.nbytes());
    let grown = resident_bytes().saturating_sub(before);
    assert!(
        grown < 16 << 20,
        "reading fc1.bias grew the resident set by {grown} bytes"
    );
}
