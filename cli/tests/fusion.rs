//! `--fuse` end to end: fixtures with composites kept and with them inlined compile for a TPU
//! topology through libtpu, the fusion choice enters the cache key, and `--timing` counts the
//! composites.

mod support;

use support::{compile, fixture, json, tpuc, uncached, warnings};

const FUSED_FIXTURES: &[&str] = &["decoder", "gpt2", "bert", "vit", "llama", "quant_bf16"];

#[test]
fn fused_fixtures_compile_for_tpu_kept_and_inlined() {
    let cache = tempfile::tempdir().unwrap();
    let inlined = format!(
        "--passes={},{},inline-composites",
        tpuc_passes::DEFAULT_PIPELINE,
        tpuc_passes::FUSE_PASSES
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
    let pipeline = format!("--passes={}", tpuc_passes::DEFAULT_PIPELINE);
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
