//! XLA:CPU: compile hand-written StableHLO, move arrays, execute, serialise.

mod common;

use std::time::Instant;

use tpuc_pjrt::{CompileOptions, ElementType, Error, HostElement, Program, Value};

use common::{assert_close, cpu};

/// tanh(x · w + b) for x: 2x3, w: 3x2, b: 2.
const DENSE_TANH: &str = r#"
func.func @main(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>, %b: tensor<2xf32>) -> tensor<2x2xf32> {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<2xf32>) -> tensor<2x2xf32>
  %s = stablehlo.add %d, %bb : tensor<2x2xf32>
  %t = stablehlo.tanh %s : tensor<2x2xf32>
  return %t : tensor<2x2xf32>
}
"#;

const X: [f32; 6] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6];
const W: [f32; 6] = [1.0, -1.0, 0.5, 2.0, -0.25, 0.75];
const B: [f32; 2] = [0.1, -0.2];

/// The same computation in f64 on the host.
fn dense_tanh_reference() -> Vec<f32> {
    let mut out = Vec::new();
    for i in 0..2 {
        for j in 0..2 {
            let dot: f64 = (0..3)
                .map(|k| f64::from(X[i * 3 + k]) * f64::from(W[k * 2 + j]))
                .sum();
            out.push((dot + f64::from(B[j])).tanh() as f32);
        }
    }
    out
}

fn bytes_of<T: HostElement>(values: &[T]) -> Vec<u8> {
    let mut bytes = Vec::new();
    for &value in values {
        value.append_bytes(&mut bytes);
    }
    bytes
}

#[test]
fn plugin_reports_its_versions() {
    tpuc_expect::skip_without!(CpuPlugin);
    let plugin = cpu();
    assert!(
        plugin.api_version().minor >= 113,
        "{}",
        plugin.api_version()
    );
    let Some(Value::Int64List(stablehlo)) = plugin.attribute("stablehlo_current_version") else {
        panic!("no StableHLO version in {:?}", plugin.attributes());
    };
    assert_eq!(stablehlo.len(), 3);
    assert!(plugin.attribute("stablehlo_minimum_version").is_some());
    assert!(plugin.attribute("xla_version").is_some());
    let client = plugin.cpu_client(3).unwrap();
    assert_eq!(client.platform_name().unwrap(), "cpu");
    assert_eq!(client.device_count(), 3);
}

#[test]
fn dot_add_tanh_match_the_host_reference() {
    tpuc_expect::skip_without!(CpuPlugin);
    let client = cpu().cpu_client(1).unwrap();
    let started = Instant::now();
    let exe = client
        .compile(&Program::mlir(DENSE_TANH), &CompileOptions::new())
        .unwrap();
    let compiled = started.elapsed();
    let x = client.buffer_from_slice(&X, &[2, 3], 0).unwrap();
    let w = client.buffer_from_slice(&W, &[3, 2], 0).unwrap();
    let b = client.buffer_from_slice(&B, &[2], 0).unwrap();
    let started = Instant::now();
    let out = exe.execute(&[&[&x, &w, &b]]).unwrap();
    let executed = started.elapsed();
    eprintln!("cpu: compile {compiled:?}, first execute {executed:?}");
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].len(), 1);
    assert_eq!(out[0][0].dims().unwrap(), [2, 2]);
    assert_eq!(out[0][0].element_type().unwrap(), ElementType::F32);
    assert_close(
        &out[0][0].to_vec::<f32>().unwrap(),
        &dense_tanh_reference(),
        1e-6,
    );
}

/// Host bytes handed over in place become the device buffer itself on XLA:CPU (when aligned):
/// no copy, and the program computes from them; copied bytes live elsewhere.
#[test]
fn aligned_host_bytes_are_used_in_place() {
    tpuc_expect::skip_without!(CpuPlugin);
    let client = cpu().cpu_client(1).unwrap();
    let exe = client
        .compile(&Program::mlir(DENSE_TANH), &CompileOptions::new())
        .unwrap();
    // 64-byte aligned storage, as weights lie in a mapped archive.
    #[repr(align(64))]
    struct Aligned([u8; 64]);
    let mut storage = [Aligned([0; 64]), Aligned([0; 64]), Aligned([0; 64])];
    for (slot, values) in storage.iter_mut().zip([&X[..], &W[..], &B[..]]) {
        let bytes = bytes_of(values);
        slot.0[..bytes.len()].copy_from_slice(&bytes);
    }
    let [x, w, b] = &storage;
    let x_in_place = client
        .buffer_in_place(&x.0[..24], ElementType::F32, &[2, 3], 0)
        .unwrap();
    assert_eq!(
        x_in_place.device_address().unwrap(),
        x.0.as_ptr() as usize,
        "the device buffer is the host memory"
    );
    let w_in_place = client
        .buffer_in_place(&w.0[..24], ElementType::F32, &[3, 2], 0)
        .unwrap();
    let b_copied = client
        .buffer_from_host(&b.0[..8], ElementType::F32, &[2], 0)
        .unwrap();
    assert_ne!(b_copied.device_address().unwrap(), b.0.as_ptr() as usize);
    let out = exe
        .execute(&[&[&x_in_place, &w_in_place, &b_copied]])
        .unwrap();
    assert_close(
        &out[0][0].to_vec::<f32>().unwrap(),
        &dense_tanh_reference(),
        1e-6,
    );
}

/// Every element type with a byte-sized host form goes to the device, through a compiled
/// transpose, and back.
#[test]
fn every_dtype_round_trips_through_a_transpose() {
    tpuc_expect::skip_without!(CpuPlugin);
    let client = cpu().cpu_client(1).unwrap();
    let f16_bits: [u16; 6] = [0x3C00, 0xC000, 0x3800, 0x0000, 0x7BFF, 0x0001];
    let bf16_bits: [u16; 6] = [0x3F80, 0xC000, 0x3F00, 0x0000, 0x7F7F, 0x4049];
    let cases: Vec<(ElementType, Vec<u8>)> = vec![
        (
            ElementType::Pred,
            bytes_of(&[true, false, false, true, true, false]),
        ),
        (ElementType::S8, bytes_of(&[-128i8, -1, 0, 1, 2, 127])),
        (
            ElementType::S16,
            bytes_of(&[-32768i16, -1, 0, 1, 300, 32767]),
        ),
        (
            ElementType::S32,
            bytes_of(&[i32::MIN, -1, 0, 1, 70000, i32::MAX]),
        ),
        (
            ElementType::S64,
            bytes_of(&[i64::MIN, -1, 0, 1, 1 << 40, i64::MAX]),
        ),
        (ElementType::U8, bytes_of(&[0u8, 1, 2, 127, 128, 255])),
        (
            ElementType::U16,
            bytes_of(&[0u16, 1, 2, 300, 40000, u16::MAX]),
        ),
        (
            ElementType::U32,
            bytes_of(&[0u32, 1, 2, 70000, 1 << 31, u32::MAX]),
        ),
        (
            ElementType::U64,
            bytes_of(&[0u64, 1, 2, 1 << 40, 1 << 63, u64::MAX]),
        ),
        (ElementType::F16, bytes_of(&f16_bits)),
        (ElementType::Bf16, bytes_of(&bf16_bits)),
        (
            ElementType::F32,
            bytes_of(&[1.5f32, -2.0, 0.0, 1e-30, 3.4e38, -0.125]),
        ),
        (
            ElementType::F64,
            bytes_of(&[1.5f64, -2.0, 0.0, 1e-300, 1e300, -0.125]),
        ),
        (
            ElementType::C64,
            bytes_of(&[
                1.0f32, -1.0, 2.0, 0.5, 0.0, 3.0, -4.0, 0.25, 5.0, 6.0, 7.0, -8.0,
            ]),
        ),
        (
            ElementType::C128,
            bytes_of(&[
                1.0f64, -1.0, 2.0, 0.5, 0.0, 3.0, -4.0, 0.25, 5.0, 6.0, 7.0, -8.0,
            ]),
        ),
        (
            ElementType::F8E4M3FN,
            vec![0x38, 0xB8, 0x40, 0x00, 0x7E, 0x01],
        ),
        (
            ElementType::F8E5M2,
            vec![0x3C, 0xBC, 0x40, 0x00, 0x7B, 0x01],
        ),
    ];
    for (element_type, input) in cases {
        let ty = element_type.mlir_name();
        let text = format!(
            "func.func @main(%x: tensor<2x3x{ty}>) -> tensor<3x2x{ty}> {{\n  \
               %y = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3x{ty}>) -> tensor<3x2x{ty}>\n  \
               return %y : tensor<3x2x{ty}>\n}}\n"
        );
        let exe = client
            .compile(&Program::mlir(&text), &CompileOptions::new())
            .unwrap_or_else(|error| panic!("{ty}: {error}"));
        let x = client
            .buffer_from_host(&input, element_type, &[2, 3], 0)
            .unwrap();
        assert_eq!(x.element_type().unwrap(), element_type);
        assert_eq!(x.dims().unwrap(), [2, 3]);
        assert_eq!(x.to_host().unwrap(), input, "{ty}: host -> device -> host");

        let out = exe.execute(&[&[&x]]).unwrap();
        let y = &out[0][0];
        assert_eq!(y.element_type().unwrap(), element_type);
        assert_eq!(y.dims().unwrap(), [3, 2]);
        let width = element_type.byte_width().unwrap();
        let expected: Vec<u8> = (0..6)
            .flat_map(|out_index| {
                let (j, i) = (out_index / 2, out_index % 2);
                let in_index = i * 3 + j;
                input[in_index * width..(in_index + 1) * width].to_vec()
            })
            .collect();
        assert_eq!(y.to_host().unwrap(), expected, "{ty}: transpose");
    }
}

/// Arithmetic in narrow and wrapping types gives the bits the types define.
#[test]
fn narrow_type_arithmetic() {
    tpuc_expect::skip_without!(CpuPlugin);
    let client = cpu().cpu_client(1).unwrap();
    let bf16 = |values: &[f32]| -> Vec<u8> {
        bytes_of(
            &values
                .iter()
                .map(|v| (v.to_bits() >> 16) as u16)
                .collect::<Vec<_>>(),
        )
    };
    // (type, binary op, lhs, rhs, expected), all as host bytes.
    type Case = (ElementType, &'static str, Vec<u8>, Vec<u8>, Vec<u8>);
    let cases: Vec<Case> = vec![
        (
            ElementType::Bf16,
            "add",
            bf16(&[1.5, 2.25]),
            bf16(&[0.25, -4.0]),
            bf16(&[1.75, -1.75]),
        ),
        (
            ElementType::F16,
            "multiply",
            bytes_of(&[0x3E00u16, 0x3800]), // 1.5, 0.5
            bytes_of(&[0x4000u16, 0xC400]), // 2, -4
            bytes_of(&[0x4200u16, 0xC000]), // 3, -2
        ),
        (
            ElementType::S8,
            "add",
            bytes_of(&[127i8, -128]),
            bytes_of(&[1i8, -1]),
            bytes_of(&[-128i8, 127]),
        ),
        (
            ElementType::S64,
            "multiply",
            bytes_of(&[3_000_000_000i64, -7]),
            bytes_of(&[3i64, 6]),
            bytes_of(&[9_000_000_000i64, -42]),
        ),
        (
            ElementType::U32,
            "subtract",
            bytes_of(&[0u32, 5]),
            bytes_of(&[1u32, 2]),
            bytes_of(&[u32::MAX, 3]),
        ),
        (
            ElementType::Pred,
            "xor",
            bytes_of(&[true, true]),
            bytes_of(&[true, false]),
            bytes_of(&[false, true]),
        ),
    ];
    for (element_type, op, a, b, expected) in cases {
        let ty = format!("tensor<2x{}>", element_type.mlir_name());
        let text = format!(
            "func.func @main(%a: {ty}, %b: {ty}) -> {ty} {{\n  \
               %c = stablehlo.{op} %a, %b : {ty}\n  \
               return %c : {ty}\n}}\n"
        );
        let exe = client
            .compile(&Program::mlir(&text), &CompileOptions::new())
            .unwrap();
        let a = client.buffer_from_host(&a, element_type, &[2], 0).unwrap();
        let b = client.buffer_from_host(&b, element_type, &[2], 0).unwrap();
        let out = exe.execute(&[&[&a, &b]]).unwrap();
        assert_eq!(out[0][0].to_host().unwrap(), expected, "{ty} {op}");
    }
}

#[test]
fn serialized_executables_reload_and_give_the_same_numbers() {
    tpuc_expect::skip_without!(CpuPlugin);
    let client = cpu().cpu_client(1).unwrap();
    let exe = client
        .compile(&Program::mlir(DENSE_TANH), &CompileOptions::new())
        .unwrap();
    let x = client.buffer_from_slice(&X, &[2, 3], 0).unwrap();
    let w = client.buffer_from_slice(&W, &[3, 2], 0).unwrap();
    let b = client.buffer_from_slice(&B, &[2], 0).unwrap();
    let before = exe.execute(&[&[&x, &w, &b]]).unwrap()[0][0]
        .to_host()
        .unwrap();

    let started = Instant::now();
    let bytes = exe.serialize().unwrap();
    let serialized = started.elapsed();
    let started = Instant::now();
    let reloaded = client.deserialize(&bytes).unwrap();
    eprintln!(
        "cpu: serialize {serialized:?} ({} bytes), deserialize {:?}",
        bytes.len(),
        started.elapsed()
    );
    assert_eq!(reloaded.num_outputs(), 1);
    let after = reloaded.execute(&[&[&x, &w, &b]]).unwrap()[0][0]
        .to_host()
        .unwrap();
    assert_eq!(before, after);

    // A second client of the same plugin loads the same bytes too.
    let other = cpu().cpu_client(1).unwrap();
    let elsewhere = other.deserialize(&bytes).unwrap();
    let x = other.buffer_from_slice(&X, &[2, 3], 0).unwrap();
    let w = other.buffer_from_slice(&W, &[3, 2], 0).unwrap();
    let b = other.buffer_from_slice(&B, &[2], 0).unwrap();
    let there = elsewhere.execute(&[&[&x, &w, &b]]).unwrap()[0][0]
        .to_host()
        .unwrap();
    assert_eq!(before, there);
}

#[test]
fn output_counts_types_and_dims() {
    tpuc_expect::skip_without!(CpuPlugin);
    let client = cpu().cpu_client(1).unwrap();
    let text = r#"
func.func @main(%x: tensor<2x2xf32>, %n: tensor<3xi32>) -> (tensor<2x2xf32>, tensor<3xi32>, tensor<i1>) {
  %y = stablehlo.negate %x : tensor<2x2xf32>
  %m = stablehlo.multiply %n, %n : tensor<3xi32>
  %t = stablehlo.constant dense<true> : tensor<i1>
  return %y, %m, %t : tensor<2x2xf32>, tensor<3xi32>, tensor<i1>
}
"#;
    let exe = client
        .compile(&Program::mlir(text), &CompileOptions::new())
        .unwrap();
    assert_eq!(exe.num_outputs(), 3);
    let executable = exe.executable().unwrap();
    assert_eq!(
        executable.output_element_types().unwrap(),
        [ElementType::F32, ElementType::S32, ElementType::Pred]
    );
    assert_eq!(
        executable.output_dims().unwrap(),
        [vec![2, 2], vec![3], vec![]]
    );

    let x = client
        .buffer_from_slice(&[1.0f32, -2.0, 3.0, -4.0], &[2, 2], 0)
        .unwrap();
    let n = client
        .buffer_from_slice(&[-3i32, 0, 46341], &[3], 0)
        .unwrap();
    let out = exe.execute(&[&[&x, &n]]).unwrap();
    assert_eq!(out[0].len(), 3);
    assert_eq!(out[0][0].to_vec::<f32>().unwrap(), [-1.0, 2.0, -3.0, 4.0]);
    // 46341² overflows i32 and wraps.
    assert_eq!(
        out[0][1].to_vec::<i32>().unwrap(),
        [9, 0, 46341i32.wrapping_mul(46341)]
    );
    assert_eq!(out[0][2].dims().unwrap(), Vec::<i64>::new());
    assert_eq!(out[0][2].to_vec::<bool>().unwrap(), [true]);
}

/// 2-way SPMD with Shardy: each device gets its row shard of `x` and the whole `w`, and the
/// shards of the result put together equal the 1-device run.
#[test]
fn two_device_spmd_with_shardy_matches_one_device() {
    tpuc_expect::skip_without!(CpuPlugin);
    let plugin = cpu();
    let sharded = r#"
module @dense attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main(%x: tensor<4x3xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>},
                  %w: tensor<3x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>})
      -> (tensor<4x2xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) {
    %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
    %t = stablehlo.tanh %d : tensor<4x2xf32>
    return %t : tensor<4x2xf32>
  }
}
"#;
    let single = r#"
func.func @main(%x: tensor<4x3xf32>, %w: tensor<3x2xf32>) -> tensor<4x2xf32> {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
  %t = stablehlo.tanh %d : tensor<4x2xf32>
  return %t : tensor<4x2xf32>
}
"#;
    let x: Vec<f32> = (0..12).map(|i| i as f32 * 0.1 - 0.5).collect();

    let one = plugin.cpu_client(1).unwrap();
    let exe = one
        .compile(&Program::mlir(single), &CompileOptions::new())
        .unwrap();
    let xb = one.buffer_from_slice(&x, &[4, 3], 0).unwrap();
    let wb = one.buffer_from_slice(&W, &[3, 2], 0).unwrap();
    let expected = exe.execute(&[&[&xb, &wb]]).unwrap()[0][0]
        .to_vec::<f32>()
        .unwrap();

    let two = plugin.cpu_client(2).unwrap();
    let options = CompileOptions::new()
        .partition_devices(&[0, 1])
        .shardy(true);
    let started = Instant::now();
    let exe = two.compile(&Program::mlir(sharded), &options).unwrap();
    eprintln!("cpu: 2-way SPMD compile {:?}", started.elapsed());
    assert_eq!(exe.device_count(), 2);
    let x0 = two.buffer_from_slice(&x[..6], &[2, 3], 0).unwrap();
    let x1 = two.buffer_from_slice(&x[6..], &[2, 3], 1).unwrap();
    let w0 = two.buffer_from_slice(&W, &[3, 2], 0).unwrap();
    let w1 = two.buffer_from_slice(&W, &[3, 2], 1).unwrap();
    let out = exe.execute(&[&[&x0, &w0], &[&x1, &w1]]).unwrap();
    assert_eq!(out.len(), 2);
    assert_eq!(
        out[0][0].dims().unwrap(),
        [2, 2],
        "each device holds a shard"
    );
    let mut joined = out[0][0].to_vec::<f32>().unwrap();
    joined.extend(out[1][0].to_vec::<f32>().unwrap());
    assert_close(&joined, &expected, 1e-6);
}

#[test]
fn parse_errors_carry_the_plugin_message_with_line_and_column() {
    tpuc_expect::skip_without!(CpuPlugin);
    let client = cpu().cpu_client(1).unwrap();
    let text = "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  \
                %y = stablehlo.add %x, %nope : tensor<2xf32>\n  \
                return %y : tensor<2xf32>\n}\n";
    let error = client
        .compile(&Program::mlir(text), &CompileOptions::new())
        .unwrap_err();
    let message = error
        .plugin_message()
        .unwrap_or_else(|| panic!("{error:?}"));
    // `%nope` starts at line 2, column 26.
    assert!(
        message.contains(":2:26: error: use of undeclared SSA value"),
        "{message}"
    );
    assert!(matches!(
        error,
        Error::Plugin {
            function: "PJRT_Client_Compile",
            ..
        }
    ));
}

/// The message of an error raised by this crate's own checks.
fn invalid<T: std::fmt::Debug>(result: tpuc_pjrt::Result<T>) -> String {
    match result {
        Err(Error::InvalidArgument(message)) => message,
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
}

#[test]
fn bad_arguments_are_rejected_before_the_plugin() {
    tpuc_expect::skip_without!(CpuPlugin);
    let client = cpu().cpu_client(2).unwrap();
    let message = invalid(client.buffer_from_host(&[0; 12], ElementType::F32, &[2, 2], 0));
    assert!(message.contains("must be 16 bytes, got 12"), "{message}");
    invalid(client.buffer_from_host(&[0; 4], ElementType::F32, &[-1], 0));
    invalid(client.buffer_from_host(&[0; 4], ElementType::F32, &[i64::MAX, i64::MAX], 0));
    invalid(client.buffer_from_host(&[0; 1], ElementType::S4, &[2], 0));
    let message = invalid(client.buffer_from_host(&[0; 4], ElementType::F32, &[1], 2));
    assert!(message.contains("device 2"), "{message}");

    let exe = client
        .compile(&Program::mlir(DENSE_TANH), &CompileOptions::new())
        .unwrap();
    let x = client.buffer_from_slice(&X, &[2, 3], 0).unwrap();
    invalid(exe.execute(&[&[&x], &[&x]]));
    invalid(exe.execute(&[]));
    let other = cpu().cpu_client(1).unwrap();
    let foreign = other.buffer_from_slice(&B, &[2], 0).unwrap();
    invalid(exe.execute(&[&[&x, &x, &foreign]]));
    let wrong_type = client.buffer_from_slice(&[1i32, 2], &[2], 0).unwrap();
    invalid(wrong_type.to_vec::<f32>());
}

#[test]
fn plugin_side_execute_errors_are_reported() {
    tpuc_expect::skip_without!(CpuPlugin);
    let client = cpu().cpu_client(1).unwrap();
    let exe = client
        .compile(&Program::mlir(DENSE_TANH), &CompileOptions::new())
        .unwrap();
    let x = client.buffer_from_slice(&X, &[2, 3], 0).unwrap();
    let short = client.buffer_from_slice(&B, &[2], 0).unwrap();
    // Three arguments of which the second has the wrong shape: only the plugin knows.
    let error = exe.execute(&[&[&x, &short, &short]]).unwrap_err();
    assert!(
        matches!(
            error,
            Error::Plugin {
                function: "PJRT_LoadedExecutable_Execute",
                ..
            }
        ),
        "{error:?}"
    );
}

#[test]
fn an_executable_view_outlives_its_loaded_executable() {
    tpuc_expect::skip_without!(CpuPlugin);
    let client = cpu().cpu_client(1).unwrap();
    let loaded = client
        .compile(&Program::mlir(DENSE_TANH), &CompileOptions::new())
        .unwrap();
    let executable = loaded.executable().unwrap();
    drop(loaded);
    drop(client);
    // The plugin's view is only valid while the loaded executable lives; the view keeps it.
    assert_eq!(executable.num_outputs().unwrap(), 1);
    assert_eq!(executable.output_dims().unwrap(), [vec![2, 2]]);
    assert!(!executable.serialize().unwrap().is_empty());
    assert!(executable.memory_stats().unwrap().is_some());
}

/// 4-bit integers travel one per byte, the low nibble the value: a sign-extended int8 byte in
/// [-8, 7] is already an int4 (what int4 weights held as int8 rely on), copied or in place.
#[test]
fn int4_arrays_travel_one_element_per_byte() {
    tpuc_expect::skip_without!(CpuPlugin);
    let client = cpu().cpu_client(1).unwrap();
    let text = "func.func @main(%a: tensor<5xi4>) -> (tensor<5xi8>, tensor<5xi4>) {\n  \
                %c = stablehlo.convert %a : (tensor<5xi4>) -> tensor<5xi8>\n  \
                return %c, %a : tensor<5xi8>, tensor<5xi4>\n}\n";
    let exe = client
        .compile(&Program::mlir(text), &CompileOptions::new())
        .unwrap();
    let values = bytes_of(&[-8i8, 7, 3, -1, 0]);
    #[repr(align(64))]
    struct Aligned([u8; 64]);
    let mut aligned = Aligned([0; 64]);
    aligned.0[..5].copy_from_slice(&values);
    let copied = client
        .buffer_from_host(&values, ElementType::S4, &[5], 0)
        .unwrap();
    let in_place = client
        .buffer_in_place(&aligned.0[..5], ElementType::S4, &[5], 0)
        .unwrap();
    for argument in [&copied, &*in_place] {
        let out = exe.execute(&[&[argument]]).unwrap();
        assert_eq!(out[0][0].to_host().unwrap(), values);
        assert_eq!(out[0][1].to_host().unwrap(), [8, 7, 3, 15, 0]);
    }
}
