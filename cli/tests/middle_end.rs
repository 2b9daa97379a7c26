//! The middle end as a user meets it: one key per pipeline however it is spelled, unknown
//! passes refused with the list, every pass (kernels and sharding included) in `--timing`, the
//! obvious spellings of one TPU chip, and modules no plugin may see.

mod support;

use support::{fixture, json, tpuc};
use tpuc_driver::Tolerance;
use tpuc_npy::Array;

/// The front-end key `tpuc key` derives for `model` with `flags`.
fn frontend_key(cache: &std::path::Path, model: &str, flags: &[&str]) -> String {
    let mut args = vec!["key", model, "--target", "cpu"];
    args.extend(flags);
    let (answer, _) = json(cache, &args);
    answer["frontend_key"].as_str().unwrap().to_owned()
}

#[test]
fn spellings_of_one_pipeline_share_a_key() {
    tpuc_expect::skip_without!(CpuPlugin);
    let cache = tempfile::tempdir().unwrap();
    let mlp = fixture("mlp.pt2");
    let mlp = mlp.to_str().unwrap();
    let spaced = frontend_key(cache.path(), mlp, &["--passes", "cse, dce"]);
    let tight = frontend_key(cache.path(), mlp, &["--passes", "cse,dce"]);
    let trailing = frontend_key(cache.path(), mlp, &["--passes", "cse,dce,"]);
    assert_eq!(spaced, tight);
    assert_eq!(tight, trailing);
    let other = frontend_key(cache.path(), mlp, &["--passes", "dce,cse"]);
    assert_ne!(tight, other, "the order of passes is part of the pipeline");
    let default = frontend_key(cache.path(), mlp, &[]);
    let spelled = frontend_key(
        cache.path(),
        mlp,
        &[
            "--passes",
            "canonicalize,evaluate,cse,canonicalize,cse,dce,prune-args",
        ],
    );
    assert_eq!(
        default, spelled,
        "the default pipeline written out is the default"
    );
}

#[test]
fn an_unknown_pass_is_a_usage_error_listing_the_passes() {
    let cache = tempfile::tempdir().unwrap();
    let out = tpuc(
        cache.path(),
        &["lower", "testdata/models/mlp.pt2", "--passes", "cse,fusee"],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unknown pass `fusee`"), "{stderr}");
    for pass in [
        "canonicalize",
        "prune-args",
        "sharding-propagate",
        "inline-composites",
    ] {
        assert!(stderr.contains(pass), "{stderr}");
    }
}

#[test]
fn timing_covers_kernels_and_sharding() {
    let cache = tempfile::tempdir().unwrap();
    let out = tpuc(
        cache.path(),
        &[
            "lower",
            "testdata/models/gpt2.pt2",
            "--kernels",
            "kernels",
            "--shard",
            "fsdp",
            "--mesh",
            "dp=4",
            "--timing",
            "--print-ir-after",
            "shard",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    for stage in [
        "canonicalize",
        "prune-args",
        "fuse",
        "kernels",
        "shard",
        "sharding-propagate",
    ] {
        assert!(
            stderr
                .lines()
                .any(|line| line.starts_with(&format!("{stage} "))),
            "no `{stage}` in the timing table:\n{stderr}"
        );
    }
    assert!(stderr.contains("IR after shard"), "{stderr}");
}

#[test]
fn one_chip_has_its_obvious_spellings() {
    tpuc_expect::skip_without!(TpuPlugin);
    let cache = tempfile::tempdir().unwrap();
    let keys = |target: &str| {
        let (answer, _) = json(
            cache.path(),
            &["key", "testdata/models/mlp.pt2", "--target", target],
        );
        answer["targets"][0]["key"].as_str().unwrap().to_owned()
    };
    assert_eq!(keys("tpu:v5e:1"), keys("tpu:v5e:1x1"));
    let out = tpuc(
        cache.path(),
        &["key", "testdata/models/mlp.pt2", "--target", "tpu:v5e:4"],
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("has 2 dimensions"), "{stderr}");
}

#[test]
fn a_module_no_target_could_hold_is_refused_before_any_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let module = dir.path().join("huge.mlir");
    std::fs::write(
        &module,
        "func.func public @main(%a: tensor<99999999999x99999999999xf32>) -> tensor<99999999999x99999999999xf32> {\n  return %a : tensor<99999999999x99999999999xf32>\n}\n",
    )
    .unwrap();
    let out = tpuc(
        dir.path(),
        &["compile", module.to_str().unwrap(), "--target", "cpu"],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("argument 0"), "{stderr}");
    assert!(stderr.contains("overflows 64 bits"), "{stderr}");
}

#[test]
fn a_literal_nested_past_the_limit_is_a_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    let module = dir.path().join("deep.mlir");
    let depth = 100_000;
    let literal = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    std::fs::write(
        &module,
        format!(
            "func.func public @main() -> tensor<f32> {{\n  %0 = stablehlo.constant dense<{literal}> : tensor<f32>\n  return %0 : tensor<f32>\n}}\n"
        ),
    )
    .unwrap();
    let out = tpuc(dir.path(), &["opt", module.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("nest"), "{stderr}");
}

/// A buffer the program mutates is donated: its new value is written into the argument's own
/// buffer (`tf.aliasing_output`), so the compiler aliases them instead of holding two copies,
/// and the run still writes the buffers eager PyTorch computed.
#[test]
fn mutated_buffers_are_updated_in_place() {
    tpuc_expect::skip_without!(CpuPlugin);
    let cache = tempfile::tempdir().unwrap();
    let (answer, _) = json(
        cache.path(),
        &["compile", "testdata/models/stateful.pt2", "--target", "cpu"],
    );
    // `cache` is 8x4 float32 and `steps` one int64.
    let memory = &answer["targets"][0]["memory"];
    assert_eq!(memory["alias_bytes"], 8 * 4 * 4 + 8, "{answer:#}");
    let out = tempfile::tempdir().unwrap();
    for sharding in [&[][..], &["--target", "cpu:2", "--shard", "dp"][..]] {
        let mut args = vec![
            "run",
            "testdata/models/stateful.pt2",
            "--input",
            "testdata/models/stateful.in0.npy",
            "--input",
            "testdata/models/stateful.in1.npy",
            "--expect",
            "testdata/models/stateful.out0.npy",
            "--output-dir",
            out.path().to_str().unwrap(),
        ];
        args.extend(sharding);
        let run = tpuc(cache.path(), &args);
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        for buffer in ["cache", "steps"] {
            let written = Array::read(out.path().join(format!("buffer.{buffer}.npy"))).unwrap();
            let eager = Array::read(fixture(&format!("stateful.buffer.{buffer}.npy"))).unwrap();
            let comparison = tpuc_driver::compare(&written, &eager, Tolerance::default());
            assert!(
                comparison.passed(),
                "{buffer} with {sharding:?}: {comparison:?}"
            );
        }
    }
}
