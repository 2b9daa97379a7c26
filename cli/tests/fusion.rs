//! `--fuse` end to end: fixtures with composites kept and with them inlined compile for a TPU
//! topology through libtpu, the fusion choice enters the cache key, and `--timing` counts the
//! composites.

mod support;

use std::path::Path;

use support::{compile, fixture, json, repo_root, tpuc, uncached, warnings};

/// Every fixture that gets composites (those `crates/front/lower/tests/fusion.rs` counts).
const FUSED_FIXTURES: &[&str] = &[
    "decoder",
    "dyn_seq",
    "dyn_batch",
    "dyn_tokens",
    "gpt2",
    "bert",
    "vit",
    "llama",
    "quant_bf16",
    "t5",
    "bart",
    "falcon",
    "clip",
    "siglip",
    "wav2vec2",
    "llama_bf16",
    "llama_f16",
    "llama_int8",
    "bloom",
    "gemma2",
];

#[test]
fn fused_fixtures_compile_for_tpu_kept_and_inlined() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let inlined = format!(
        "--passes={},{},inline-composites",
        tpuc_passes::PipelineSpec::of_passes(&tpuc_passes::DEFAULT_PASSES),
        tpuc_passes::PipelineSpec::of_passes(&tpuc_passes::FUSE_PASSES)
    );
    for name in FUSED_FIXTURES {
        for variant in ["pt2", "core.pt2"] {
            let path = fixture(&format!("{name}.{variant}"));
            let model = path.to_str().unwrap();
            for flags in [&["--fuse"][..], &[inlined.as_str()][..]] {
                let mut args = vec!["compile", model, "--target", "tpu:v5e:2x2"];
                args.extend_from_slice(flags);
                let (report, stderr) = json(cache.path(), &args);
                // The only warning: the unsharded executable uses one chip of four.
                let unexpected: Vec<&str> = warnings(&stderr)
                    .into_iter()
                    .filter(|w| !w.contains("uses one of them"))
                    .collect();
                assert!(
                    unexpected.is_empty(),
                    "{name}.{variant} {flags:?}: {stderr}"
                );
                let target = &report["targets"][0];
                assert_eq!(target["target"], "tpu:v5e:2x2");
                assert!(target["key"].is_string(), "{report}");
            }
        }
    }
}

#[test]
fn the_fusion_choice_enters_the_cache_key() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let model = fixture("decoder.pt2");
    let on_cpu = |flag: &str| {
        let args = ["compile", model.to_str().unwrap(), "--target", "cpu", flag];
        json(cache.path(), &args).0
    };
    let (plain, _) = compile(cache.path(), &model, &["cpu"]);
    let fused = on_cpu("--fuse");
    let unfused = on_cpu("--no-fuse");
    let key = |r: &serde_json::Value| r["targets"][0]["key"].as_str().unwrap().to_owned();
    assert_ne!(key(&plain), key(&fused));
    assert_ne!(plain["module_sha256"], fused["module_sha256"]);
    assert_eq!(key(&plain), key(&unfused), "--no-fuse is the default");
    assert_eq!(fused["targets"][0]["hit"], false);
}

#[test]
fn timing_counts_the_composites_of_each_kind() {
    let out = uncached(&["lower", "testdata/models/llama.pt2", "--fuse", "--timing"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    for (kind, count) in [
        ("odml.rms_norm", 5),
        ("tpuc.rotary_embedding", 4),
        ("tpuc.scaled_dot_product_attention", 2),
        ("tpuc.swiglu", 2),
    ] {
        let line = stderr
            .lines()
            .find(|l| l.starts_with(&format!("composite {kind} ")))
            .unwrap_or_else(|| panic!("no count for {kind}:\n{stderr}"));
        assert!(line.ends_with(&format!(" {count}")), "{line}");
    }
    let plain = uncached(&["lower", "testdata/models/llama.pt2", "--timing"]);
    assert!(!String::from_utf8_lossy(&plain.stderr).contains("composite "));
}

#[test]
fn fuse_and_no_fuse_conflict() {
    let cache = tempfile::tempdir().unwrap();
    let out = tpuc(
        cache.path(),
        &[
            "lower",
            "testdata/models/decoder.pt2",
            "--fuse",
            "--no-fuse",
        ],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
}

#[test]
fn inspect_counts_the_composites_fuse_outlines() {
    let out = uncached(&[
        "inspect",
        "testdata/models/gpt2.core.pt2",
        "--composites",
        "--format",
        "json",
    ]);
    assert!(out.status.success());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report["composites"],
        serde_json::json!({
            "tpuc.gelu": 2,
            "tpuc.layer_norm": 5,
            "tpuc.scaled_dot_product_attention": 2
        })
    );
    let text = uncached(&["inspect", "testdata/models/gpt2.core.pt2", "--composites"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("composites (with --fuse)\n      5  tpuc.layer_norm"),
        "{text}"
    );
    let plain = uncached(&[
        "inspect",
        "testdata/models/gpt2.core.pt2",
        "--format",
        "json",
    ]);
    let plain: serde_json::Value = serde_json::from_slice(&plain.stdout).unwrap();
    assert!(plain.get("composites").is_none());
}

#[test]
fn a_plan_with_kernels_prewarms_what_compile_with_kernels_hits() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("decoder.pt2"), dir.path().join("decoder.pt2")).unwrap();
    let kernels = support::repo_root().join("kernels");
    let plan = format!(
        "[options]\nkernels = {:?}\n\n[[models]]\npath = \"decoder.pt2\"\ntargets = [\"cpu\"]\n",
        kernels.to_str().unwrap()
    );
    let plan_path = dir.path().join("plan.toml");
    std::fs::write(&plan_path, plan).unwrap();
    let out = tpuc(cache.path(), &["prewarm", plan_path.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let model = dir.path().join("decoder.pt2");
    let (report, _) = json(
        cache.path(),
        &[
            "compile",
            model.to_str().unwrap(),
            "--target",
            "cpu",
            "--kernels",
            "kernels",
        ],
    );
    assert_eq!(report["frontend_hit"], true, "{report}");
    assert_eq!(report["targets"][0]["hit"], true, "{report}");
}

#[test]
fn opt_fuses_a_module_jax_wrote() {
    let pipeline = format!(
        "--passes={}",
        tpuc_passes::PipelineSpec::of_passes(&tpuc_passes::DEFAULT_PASSES)
    );
    let out = uncached(&[
        "opt",
        "testdata/jax/transformer_block.pretty.mlir",
        &pipeline,
        "--fuse",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let count = |name: &str| {
        text.matches(&format!("stablehlo.composite \"{name}\""))
            .count()
    };
    // JAX's attention has no batch dimension (rank-3 `[heads, S, D]` products, `v·p` rather
    // than `p·v`, a division by `sqrt(D)` and a `jnp.where` fill of -1e9 behind a call).
    assert_eq!(
        [
            count("odml.rms_norm"),
            count("tpuc.scaled_dot_product_attention"),
            count("odml.softmax"),
            count("tpuc.gelu")
        ],
        [2, 1, 0, 1],
        "{text}"
    );
    assert!(
        text.contains("causal = true, heads = 2 : i64, kv_heads = 2 : i64"),
        "{text}"
    );
}

/// Attention as JAX writes it for `[heads, D, S]` operands without a batch dimension: `v·p`,
/// a division by `sqrt(D)`, a causal `where(mask, s, -1e9)`.
const BATCHLESS_ATTENTION: &str = r#"module {
  func.func public @main(%q: tensor<4x8x8xf32>, %k: tensor<4x8x8xf32>, %v: tensor<4x8x8xf32>) -> tensor<4x8x8xf32> {
    %s = stablehlo.dot_general %q, %k, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    %sqrt_d = stablehlo.constant dense<2.82842708> : tensor<4x8x8xf32>
    %s1 = stablehlo.divide %s, %sqrt_d : tensor<4x8x8xf32>
    %rows = stablehlo.iota dim = 0 : tensor<8x8xi32>
    %cols = stablehlo.iota dim = 1 : tensor<8x8xi32>
    %keep = stablehlo.compare  LE, %cols, %rows,  SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
    %keepb = stablehlo.broadcast_in_dim %keep, dims = [1, 2] : (tensor<8x8xi1>) -> tensor<4x8x8xi1>
    %fill = stablehlo.constant dense<-1.000000e+09> : tensor<4x8x8xf32>
    %s2 = stablehlo.select %keepb, %s1, %fill : tensor<4x8x8xi1>, tensor<4x8x8xf32>
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %max = stablehlo.reduce(%s2 init: %ninf) applies stablehlo.maximum across dimensions = [2] : (tensor<4x8x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %maxb = stablehlo.broadcast_in_dim %max, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x8xf32>
    %shifted = stablehlo.subtract %s2, %maxb : tensor<4x8x8xf32>
    %e = stablehlo.exponential %shifted : tensor<4x8x8xf32>
    %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [2] : (tensor<4x8x8xf32>, tensor<f32>) -> tensor<4x8xf32>
    %sumb = stablehlo.broadcast_in_dim %sum, dims = [0, 1] : (tensor<4x8xf32>) -> tensor<4x8x8xf32>
    %p = stablehlo.divide %e, %sumb : tensor<4x8x8xf32>
    %o = stablehlo.dot_general %v, %p, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<4x8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
    return %o : tensor<4x8x8xf32>
  }
}
"#;

/// The shipped interpret-mode decoder kernel (`[2, 2, 8, 8]`) as a kernel for `[1, 4, 8, 8]`
/// (heads are independent, so the reshape computes the same attention): written to `dir`.
fn four_head_kernel(dir: &Path) {
    let shipped = repo_root().join("kernels/interpret/flash_attention_causal_f32_b2h2s8d8.mlir");
    let text = std::fs::read_to_string(shipped).unwrap();
    let main_start = text.find("  func.func public @main(").unwrap();
    let main_end = main_start + text[main_start..].find("  } loc(#loc)\n").unwrap() + 14;
    let (wide, narrow) = ("tensor<1x4x8x8xf32>", "tensor<2x2x8x8xf32>");
    let main = format!(
        "  func.func public @main(%q: {wide}, %k: {wide}, %v: {wide}) -> {wide} {{\n    \
         %q2 = stablehlo.reshape %q : ({wide}) -> {narrow}\n    \
         %k2 = stablehlo.reshape %k : ({wide}) -> {narrow}\n    \
         %v2 = stablehlo.reshape %v : ({wide}) -> {narrow}\n    \
         %o = call @flash_attention(%q2, %k2, %v2) : ({narrow}, {narrow}, {narrow}) -> {narrow}\n    \
         %o4 = stablehlo.reshape %o : ({narrow}) -> {wide}\n    \
         return %o4 : {wide}\n  }}\n"
    );
    let kernel = format!("{}{main}{}", &text[..main_start], &text[main_end..])
        .replace(
            "module @flash_attention_causal_f32_b2h2s8d8",
            "module @four_heads",
        )
        .replace(
            "heads = 2 : i64, kv_heads = 2 : i64",
            "heads = 4 : i64, kv_heads = 4 : i64",
        );
    std::fs::write(dir.join("four_heads.mlir"), kernel).unwrap();
}

/// A batchless attention reaches kernels as the composite's `[1, heads, S, D]` operands
/// (transposed and reshaped outside it, its result back): with a real Pallas kernel (interpret
/// mode) of that signature substituted, XLA:CPU computes what the unfused module computes.
#[test]
fn a_batchless_attention_runs_a_kernel_through_the_canonical_layout() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let kernels = dir.path().join("kernels");
    std::fs::create_dir(&kernels).unwrap();
    four_head_kernel(&kernels);
    let model = dir.path().join("attention.mlir");
    std::fs::write(&model, BATCHLESS_ATTENTION).unwrap();
    let mut inputs = Vec::new();
    for (i, name) in ["q", "k", "v"].iter().enumerate() {
        let values: Vec<u8> = (0..256)
            .flat_map(|j| ((j as f32 * 0.37 + i as f32).sin()).to_le_bytes())
            .collect();
        let array = tpuc_npy::Array::new(tpuc_npy::Dtype::F32, vec![4, 8, 8], values).unwrap();
        let path = dir.path().join(format!("{name}.npy"));
        std::fs::write(&path, array.to_npy_bytes()).unwrap();
        inputs.extend(["--input".to_owned(), path.display().to_string()]);
    }
    let run = |out: &Path, extra: &[&str]| {
        let mut args = vec!["run", model.to_str().unwrap(), "--output-dir"];
        args.push(out.to_str().unwrap());
        args.extend(inputs.iter().map(String::as_str));
        args.extend_from_slice(extra);
        let output = tpuc(cache.path(), &args);
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{args:?}: {stdout}\n{stderr}");
        stdout
    };
    let plain = dir.path().join("plain");
    run(&plain, &[]);
    let expected = plain.join("out0.npy");
    let with_kernel = run(
        &dir.path().join("kernel"),
        &[
            "--kernels",
            kernels.to_str().unwrap(),
            "--expect",
            expected.to_str().unwrap(),
        ],
    );
    assert!(with_kernel.contains("PASS"), "{with_kernel}");
    let lowered = uncached(&[
        "opt",
        model.to_str().unwrap(),
        "--kernels",
        kernels.to_str().unwrap(),
        "--kernel-target",
        "cpu",
    ]);
    let text = String::from_utf8_lossy(&lowered.stdout);
    assert!(text.contains("call @four_heads("), "{text}");
    assert!(!text.contains("stablehlo.composite"), "{text}");
}

/// JAX's transformer block, fused with composites kept and with them inlined again, matches
/// JAX's outputs on XLA:CPU.
#[test]
fn the_fused_jax_block_matches_jax() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let jax = |file: &str| format!("testdata/jax/{file}");
    let inlined = format!(
        "--passes={},{},{},inline-composites",
        "chlo-legalize",
        tpuc_passes::PipelineSpec::of_passes(&tpuc_passes::DEFAULT_PASSES),
        tpuc_passes::PipelineSpec::of_passes(&tpuc_passes::FUSE_PASSES)
    );
    for flag in ["--fuse", inlined.as_str()] {
        let mut args = vec![
            "run".to_owned(),
            jax("transformer_block.pretty.mlir"),
            flag.to_owned(),
            "--output-dir".to_owned(),
            out.path().display().to_string(),
        ];
        for i in 0..12 {
            args.extend([
                "--input".to_owned(),
                jax(&format!("transformer_block.in{i}.npy")),
            ]);
        }
        for j in 0..2 {
            args.extend([
                "--expect".to_owned(),
                jax(&format!("transformer_block.out{j}.npy")),
            ]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = tpuc(cache.path(), &args);
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success(),
            "{flag}: {stdout}\n{}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert_eq!(stdout.matches("PASS").count(), 2, "{flag}: {stdout}");
    }
}
