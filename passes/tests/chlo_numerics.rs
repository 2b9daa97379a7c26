//! `chlo-legalize` keeps the numbers: every CHLO module in testdata/jax, legalized by tpuc, is
//! run on XLA:CPU and compared with the same module compiled by the plugin itself (XLA
//! legalizes CHLO on its own) and with JAX's outputs. tpuc's reprint of the CHLO module, not
//! legalized, computes what the original text does.

use std::path::{Path, PathBuf};

use tpuc_ir::print::{PrintOptions, generic};
use tpuc_npy::{Array, Dtype};
use tpuc_passes::{PipelineSpec, RunOptions, has_chlo};
use tpuc_pjrt::{Client, CompileOptions, ElementType, Plugin, PluginKind, Program, locate};

fn jax_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/jax")
}

fn cpu_client() -> Client {
    let plugin = locate(PluginKind::Cpu, None)
        .and_then(Plugin::load)
        .unwrap_or_else(|e| panic!("{e} (install the plugins with scripts/setup-plugins.sh)"));
    plugin.cpu_client(1).unwrap()
}

struct Fixture {
    name: String,
    inputs: Vec<Array>,
    outputs: Vec<Array>,
    /// Whether XLA:CPU compiles the CHLO text itself (it has no `ragged-dot`); if not, JAX's
    /// outputs (its own decomposition, on CPU) are the only reference.
    xla_runs_text: bool,
}

/// The manifests of testdata/jax: generate.py's and generate_chlo_more.py's.
const MANIFESTS: [&str; 2] = ["manifest.json", "manifest_chlo_more.json"];

/// The fixtures whose text holds CHLO, from the manifests.
fn chlo_fixtures() -> Vec<Fixture> {
    let read = |files: &serde_json::Value| -> Vec<Array> {
        files
            .as_array()
            .unwrap()
            .iter()
            .map(|f| Array::read(jax_dir().join(f["file"].as_str().unwrap())).unwrap())
            .collect()
    };
    let mut fixtures = Vec::new();
    for manifest in MANIFESTS {
        let manifest = std::fs::read_to_string(jax_dir().join(manifest)).unwrap();
        let manifest: serde_json::Value = serde_json::from_str(&manifest).unwrap();
        fixtures.extend(
            manifest["functions"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| f["name"].as_str().unwrap().starts_with("chlo_"))
                .map(|f| Fixture {
                    name: f["name"].as_str().unwrap().to_owned(),
                    inputs: read(&f["inputs"]),
                    outputs: read(&f["outputs"]),
                    xla_runs_text: f["xla_cpu_runs_text"].as_bool().unwrap_or(true),
                }),
        );
    }
    assert!(fixtures.len() >= 6, "expected the CHLO fixtures");
    fixtures
}

fn element_type(dtype: Dtype) -> ElementType {
    match dtype {
        Dtype::F32 => ElementType::F32,
        Dtype::F64 => ElementType::F64,
        Dtype::I32 => ElementType::S32,
        Dtype::Bool => ElementType::Pred,
        other => panic!("no fixture input is {other:?}"),
    }
}

fn run(client: &Client, text: &str, inputs: &[Array]) -> Vec<Vec<u8>> {
    let exe = client
        .compile(&Program::mlir(text), &CompileOptions::new())
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    let buffers: Vec<_> = inputs
        .iter()
        .map(|a| {
            let dims: Vec<i64> = a.shape().iter().map(|&d| d as i64).collect();
            client
                .buffer_from_host(a.data(), element_type(a.dtype()), &dims, 0)
                .unwrap()
        })
        .collect();
    let refs: Vec<_> = buffers.iter().collect();
    let outputs = exe.execute(&[&refs]).unwrap();
    outputs[0].iter().map(|b| b.to_host().unwrap()).collect()
}

/// Equal, or for floats within a small relative error (1e-5 for f32; 1e-12 for f64, where
/// erf_inv near ±1 departs by 1.8e-13 from XLA's); NaN matches NaN.
fn close(got: &[u8], want: &[u8], dtype: Dtype) -> Result<(), String> {
    let (got, want, tolerance, tiny): (Vec<f64>, Vec<f64>, f64, f64) = match dtype {
        Dtype::F32 => (f32s(got), f32s(want), 1e-5, 1e-30),
        Dtype::F64 => (f64s(got), f64s(want), 1e-12, 1e-300),
        _ => return (got == want).then_some(()).ok_or("differs".to_owned()),
    };
    for (i, (g, w)) in got.into_iter().zip(want).enumerate() {
        let same = (g.is_nan() && w.is_nan())
            || g == w
            || (w.is_finite() && (g - w).abs() <= tolerance * w.abs().max(tiny));
        if !same {
            return Err(format!("element {i}: {g} vs {w}"));
        }
    }
    Ok(())
}

fn f32s(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks_exact(4)
        .map(|c| f64::from(f32::from_le_bytes(c.try_into().unwrap())))
        .collect()
}

fn f64s(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn legalized_chlo_computes_what_xla_computes() {
    tpuc_expect::skip_without!(CpuPlugin);
    let client = cpu_client();
    let mut failures = Vec::new();
    for fixture in chlo_fixtures() {
        for form in ["pretty", "generic"] {
            let path = jax_dir().join(format!("{}.{form}.mlir", fixture.name));
            let text = std::fs::read_to_string(&path).unwrap();
            let module = tpuc_ir::parse::parse_module(&text).unwrap();
            tpuc_ir::verify(&module).unwrap();
            assert!(has_chlo(&module), "{}", path.display());
            let reprinted = generic(&module, &PrintOptions::default());
            let verified = RunOptions {
                verify_each: true,
                ..RunOptions::default()
            };
            let mut program = tpuc_ir::Program::from_module(module).unwrap();
            PipelineSpec::parse("chlo-legalize")
                .unwrap()
                .run(&mut program, &verified)
                .unwrap();
            let module = program.module;
            assert!(!has_chlo(&module), "{}: CHLO left", path.display());
            let legalized = generic(&module, &PrintOptions::default());

            let ours = run(&client, &legalized, &fixture.inputs);
            if !fixture.xla_runs_text {
                for (i, jax) in fixture.outputs.iter().enumerate() {
                    if let Err(e) = close(&ours[i], jax.data(), jax.dtype()) {
                        failures.push(format!("{} ({form}) output {i} vs JAX: {e}", fixture.name));
                    }
                }
                continue;
            }
            let xla = run(&client, &text, &fixture.inputs);
            // tpuc's reprint of the CHLO module is the same program to XLA.
            if run(&client, &reprinted, &fixture.inputs) != xla {
                failures.push(format!("{} ({form}): reprinted CHLO differs", fixture.name));
            }
            for (i, jax) in fixture.outputs.iter().enumerate() {
                let dtype = jax.dtype();
                if let Err(e) = close(&ours[i], &xla[i], dtype) {
                    failures.push(format!("{} ({form}) output {i} vs XLA: {e}", fixture.name));
                }
                // JAX's numbers came from jaxlib 0.10.2's XLA; where the plugin's newer XLA
                // departs from them (digamma(0) = -inf, was NaN), the plugin is the reference.
                if close(&xla[i], jax.data(), dtype).is_ok()
                    && let Err(e) = close(&ours[i], jax.data(), dtype)
                {
                    failures.push(format!("{} ({form}) output {i} vs JAX: {e}", fixture.name));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
