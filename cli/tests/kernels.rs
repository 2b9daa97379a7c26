//! The shipped kernel library (kernels/): every interpret-mode kernel, substituted for the
//! attention composite it declares, computes what the composite's decomposition computes on
//! XLA:CPU; every TPU kernel substituted the same way compiles through libtpu; a fused decoder
//! running its interpret-mode kernel matches eager PyTorch; the kernels' code enters the cache
//! key.

mod support;

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use support::{fixture, json, repo_root, tpuc};
use tpuc_driver::{HostTensor, Runtime, Tolerance};
use tpuc_ir::Module;
use tpuc_passes::{Fusion, KernelLibrary, PipelineRequest, RunOptions, Source};
use tpuc_pt2::DType;
use tpuc_testkit::attention::Attention;

fn library(target: &str) -> KernelLibrary {
    KernelLibrary::load(&repo_root().join("kernels"), target).expect("the shipped library loads")
}

/// The attention module fused, with the library's kernels substituted when given; and how
/// many composites kernels replaced.
fn fused(text: &str, kernels: Option<&KernelLibrary>) -> (Module, usize) {
    let module = tpuc_ir::parse::parse_module(text).expect("the attention module parses");
    let mut program = tpuc_ir::Program::from_module(module).expect("an interface");
    let request = PipelineRequest {
        fusion: Fusion::Fuse,
        kernels: kernels.cloned(),
        ..PipelineRequest::default()
    };
    let report = request
        .spec(Source::Archive)
        .run(&mut program, &RunOptions::default())
        .expect("the passes run");
    (program.module, report.kernels.values().sum())
}

/// Deterministic inputs in [-1, 1): bfloat16 as the top half of the float32.
fn input(shape: &[u64], dtype: DType, seed: u64) -> HostTensor<'static> {
    let n: u64 = shape.iter().product();
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut bytes = Vec::new();
    for _ in 0..n {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let x = ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0;
        match dtype {
            DType::BF16 => bytes.extend_from_slice(&x.to_le_bytes()[2..]),
            _ => bytes.extend_from_slice(&x.to_le_bytes()),
        }
    }
    HostTensor {
        dtype,
        shape: shape.iter().map(|&d| d as i64).collect(),
        bytes: Cow::Owned(bytes),
    }
}

fn run(runtime: &Runtime, module: &Module, inputs: &[HostTensor<'_>]) -> tpuc_npy::Array {
    let executable = runtime.compile_module(module).expect("XLA:CPU compiles it");
    let outputs = executable.execute(inputs).expect("it runs");
    outputs[0].to_npy().expect("a numpy form")
}

#[test]
fn every_interpret_kernel_computes_its_composite() {
    tpuc_expect::skip_without!(Plugins);
    let library = library("cpu");
    assert!(
        library.kernels.len() >= 9,
        "{} interpret kernels",
        library.kernels.len()
    );
    let runtime = Runtime::cpu(None).unwrap();
    for kernel in &library.kernels {
        let attention = Attention::of(kernel);
        let text = attention.module();
        let (reference, none) = fused(&text, None);
        let (substituted, replaced) = fused(&text, Some(&library));
        assert_eq!(
            (none, replaced),
            (0, 1),
            "{}: the kernel replaces the composite",
            kernel.name
        );
        let (dtype, tolerance) = match attention.element {
            "bf16" => (
                DType::BF16,
                Tolerance {
                    rtol: 2e-2,
                    atol: 2e-2,
                },
            ),
            _ => (
                DType::F32,
                Tolerance {
                    rtol: 1e-4,
                    atol: 1e-5,
                },
            ),
        };
        let (b, h, g, s, d) = (
            attention.batch,
            attention.heads,
            attention.kv_heads,
            attention.seq,
            attention.head_dim,
        );
        let inputs = [
            input(&[b, h, s, d], dtype, 1),
            input(&[b, g, s, d], dtype, 2),
            input(&[b, g, s, d], dtype, 3),
        ];
        let want = run(&runtime, &reference, &inputs);
        let got = run(&runtime, &substituted, &inputs);
        let c = tpuc_driver::compare(&got, &want, tolerance);
        eprintln!(
            "{}: max abs {:.3e}, max rel {:.3e}",
            kernel.name, c.max_abs, c.max_rel
        );
        assert!(
            c.passed(),
            "{}: {}/{} outside the tolerance",
            kernel.name,
            c.mismatched,
            c.total
        );
    }
}

#[test]
fn every_tpu_kernel_compiles_through_libtpu() {
    tpuc_expect::skip_without!(Plugins);
    let library = library("tpu");
    assert!(
        library.kernels.len() >= 8,
        "{} TPU kernels",
        library.kernels.len()
    );
    let target = "tpu:v5e:1x1".parse().unwrap();
    for kernel in &library.kernels {
        let (module, replaced) = fused(&Attention::of(kernel).module(), Some(&library));
        assert_eq!(replaced, 1, "{}", kernel.name);
        let text = tpuc_ir::print::generic(&module, &Default::default());
        assert!(text.contains("tpu_custom_call"), "{}", kernel.name);
        let (_, report) = tpuc_driver::compile_module_report(&text, &target, &Default::default())
            .unwrap_or_else(|e| panic!("{}: {e:?}", kernel.name));
        let cost = report.cost.expect("libtpu reports a cost analysis");
        assert!(
            cost.bytes_accessed.is_some_and(|b| b > 0.0),
            "{}: {cost:?}",
            kernel.name
        );
    }
}

#[test]
fn a_decoder_running_its_interpret_kernel_matches_eager() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let output = tpuc(
        cache.path(),
        &[
            "run",
            fixture("decoder.pt2").to_str().unwrap(),
            "--kernels",
            "kernels",
            "--input",
            "testdata/models/decoder.in0.npy",
            "--expect",
            "testdata/models/decoder.out0.npy",
            "--output-dir",
            out.path().to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    // What ran: the attention is a call to the interpret-mode kernel.
    let lowered = tpuc(
        cache.path(),
        &[
            "lower",
            "testdata/models/decoder.pt2",
            "--kernels",
            "kernels",
            "--kernel-target",
            "cpu",
            "--timing",
        ],
    );
    let text = String::from_utf8_lossy(&lowered.stdout);
    assert!(
        text.contains("call @flash_attention_causal_f32_b2h2s8d8("),
        "{text}"
    );
    assert!(!text.contains("tpuc.scaled_dot_product_attention"));
    let timing = String::from_utf8_lossy(&lowered.stderr);
    assert!(
        timing.contains("kernel flash_attention_causal_f32_b2h2s8d8 "),
        "{timing}"
    );
}

/// A copy of the interpret-mode library; `edit` changes the text of its decoder kernel.
fn library_copy(dir: &Path, edit: impl Fn(String) -> String) -> PathBuf {
    let source = repo_root().join("kernels/interpret");
    for entry in std::fs::read_dir(&source).unwrap() {
        let path = entry.unwrap().path();
        let mut text = std::fs::read_to_string(&path).unwrap();
        if path.file_name().unwrap() == "flash_attention_causal_f32_b2h2s8d8.mlir" {
            text = edit(text);
        }
        std::fs::write(dir.join(path.file_name().unwrap()), text).unwrap();
    }
    dir.to_path_buf()
}

#[test]
fn the_kernels_code_enters_the_cache_key() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let (same, changed) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let same = library_copy(same.path(), |t| t);
    // Another value for masked scores: the same kernel declaration, different code.
    let changed = library_copy(changed.path(), |t| {
        t.replacen("-2.38197633E+38", "-3.0E+38", 1)
    });
    let model = fixture("decoder.pt2");
    let key = |extra: &[&str]| {
        let mut args = vec!["compile", model.to_str().unwrap(), "--target", "cpu"];
        args.extend_from_slice(extra);
        let (report, _) = json(cache.path(), &args);
        report["targets"][0]["key"].as_str().unwrap().to_owned()
    };
    let fused = key(&["--fuse"]);
    let with = key(&["--kernels", same.to_str().unwrap()]);
    let edited = key(&["--kernels", changed.to_str().unwrap()]);
    assert_ne!(fused, with);
    assert_ne!(with, edited, "an edited kernel must not hit the old entry");
    assert_eq!(with, key(&["--kernels", same.to_str().unwrap()]));
}

#[test]
fn a_bad_library_is_refused_with_the_file_named() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("plain.mlir"),
        "module {\n  func.func public @main() {\n    return\n  }\n}\n",
    )
    .unwrap();
    let out = tpuc(
        cache.path(),
        &[
            "lower",
            fixture("decoder.pt2").to_str().unwrap(),
            "--kernels",
            dir.path().to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("plain.mlir") && stderr.contains("declares no kernel"),
        "{stderr}"
    );
}
