//! `tpuc lower --dynamic`: symbolic dimensions stay `?` in one module that reads the symbols
//! from its inputs, checks their exported ranges, and computes every shape from them (jaxlib
//! refines and runs these modules in `scripts/jax_refine_check.py`); fixing every symbol gives
//! the static module; flags a dynamic module cannot serve are refused.

mod support;

use support::{stdout_of, uncached};
use tpuc_expect::expect_file;

/// The reviewed output `name`: `tests/snapshots/dynamic/NAME.txt` (`BLESS=1` rewrites it).
fn snapshot(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots/dynamic")
        .join(format!("{name}.txt"))
}

#[test]
fn dynamic_batch_module_reads_checks_and_uses_its_symbol() {
    let args = ["lower", "--dynamic", "testdata/models/dyn_batch.core.pt2"];
    let text = stdout_of(&args);
    assert_eq!(
        text,
        stdout_of(&args),
        "the dynamic module is deterministic"
    );
    expect_file(snapshot("dyn_batch_core"), &text);
}

#[test]
fn every_dynamic_fixture_keeps_its_symbolic_dimensions() {
    // One check per bound of each symbol, and one per input axis that repeats a symbol.
    for (model, checks) in [
        ("dyn_batch", 2),
        ("dyn_seq", 2),
        ("dyn_conv", 2),
        ("dyn_tokens", 6),
    ] {
        for variant in ["pt2", "core.pt2"] {
            let path = format!("testdata/models/{model}.{variant}");
            let text = stdout_of(&["lower", "--dynamic", &path]);
            let main = text
                .lines()
                .find(|l| l.contains("func.func public @main"))
                .unwrap();
            assert!(
                main.contains('?'),
                "{path}: main has no dynamic dimension: {main}"
            );
            assert_eq!(text.matches("@shape_assertion").count(), checks, "{path}");
            assert!(!text.contains("stablehlo.composite"), "{path} is not fused");
        }
    }
}

#[test]
fn fixing_every_symbol_gives_the_static_module() {
    let dynamic = stdout_of(&[
        "lower",
        "--dynamic",
        "--dim",
        "s27=8",
        "testdata/models/dyn_seq.pt2",
    ]);
    let fixed = stdout_of(&[
        "lower",
        "--no-fuse",
        "--dim",
        "s27=8",
        "testdata/models/dyn_seq.pt2",
    ]);
    assert_eq!(dynamic, fixed);
    assert!(!dynamic.contains('?'));
}

#[test]
fn flags_a_dynamic_module_cannot_serve_are_refused() {
    for flag in [&["--fuse"][..], &["--shard", "tp"], &["--debug"]] {
        let mut args = vec!["lower", "--dynamic", "testdata/models/dyn_seq.pt2"];
        args.extend_from_slice(flag);
        let out = uncached(&args);
        assert!(!out.status.success(), "{args:?} was accepted");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("cannot be used with"), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?} printed a module");
    }
}
