//! The oracle: the real StableHLO parser inside the PJRT plugins must accept what we print, and
//! XLA must compute what the IR says.

mod common;

use tpuc_ir::{DenseElements, LocationStyle, Module, PrintOptions, TensorType, print, verify};
use tpuc_pjrt::{Client, CompileOptions, Plugin, PluginKind, Program, locate};

fn plugin(kind: PluginKind) -> &'static Plugin {
    match locate(kind, None).and_then(Plugin::load) {
        Ok(plugin) => plugin,
        Err(error) => panic!("{error} (install the plugins with scripts/setup-plugins.sh)"),
    }
}

fn cpu_client() -> Client {
    plugin(PluginKind::Cpu).cpu_client(2).unwrap()
}

fn options_for(module: &Module) -> CompileOptions {
    let mut options = CompileOptions::new();
    if module.num_replicas == Some(2) {
        options = options
            .replicas(2)
            .device_assignment(vec![vec![0], vec![1]]);
    }
    if module.num_partitions == Some(2) {
        options = options
            .partitions(2)
            .spmd(true)
            .shardy(true)
            .partition_devices(&[0, 1]);
    }
    options
}

/// Every way we print a module.
fn printed_forms(module: &Module) -> Vec<(&'static str, String)> {
    let strip = PrintOptions::default();
    let inline = PrintOptions::with_locations(LocationStyle::Inline);
    let aliases = PrintOptions::with_locations(LocationStyle::Aliases);
    vec![
        ("generic", print::generic(module, &strip)),
        ("generic+loc", print::generic(module, &aliases)),
        ("pretty", print::pretty(module, &strip)),
        ("pretty+loc", print::pretty(module, &inline)),
        ("pretty+aliases", print::pretty(module, &aliases)),
    ]
}

#[test]
fn cpu_plugin_compiles_every_fixture_in_every_form() {
    tpuc_expect::skip_without!(CpuPlugin);
    let client = cpu_client();
    let mut failures = Vec::new();
    for (name, module) in common::fixtures() {
        verify(&module).unwrap_or_else(|e| panic!("fixture {name} does not verify: {e}"));
        for (form, text) in printed_forms(&module) {
            if let Err(error) = client.compile(&Program::mlir(&text), &options_for(&module)) {
                failures.push(format!("{name} ({form}): {error}\n{text}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn tpu_plugin_compiles_the_fixtures() {
    tpuc_expect::skip_without!(TpuPlugin);
    let topology = plugin(PluginKind::Tpu).topology("v5e:2x2").unwrap();
    let mut failures = Vec::new();
    for (name, module) in common::fixtures() {
        // TPU executables of these need a multi-device assignment; the CPU test covers them.
        if name == "collectives" || name == "sharded" {
            continue;
        }
        let text = print::generic(&module, &PrintOptions::default());
        if let Err(error) = topology.compile(&Program::mlir(&text), &CompileOptions::new()) {
            failures.push(format!("{name}: {error}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// StableHLO parses `dynamic_conv` in every form; XLA then refuses to translate it, which
/// lowering must know.
#[test]
fn dynamic_conv_parses_but_xla_cannot_translate_it() {
    tpuc_expect::skip_without!(CpuPlugin);
    let client = cpu_client();
    let module = common::dynamic_conv();
    verify(&module).unwrap();
    for (form, text) in printed_forms(&module) {
        let error = client
            .compile(&Program::mlir(&text), &CompileOptions::new())
            .err()
            .unwrap_or_else(|| panic!("{form}: XLA learned dynamic_conv; use it"));
        let message = error.to_string();
        assert!(
            message.contains("'stablehlo.dynamic_conv' op can't be translated to XLA HLO"),
            "{form}: {message}"
        );
    }
}

/// The bytes XLA produces for each constant equal our little-endian data.
#[test]
fn constants_round_trip_through_xla() {
    tpuc_expect::skip_without!(CpuPlugin);
    let client = cpu_client();
    let module = common::constants();
    let text = print::generic(&module, &PrintOptions::default());
    let exe = client
        .compile(&Program::mlir(&text), &CompileOptions::new())
        .unwrap();
    let outputs = exe.execute(&[&[]]).unwrap();
    let cases = common::constant_cases();
    assert_eq!(outputs[0].len(), cases.len());
    for ((ty, values), buffer) in cases.iter().zip(&outputs[0]) {
        let data = DenseElements::from_f64s(ty, values).unwrap();
        let expected = expand(ty, &data);
        assert_eq!(buffer.to_host().unwrap(), expected, "constant of type {ty}");
    }
}

fn expand(ty: &TensorType, data: &DenseElements) -> Vec<u8> {
    if data.is_splat() {
        let count = ty.num_elements().unwrap() as usize;
        data.bytes().repeat(count)
    } else {
        data.bytes().to_vec()
    }
}

/// XLA computes the mlp fixture as a host reference does.
#[test]
fn mlp_numerics_match_a_host_reference() {
    tpuc_expect::skip_without!(CpuPlugin);
    let client = cpu_client();
    let text = print::pretty(&common::mlp(), &PrintOptions::default());
    let exe = client
        .compile(&Program::mlir(&text), &CompileOptions::new())
        .unwrap();
    let x = [0.1f32, -0.2, 0.3, 0.4, 0.5, -0.6];
    let w: Vec<f32> = (0..12).map(|i| (i as f32 - 6.0) * 0.1).collect();
    let b = [0.05f32, -0.05, 0.1, 0.0];
    let args = [
        client.buffer_from_slice(&x, &[2, 3], 0).unwrap(),
        client.buffer_from_slice(&w, &[3, 4], 0).unwrap(),
        client.buffer_from_slice(&b, &[4], 0).unwrap(),
    ];
    let outputs = exe.execute(&[&[&args[0], &args[1], &args[2]]]).unwrap();
    let act = outputs[0][0].to_vec::<f32>().unwrap();
    let masked = outputs[0][1].to_vec::<f32>().unwrap();
    let mut expected_act = Vec::new();
    for i in 0..2 {
        for j in 0..4 {
            let dot: f64 = (0..3)
                .map(|k| f64::from(x[i * 3 + k]) * f64::from(w[k * 4 + j]))
                .sum();
            expected_act.push((dot + f64::from(b[j])).tanh());
        }
    }
    for (a, e) in act.iter().zip(&expected_act) {
        assert!(
            (f64::from(*a) - e).abs() < 1e-6,
            "{act:?} vs {expected_act:?}"
        );
    }
    for i in 0..2 {
        let row: f64 = expected_act[i * 4..i * 4 + 4].iter().sum();
        let expected = if row > 0.0 { row } else { 0.5 };
        assert!((f64::from(masked[i]) - expected).abs() < 1e-6, "{masked:?}");
    }
}
