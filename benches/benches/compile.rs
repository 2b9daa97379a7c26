//! `tpuc compile` of the largest fixture for `tpu:v5e:2x2`, cold (empty cache: lower, compile
//! with libtpu, store) against warm (front-end and compile keys hit: no lowering, no plugin,
//! no weight bytes). Goal: warm under 5% of cold.
//!
//!     cargo bench -p tpuc-benches --bench compile
//!
//! Both run in one process, so the cold compile does not pay for loading libtpu, and the
//! plugin's digest is remembered as it is on a machine that has compiled before: the ratio is
//! the conservative one.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use tpuc_benches::{copy_dir, largest_fixture};
use tpuc_cache::{Cache, Mode};
use tpuc_driver::{CacheTiers, Options, Origin, PluginPaths, Target, compile};

fn bench(c: &mut Criterion) {
    let model = largest_fixture();
    let targets = [Target::Tpu {
        topology: "v5e:2x2".to_owned(),
    }];
    let options = Options::default();
    let plugins = PluginPaths::default();
    let warm_dir = tempfile::tempdir().unwrap();
    let warm = CacheTiers::from(Cache::open(warm_dir.path(), Mode::ReadWrite));
    let first = compile(&model, &targets, &options, &plugins, &warm).expect("compiles");
    assert_eq!(first.compiled[0].origin, Origin::Compiled);
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
                let cache = CacheTiers::from(Cache::open(dir.path(), Mode::ReadWrite));
                let report = compile(&model, &targets, &options, &plugins, &cache).unwrap();
                assert!(!report.frontend_hit && report.compiled[0].origin == Origin::Compiled);
                dir
            },
        )
    });
    group.bench_function("warm", |b| {
        b.iter(|| {
            let report = compile(&model, &targets, &options, &plugins, &warm).unwrap();
            assert!(
                report.frontend_hit && report.compiled[0].origin == Origin::Local,
                "warm compile missed: {:?}",
                report.warnings
            );
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
