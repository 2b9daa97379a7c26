//! `compile_module_report` on the real plugins: StableHLO text compiled for a TPU topology and
//! for XLA:CPU, outside the cache, with the compile time and what the plugin says.

use tpuc_driver::{PluginPaths, Target, compile_module_report};

/// x · w for x: 64x128, w: 128x256, in f32.
const MATMUL: &str = r#"
func.func @main(%x: tensor<64x128xf32>, %w: tensor<128x256xf32>) -> tensor<64x256xf32> {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<64x128xf32>, tensor<128x256xf32>) -> tensor<64x256xf32>
  return %d : tensor<64x256xf32>
}
"#;

const ARGUMENT_BYTES: i64 = (64 * 128 + 128 * 256) * 4;
const OUTPUT_BYTES: i64 = 64 * 256 * 4;

#[test]
fn a_tpu_compile_reports_time_memory_and_cost() {
    tpuc_expect::skip_without!(TpuPlugin);
    let target: Target = "tpu:v5e:2x2".parse().unwrap();
    let (time, report) = compile_module_report(MATMUL, &target, &PluginPaths::default()).unwrap();
    assert!(!time.is_zero());
    let memory = report.memory.unwrap();
    assert_eq!(memory.argument_bytes, ARGUMENT_BYTES);
    assert_eq!(memory.output_bytes, OUTPUT_BYTES);
    let cost = report.cost.unwrap();
    assert_eq!(cost.flops, Some(f64::from(2 * 64 * 128 * 256)));
    // libtpu leaves out a count that is zero.
    assert_eq!(cost.transcendentals, None);
    assert!(cost.optimal_seconds.is_some_and(|seconds| seconds > 0.0));
}

#[test]
fn a_cpu_compile_reports_memory_only() {
    tpuc_expect::skip_without!(CpuPlugin);
    let (time, report) =
        compile_module_report(MATMUL, &Target::Cpu { devices: 1 }, &PluginPaths::default())
            .unwrap();
    assert!(!time.is_zero());
    let memory = report.memory.unwrap();
    assert_eq!(memory.argument_bytes, ARGUMENT_BYTES);
    assert_eq!(memory.output_bytes, OUTPUT_BYTES);
    assert_eq!(report.cost, None);
}

#[test]
fn a_module_the_plugin_rejects_is_an_error_with_its_message() {
    tpuc_expect::skip_without!(CpuPlugin);
    let broken = MATMUL.replace("stablehlo.dot_general", "stablehlo.frobnicate");
    let error = compile_module_report(
        &broken,
        &Target::Cpu { devices: 1 },
        &PluginPaths::default(),
    )
    .unwrap_err();
    assert!(error.to_string().contains("frobnicate"), "{error}");
}
