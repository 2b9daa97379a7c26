//! `tpuc compile` of the largest fixture for `tpu:v5e:2x2`, cold (empty cache: lower, compile
//! with libtpu, store) against warm (front-end and compile keys hit: no lowering, no plugin,
//! no weight bytes). Goal: warm under 5% of cold.
//!
//!     cargo bench -p tpuc-benches --bench compile
//!
//! Both run in one process, so the cold compile does not pay for loading libtpu, and the
//! plugin's digest is remembered as it is on a machine that has compiled before: the ratio is
//! the conservative one.

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use tpuc_cache::{Cache, Mode};
use tpuc_driver::{LowerOptions, PluginPaths, Target, compile};

fn largest_fixture() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/models");
    std::fs::read_dir(&dir)
        .expect("testdata/models")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "pt2"))
        .max_by_key(|p| p.metadata().map(|m| m.len()).unwrap_or(0))
        .expect("a .pt2 fixture")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

fn bench(c: &mut Criterion) {
    let model = largest_fixture();
    let targets = [Target::Tpu {
        topology: "v5e:2x2".to_owned(),
    }];
    let options = LowerOptions::default();
    let plugins = PluginPaths::default();
    let warm_dir = tempfile::tempdir().unwrap();
    let warm = Cache::open(warm_dir.path(), Mode::ReadWrite);
    let first = compile(&model, &targets, &options, &plugins, &warm).expect("compiles");
    assert!(!first.compiled[0].hit);
    let memo = warm_dir.path().join("v1/memo");

    let name = model.file_name().unwrap().to_string_lossy().into_owned();
    let mut group = c.benchmark_group(format!("compile/{name}/tpu:v5e:2x2"));
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("cold", |b| {
        b.iter_with_setup(
            || {
                let dir = tempfile::tempdir().unwrap();
                copy_dir(&memo, &dir.path().join("v1/memo"));
                dir
            },
            |dir| {
                let cache = Cache::open(dir.path(), Mode::ReadWrite);
                let report = compile(&model, &targets, &options, &plugins, &cache).unwrap();
                assert!(!report.frontend_hit && !report.compiled[0].hit);
                dir
            },
        )
    });
    group.bench_function("warm", |b| {
        b.iter(|| {
            let report = compile(&model, &targets, &options, &plugins, &warm).unwrap();
            assert!(
                report.frontend_hit && report.compiled[0].hit,
                "warm compile missed: {:?}",
                report.warnings
            );
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
