//! The real oracle: JAX's modules, parsed and reprinted by tpuc, compile on XLA:CPU and compute
//! what JAX computed (testdata/jax/NAME.in<i>.npy → NAME.out<j>.npy).

use std::path::{Path, PathBuf};

use tpuc_ir::parse::parse_module;
use tpuc_ir::{LocationStyle, Module, PrintOptions, print};
use tpuc_npy::{Array, Dtype};
use tpuc_pjrt::{Client, CompileOptions, ElementType, Plugin, PluginKind, Program, locate};

fn jax_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/jax")
}

fn client() -> Client {
    let plugin = locate(PluginKind::Cpu, None)
        .and_then(Plugin::load)
        .unwrap_or_else(|error| {
            panic!("XLA:CPU plugin: {error} (install it with scripts/setup-plugins.sh cpu)")
        });
    plugin.cpu_client(1).expect("XLA:CPU client")
}

fn element_type(dtype: Dtype) -> ElementType {
    match dtype {
        Dtype::Bool => ElementType::Pred,
        Dtype::I8 => ElementType::S8,
        Dtype::I16 => ElementType::S16,
        Dtype::I32 => ElementType::S32,
        Dtype::I64 => ElementType::S64,
        Dtype::U8 => ElementType::U8,
        Dtype::U16 => ElementType::U16,
        Dtype::U32 => ElementType::U32,
        Dtype::U64 => ElementType::U64,
        Dtype::F16 => ElementType::F16,
        Dtype::F32 => ElementType::F32,
        Dtype::F64 => ElementType::F64,
        Dtype::C64 => ElementType::C64,
        Dtype::C128 => ElementType::C128,
    }
}

/// `NAME.<prefix><i>.npy` for i = 0, 1, ... while they exist.
fn arrays(name: &str, prefix: &str) -> Vec<Array> {
    (0..)
        .map(|i| jax_dir().join(format!("{name}.{prefix}{i}.npy")))
        .take_while(|path| path.exists())
        .map(|path| Array::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .collect()
}

fn run_and_compare(client: &Client, name: &str, label: &str, text: &str) {
    let executable = client
        .compile(&Program::mlir(text), &CompileOptions::new())
        .unwrap_or_else(|error| {
            panic!("{name} ({label}) does not compile on XLA:CPU: {error}\n{text}")
        });
    let inputs = arrays(name, "in");
    let expected = arrays(name, "out");
    assert!(
        !inputs.is_empty() && !expected.is_empty(),
        "{name}: fixtures missing"
    );
    let buffers: Vec<_> = inputs
        .iter()
        .map(|array| {
            let dims: Vec<i64> = array.shape().iter().map(|&d| d as i64).collect();
            client
                .buffer_from_host(array.data(), element_type(array.dtype()), &dims, 0)
                .unwrap()
        })
        .collect();
    let arguments: Vec<_> = buffers.iter().collect();
    let outputs = executable.execute(&[&arguments]).unwrap().remove(0);
    assert_eq!(
        outputs.len(),
        expected.len(),
        "{name} ({label}): output count"
    );
    for (j, (output, want)) in outputs.iter().zip(&expected).enumerate() {
        let dims: Vec<usize> = output.dims().unwrap().iter().map(|&d| d as usize).collect();
        assert_eq!(dims, want.shape(), "{name} ({label}) output {j}: shape");
        let got = output.to_host().unwrap();
        if want.dtype() == Dtype::F32 {
            // JAX ran the same computation on XLA:CPU; allow for a different XLA version
            // choosing different fusions (a few ulps), nothing more.
            let got: Vec<f32> = got
                .chunks(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            let want: Vec<f32> = want
                .data()
                .chunks(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                let tolerance = 1e-5 * w.abs().max(1.0);
                assert!(
                    (g - w).abs() <= tolerance,
                    "{name} ({label}) output {j}[{k}]: {g} vs {w}"
                );
            }
        } else {
            assert_eq!(got, want.data(), "{name} ({label}) output {j}");
        }
    }
}

#[test]
fn reprinted_jax_modules_run_on_xla_cpu_and_match_jax() {
    tpuc_expect::skip_without!(CpuPlugin);
    let client = client();
    for name in ["transformer_block", "cnn_bits", "control_flow"] {
        for source in ["pretty", "generic"] {
            let path = jax_dir().join(format!("{name}.{source}.mlir"));
            let text = std::fs::read_to_string(&path).unwrap();
            let module: Module =
                parse_module(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let options = PrintOptions::with_locations(LocationStyle::Strip);
            run_and_compare(
                &client,
                name,
                &format!("{source} → generic"),
                &print::generic(&module, &options),
            );
            let with_locations = PrintOptions::with_locations(LocationStyle::Aliases);
            run_and_compare(
                &client,
                name,
                &format!("{source} → pretty"),
                &print::pretty(&module, &with_locations),
            );
        }
    }
}
