//! Shared by the integration tests: the real plugins, found the way the CLI finds them.
#![allow(dead_code)]

use miette::Diagnostic;
use tpuc_pjrt::{Plugin, PluginKind, locate};

/// The installed plugin of `kind`; a missing plugin fails the test with the install hint.
pub fn plugin(kind: PluginKind) -> &'static Plugin {
    match locate(kind, None).and_then(Plugin::load) {
        Ok(plugin) => plugin,
        Err(error) => match error.help() {
            Some(help) => panic!("{error}\n{help}"),
            None => panic!("{error}"),
        },
    }
}

pub fn cpu() -> &'static Plugin {
    plugin(PluginKind::Cpu)
}

pub fn tpu() -> &'static Plugin {
    plugin(PluginKind::Tpu)
}

pub fn assert_close(actual: &[f32], expected: &[f32], tolerance: f32) {
    assert_eq!(actual.len(), expected.len(), "{actual:?} vs {expected:?}");
    for (index, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!(
            (a - e).abs() <= tolerance,
            "element {index}: {a} vs {e} (all: {actual:?} vs {expected:?})"
        );
    }
}
