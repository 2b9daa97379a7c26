//! Kernel substitution and attentions with a bias or a soft cap: a kernel replaces such a
//! composite only when its declaration names the bias or the cap (with the composite's value).
//! The inputs are the fusion file tests at the shape of the shipped decoder kernel
//! (`[2, 2, 8, 8]` f32, causal): plain (`attention_causal.mlir`), soft-capped and biased.

use std::path::{Path, PathBuf};

use tpuc_ir::{Attribute, ElementType, Module, NamedAttrs, Visibility};
use tpuc_passes::{FUSE_PASSES, KernelLibrary, PipelineSpec, RunOptions, Stage, composite_names};

const PLAIN: &str = "attention_causal.mlir";
const SOFT_CAPPED: &str = "attention_softcap_causal.mlir";
const BIASED: &str = "attention_bias_causal.mlir";

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The input module of a fusion file test (its lines other than the expected output).
fn file_test_input(name: &str) -> Module {
    let path = repo_root().join("passes/tests/fusion").join(name);
    let text = std::fs::read_to_string(&path).expect("the file test exists");
    let input: String = text
        .lines()
        .filter(|l| !l.starts_with("// CHECK:"))
        .map(|l| format!("{l}\n"))
        .collect();
    tpuc_ir::parse::parse_module(&input).expect("the file test parses")
}

/// `name`'s module through `spec`.
fn run(name: &str, spec: &PipelineSpec) -> (Module, tpuc_passes::PipelineReport) {
    let mut program =
        tpuc_ir::Program::from_module(file_test_input(name)).expect("a module with a main");
    let report = spec
        .run(&mut program, &RunOptions::default())
        .expect("the pipeline runs");
    (program.module, report)
}

/// Fuses `name`'s module and substitutes `library`'s kernels: how many composites a kernel
/// replaced, and the attention composites left.
fn substituted(name: &str, library: &KernelLibrary) -> (usize, usize) {
    let mut spec = PipelineSpec::of_passes(&FUSE_PASSES);
    spec.stages.push(Stage::Kernels(library.clone()));
    let (module, report) = run(name, &spec);
    tpuc_ir::verify(&module).expect("the substituted module verifies");
    let left = tpuc_passes::composite_counts(&module)
        .get(composite_names::ATTENTION)
        .copied()
        .unwrap_or(0);
    (report.kernels.values().sum(), left)
}

#[test]
fn the_shipped_flash_attention_kernel_serves_neither_a_soft_cap_nor_a_bias() {
    let library = KernelLibrary::load(&repo_root().join("kernels/interpret"), "cpu")
        .expect("the shipped library loads");
    assert_eq!(substituted(PLAIN, &library), (1, 0), "{PLAIN}");
    assert_eq!(substituted(SOFT_CAPPED, &library), (0, 1), "{SOFT_CAPPED}");
    assert_eq!(substituted(BIASED, &library), (0, 1), "{BIASED}");
}

/// A library of one kernel computing exactly `name`'s attention (its own decomposition as
/// `@main`), declared with `version` and `attributes`, written under `dir`.
fn library_of_its_decomposition(
    dir: &Path,
    name: &str,
    version: i64,
    attributes: NamedAttrs,
) -> KernelLibrary {
    let (fused, _) = run(name, &PipelineSpec::of_passes(&FUSE_PASSES));
    let mut main = fused
        .functions
        .into_iter()
        .find(|f| f.visibility == Visibility::Private)
        .expect("a decomposition");
    main.name = "main".to_owned();
    main.visibility = Visibility::Public;
    let declaration = NamedAttrs::new()
        .with(
            "composite",
            Attribute::String(composite_names::ATTENTION.to_owned()),
        )
        .with(
            "version",
            Attribute::Int {
                value: version,
                ty: ElementType::I32,
            },
        )
        .with("target", Attribute::String("cpu".to_owned()))
        .with("attributes", Attribute::Dict(attributes));
    let mut kernel = Module::new();
    kernel.name = Some("attention_kernel".to_owned());
    kernel.attrs = NamedAttrs::new().with("tpuc.kernel", Attribute::Dict(declaration));
    kernel.functions.push(main);
    std::fs::create_dir_all(dir).expect("a library directory");
    let text = tpuc_ir::print::pretty(&kernel, &Default::default());
    std::fs::write(dir.join("attention_kernel.mlir"), text).expect("the kernel is written");
    KernelLibrary::load(dir, "cpu").expect("the kernel loads")
}

fn f32_attr(value: f64) -> Attribute {
    Attribute::Float {
        value,
        ty: ElementType::F32,
    }
}

#[test]
fn a_kernel_serves_a_bias_or_soft_cap_only_when_it_declares_it() {
    let causal = || NamedAttrs::new().with("causal", Attribute::Bool(true));
    // (file test, kernel version, declared attributes, whether the kernel replaces it)
    let cases = [
        (PLAIN, 1, causal(), true),
        (
            SOFT_CAPPED,
            2,
            causal().with("attn_logits_soft_cap", f32_attr(30.0)),
            true,
        ),
        (SOFT_CAPPED, 2, causal(), false),
        (
            SOFT_CAPPED,
            2,
            causal().with("attn_logits_soft_cap", f32_attr(50.0)),
            false,
        ),
        (
            SOFT_CAPPED,
            1,
            causal().with("attn_logits_soft_cap", f32_attr(30.0)),
            false,
        ),
        (
            BIASED,
            2,
            causal().with("bias", Attribute::Bool(true)),
            true,
        ),
        (BIASED, 2, causal(), false),
        (
            BIASED,
            2,
            causal().with("bias", Attribute::Bool(false)),
            false,
        ),
    ];
    let root =
        std::env::temp_dir().join(format!("tpuc-kernel-declarations-{}", std::process::id()));
    let mut failures = Vec::new();
    for (i, (name, version, declared, replaces)) in cases.into_iter().enumerate() {
        let shown = format!("{name}, version {version}, {declared:?}");
        let library =
            library_of_its_decomposition(&root.join(i.to_string()), name, version, declared);
        let expected = if replaces { (1, 0) } else { (0, 1) };
        let got = substituted(name, &library);
        if got != expected {
            failures.push(format!("{shown}: got {got:?}, expected {expected:?}"));
        }
    }
    std::fs::remove_dir_all(&root).expect("the libraries are removed");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
