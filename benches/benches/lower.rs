//! From opening a `.pt2` to StableHLO text, for the largest fixture: what `tpuc lower` does.
//! Goal: under 20 ms on a 2-core machine (the Python peers take 0.2–5 s in process).
//!
//!     cargo bench -p tpuc-benches --bench lower

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use tpuc_driver::{Emit, Options};

fn bench_lower(c: &mut Criterion) {
    let path = tpuc_benches::largest_fixture();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let options = Options::default();
    let mut group = c.benchmark_group("lower");
    for (label, emit) in [
        ("stablehlo", Emit::Stablehlo),
        ("stablehlo_generic", Emit::StablehloGeneric),
    ] {
        group.bench_function(format!("{label}/{name}"), |b| {
            b.iter(|| tpuc_driver::emit(black_box(&path), emit, &options).expect("fixture lowers"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_lower);
criterion_main!(benches);
