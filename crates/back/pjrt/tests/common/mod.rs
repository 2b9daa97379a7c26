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

/// tanh(x · w) for x: 256x512, w: 512x128, sharded 4 ways over a 2x2 mesh: rows of `x` over
/// "x", columns of `w` over "y".
pub const SHARDED_4_WAY: &str = r#"
module @sharded attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]>
  func.func @main(%x: tensor<256x512xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>},
                  %w: tensor<512x128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>})
      -> (tensor<256x128xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) {
    %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<256x512xf32>, tensor<512x128xf32>) -> tensor<256x128xf32>
    %t = stablehlo.tanh %d : tensor<256x128xf32>
    return %t : tensor<256x128xf32>
  }
}
"#;

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
