//! What the real plugins report about an executable: compiled memory statistics and cost
//! analysis.

mod common;

use tpuc_pjrt::{CompileOptions, Program};

use common::{SHARDED_4_WAY, cpu, tpu};

const M: i64 = 128;
const K: i64 = 256;
const N: i64 = 512;
const F32_BYTES: i64 = 4;

/// tanh(x · w) for x: MxK, w: KxN.
const MATMUL_TANH: &str = r#"
func.func @main(%x: tensor<128x256xf32>, %w: tensor<256x512xf32>) -> tensor<128x512xf32> {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<128x256xf32>, tensor<256x512xf32>) -> tensor<128x512xf32>
  %t = stablehlo.tanh %d : tensor<128x512xf32>
  return %t : tensor<128x512xf32>
}
"#;

const ARGUMENT_BYTES: i64 = (M * K + K * N) * F32_BYTES;
const OUTPUT_BYTES: i64 = M * N * F32_BYTES;

#[test]
fn libtpu_reports_memory_and_cost_of_an_aot_compile() {
    tpuc_expect::skip_without!(TpuPlugin);
    let topology = tpu().topology("v5e:2x2").unwrap();
    let exe = topology
        .compile(&Program::mlir(MATMUL_TANH), &CompileOptions::new())
        .unwrap();
    let report = exe.report().unwrap();
    eprintln!("libtpu v5e:2x2: {report:?}");

    let memory = report.memory.expect("libtpu reports memory statistics");
    assert_eq!(memory.argument_bytes, ARGUMENT_BYTES);
    assert_eq!(memory.output_bytes, OUTPUT_BYTES);
    assert_eq!(memory.alias_bytes, 0);
    assert!(memory.generated_code_bytes > 0, "{memory:?}");
    let peak = memory
        .peak_bytes
        .expect("libtpu is newer than PJRT C API 0.72");
    assert!(peak >= ARGUMENT_BYTES + OUTPUT_BYTES, "{memory:?}");

    let cost = report.cost.expect("libtpu reports a cost analysis");
    // A multiply and an add per term of each dot product; one tanh per output element.
    assert_eq!(cost.flops, Some((2 * M * K * N) as f64));
    assert_eq!(cost.transcendentals, Some((M * N) as f64));
    let bytes_accessed = cost.bytes_accessed.unwrap();
    assert!(
        bytes_accessed >= (ARGUMENT_BYTES + OUTPUT_BYTES) as f64,
        "{cost:?}"
    );
    let seconds = cost.optimal_seconds.expect("libtpu estimates a matmul");
    assert!(seconds > 0.0 && seconds < 1.0, "{cost:?}");
    // The per-operand and output traffic is there under XLA's own names.
    assert!(
        cost.properties.contains_key("bytes accessedout{}"),
        "{cost:?}"
    );
    assert!(!cost.properties.contains_key("flops"));
}

#[test]
fn libtpu_reports_one_devices_share_of_a_sharded_program() {
    tpuc_expect::skip_without!(TpuPlugin);
    let topology = tpu().topology("v5e:2x2").unwrap();
    let options = CompileOptions::new()
        .partition_devices(&[0, 1, 2, 3])
        .shardy(true);
    let exe = topology
        .compile(&Program::mlir(SHARDED_4_WAY), &options)
        .unwrap();
    let report = exe.report().unwrap();
    let memory = report.memory.unwrap();
    // Each device holds half of x's rows and half of w's columns, and a quarter of the result.
    assert_eq!(memory.argument_bytes, (128 * 512 + 512 * 64) * F32_BYTES);
    assert_eq!(memory.output_bytes, 128 * 64 * F32_BYTES);
    let cost = report.cost.unwrap();
    assert_eq!(cost.flops, Some((2 * 128 * 512 * 64) as f64));
}

#[test]
fn xla_cpu_reports_memory_but_no_cost_analysis() {
    tpuc_expect::skip_without!(CpuPlugin);
    let client = cpu().cpu_client(1).unwrap();
    let loaded = client
        .compile(&Program::mlir(MATMUL_TANH), &CompileOptions::new())
        .unwrap();
    let report = loaded.executable().unwrap().report().unwrap();
    eprintln!("XLA:CPU: {report:?}");
    let memory = report.memory.as_ref().expect("XLA:CPU reports memory");
    assert_eq!(memory.argument_bytes, ARGUMENT_BYTES);
    assert_eq!(memory.output_bytes, OUTPUT_BYTES);
    assert_eq!(memory.temp_bytes, 0);
    assert_eq!(
        memory.peak_bytes,
        Some(ARGUMENT_BYTES + OUTPUT_BYTES),
        "{memory:?}"
    );
    // The CPU plugin answers UNIMPLEMENTED, which is "nothing to report", not an error.
    assert_eq!(report.cost, None);

    // A deserialized executable reports the same.
    let again = client.deserialize(&loaded.serialize().unwrap()).unwrap();
    assert_eq!(again.executable().unwrap().report().unwrap(), report);
}
