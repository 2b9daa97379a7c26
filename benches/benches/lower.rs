//! From opening a `.pt2` to StableHLO text (front end, middle end, printer): what `tpuc lower`
//! does, for the largest fixture and for `bert.core.pt2`. Goals on a 2-core machine: under
//! 20 ms for the largest (the Python peers take 0.2–5 s in process), under 5 ms for bert.core.
//!
//!     cargo bench -p tpuc-benches --bench lower

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use tpuc_driver::{Emit, Options};

fn bench_lower(c: &mut Criterion) {
    let options = Options::default();
    let mut group = c.benchmark_group("lower");
    let bert = tpuc_benches::fixture_dir().join("bert.core.pt2");
    for path in [tpuc_benches::largest_fixture(), bert] {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for (label, emit) in [
            ("stablehlo", Emit::Stablehlo),
            ("stablehlo_generic", Emit::StablehloGeneric),
        ] {
            group.bench_function(format!("{label}/{name}"), |b| {
                b.iter(|| {
                    tpuc_driver::emit(black_box(&path), emit, &options).expect("fixture lowers")
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_lower);
criterion_main!(benches);
