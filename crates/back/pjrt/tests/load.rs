//! Loading plugin libraries.

mod common;

use std::path::Path;

use tpuc_pjrt::{Error, Plugin};

#[test]
fn a_plugin_is_loaded_once() {
    tpuc_expect::skip_without!(CpuPlugin);
    let first = common::cpu();
    let second = Plugin::load(first.path()).unwrap();
    assert!(std::ptr::eq(first, second));
}

#[test]
fn files_that_are_not_plugins_are_refused() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let error = Plugin::load(&manifest).unwrap_err();
    assert!(matches!(error, Error::Load { .. }), "{error:?}");

    let missing = Path::new(env!("CARGO_MANIFEST_DIR")).join("no-such-plugin.so");
    let error = Plugin::load(&missing).unwrap_err();
    assert!(matches!(error, Error::BadPlugin { .. }), "{error:?}");
}
