//! libtpu: compile-only for TPU topologies on a machine without TPUs.

mod common;

use std::time::Instant;

use tpuc_pjrt::{CompileOptions, ElementType, Error, Program, Value};

use common::{SHARDED_4_WAY, tpu};

const DENSE_TANH_SUM: &str = r#"
func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<4xf32> {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %t = stablehlo.tanh %d : tensor<8x4xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%t init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
  return %s : tensor<4xf32>
}
"#;

#[test]
fn plugin_and_topology_report_themselves() {
    tpuc_expect::skip_without!(TpuPlugin);
    let plugin = tpu();
    assert!(
        plugin.api_version().minor >= 113,
        "{}",
        plugin.api_version()
    );
    assert!(matches!(
        plugin.attribute("stablehlo_current_version"),
        Some(Value::Int64List(version)) if version.len() == 3
    ));
    let topology = plugin.topology("v5e:2x2").unwrap();
    assert_eq!(topology.platform_name().unwrap(), "tpu");
    assert!(!topology.platform_version().unwrap().is_empty());
    assert_eq!(topology.device_count().unwrap(), 4);
    assert_eq!(
        plugin.topology("v5e:4x4").unwrap().device_count().unwrap(),
        16
    );
}

#[test]
fn compiles_for_two_topologies_without_a_tpu() {
    tpuc_expect::skip_without!(TpuPlugin);
    let plugin = tpu();
    for name in ["v5e:2x2", "v6e:2x2"] {
        let topology = plugin.topology(name).unwrap();
        let started = Instant::now();
        let exe = topology
            .compile(&Program::mlir(DENSE_TANH_SUM), &CompileOptions::new())
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        let compiled = started.elapsed();
        assert_eq!(exe.num_outputs().unwrap(), 1);
        assert_eq!(exe.output_element_types().unwrap(), [ElementType::F32]);
        assert_eq!(exe.output_dims().unwrap(), [vec![4]]);
        let bytes = exe.serialize().unwrap();
        eprintln!("tpu {name}: compile {compiled:?}, {} bytes", bytes.len());
        assert!(bytes.len() > 1000, "{name}: {} bytes", bytes.len());
    }
}

#[test]
fn four_way_spmd_with_shardy_for_v5e_2x2() {
    tpuc_expect::skip_without!(TpuPlugin);
    let topology = tpu().topology("v5e:2x2").unwrap();
    let options = CompileOptions::new()
        .partition_devices(&[0, 1, 2, 3])
        .shardy(true);
    let started = Instant::now();
    let exe = topology
        .compile(&Program::mlir(SHARDED_4_WAY), &options)
        .unwrap();
    let compiled = started.elapsed();
    // Each device produces its own 128x64 shard of the 256x128 result.
    assert_eq!(exe.output_dims().unwrap(), [vec![128, 64]]);
    let bytes = exe.serialize().unwrap();
    eprintln!(
        "tpu v5e:2x2 4-way SPMD: compile {compiled:?}, {} bytes",
        bytes.len()
    );
    assert!(!bytes.is_empty());
}

#[test]
fn errors_come_back_with_the_plugin_message() {
    tpuc_expect::skip_without!(TpuPlugin);
    let plugin = tpu();
    let error = plugin.topology("v5litepod-8").unwrap_err();
    assert!(matches!(
        error,
        Error::Plugin {
            function: "PJRT_TopologyDescription_Create",
            ..
        }
    ));
    // There is no TPU here, so there is no client either: a clean error, not a crash.
    let error = plugin.client().unwrap_err();
    assert!(error.plugin_message().is_some(), "{error:?}");

    let topology = plugin.topology("v5e:2x2").unwrap();
    let text = "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  \
                %y = stablehlo.frobnicate %x : tensor<2xf32>\n  \
                return %y : tensor<2xf32>\n}\n";
    let error = topology
        .compile(&Program::mlir(text), &CompileOptions::new())
        .unwrap_err();
    let message = error
        .plugin_message()
        .unwrap_or_else(|| panic!("{error:?}"));
    assert!(
        message.contains("2:") && message.contains("frobnicate"),
        "{message}"
    );
}
