//! Opening the largest fixture archive: mmap, zip directory, program JSON and weight validation,
//! then walking the metadata a CLI `inspect` shows (goal: well under 10 ms); and reading every
//! weight, with and without the first-read CRC-32 checks.
//!
//!     cargo bench -p tpuc-benches --bench pt2_open

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use tpuc_pt2::Archive;

/// Reads what `tpuc inspect` prints: signature, shapes, op histogram, weight table.
fn read_metadata(archive: &Archive) -> usize {
    let mut touched = archive.user_inputs().len() + archive.user_outputs().len();
    let (top, sub) = archive.graph().op_histograms();
    touched += top.len() + sub.len();
    for meta in archive.graph().tensor_values.values() {
        touched += meta.shape().map(|s| s.len()).unwrap_or(0);
    }
    for weight in archive.weights() {
        touched += archive.view(weight).numel();
    }
    touched + archive.storage_bytes() as usize
}

/// The contiguous bytes of every weight, as `tpuc run` reads them; their total length.
fn read_all_weights(archive: &Archive) -> usize {
    archive
        .weights()
        .map(|w| {
            archive
                .view(w)
                .to_contiguous_bytes()
                .expect("weights read")
                .len()
        })
        .sum()
}

fn bench_open(c: &mut Criterion) {
    let path = tpuc_benches::largest_fixture();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut group = c.benchmark_group("pt2_open");
    group.bench_function(format!("open/{name}"), |b| {
        b.iter(|| Archive::open(black_box(&path)).expect("fixture opens"))
    });
    group.bench_function(format!("open_and_read_metadata/{name}"), |b| {
        b.iter(|| {
            let archive = Archive::open(black_box(&path)).expect("fixture opens");
            black_box(read_metadata(&archive))
        })
    });
    // A fresh archive each time: the first read of each storage checks its CRC-32.
    group.bench_function(format!("open_and_read_all_weights/{name}"), |b| {
        b.iter(|| read_all_weights(&Archive::open(black_box(&path)).expect("fixture opens")))
    });
    // The same archive each time: CRC-32s checked once, then only the copies.
    let archive = Archive::open(&path).expect("fixture opens");
    group.bench_function(format!("read_all_weights/{name}"), |b| {
        b.iter(|| read_all_weights(&archive))
    });
    group.finish();
}

criterion_group!(benches, bench_open);
criterion_main!(benches);
