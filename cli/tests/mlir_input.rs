//! StableHLO text as the model: `tpuc compile FILE.mlir`, `tpuc run FILE.mlir` and prewarm
//! plans naming `.mlir` files go through the passes and the cache like a `.pt2` does.

mod support;

use std::path::Path;

use support::{command, compile, repo_root, tpuc};

fn jax(name: &str) -> std::path::PathBuf {
    repo_root().join("testdata/jax").join(name)
}

#[test]
fn a_jax_module_with_chlo_compiles_for_tpu_through_the_cache() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let model = jax("chlo_math.pretty.mlir");
    let (first, _) = compile(cache.path(), &model, &["tpu:v5e:2x2"]);
    assert_eq!(first["frontend_hit"], false, "{first}");
    assert_eq!(first["targets"][0]["hit"], false, "{first}");
    let (second, _) = compile(cache.path(), &model, &["tpu:v5e:2x2"]);
    assert_eq!(second["frontend_hit"], true, "{second}");
    assert_eq!(second["targets"][0]["hit"], true, "{second}");
    assert_eq!(second["targets"][0]["key"], first["targets"][0]["key"]);
}

#[test]
fn run_matches_jax_outputs_on_xla_cpu() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    for (name, inputs, outputs) in [
        ("transformer_block.pretty.mlir", 12, 2),
        ("chlo_ops.generic.mlir", 1, 3),
        ("control_flow.generic.mlir", 3, 4),
        ("chlo_special.generic.mlir", 6, 8),
        // Its batch-mode group sizes end up unused; `run` still takes all seven inputs.
        ("chlo_ragged_dot.generic.mlir", 7, 3),
    ] {
        let stem = name.split('.').next().unwrap();
        let mut args = vec![
            "run".to_owned(),
            jax(name).display().to_string(),
            "--output-dir".to_owned(),
            out.path().display().to_string(),
        ];
        for i in 0..inputs {
            args.push("--input".to_owned());
            args.push(jax(&format!("{stem}.in{i}.npy")).display().to_string());
        }
        for j in 0..outputs {
            args.push("--expect".to_owned());
            args.push(jax(&format!("{stem}.out{j}.npy")).display().to_string());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = tpuc(cache.path(), &args);
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success(),
            "{name}: {stdout}\n{}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert_eq!(stdout.matches("PASS").count(), outputs, "{name}: {stdout}");
    }
}

#[test]
fn run_reports_a_wrong_input_count() {
    let cache = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let model = jax("chlo_ops.pretty.mlir");
    let run = tpuc(
        cache.path(),
        &[
            "run",
            model.to_str().unwrap(),
            "--output-dir",
            out.path().to_str().unwrap(),
        ],
    );
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("takes 1 input(s)"), "{stderr}");
    assert!(stderr.contains("(arg0)"), "{stderr}");
    assert!(stderr.contains("0 were given"), "{stderr}");
}

#[test]
fn a_broken_module_is_a_diagnostic_at_its_line() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.mlir");
    std::fs::write(
        &bad,
        "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  \
         %0 = stablehlo.bogus %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n",
    )
    .unwrap();
    let out = tpuc(
        cache.path(),
        &["compile", bad.to_str().unwrap(), "--target", "cpu"],
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.mlir:2:"), "{stderr}");
    assert!(stderr.contains("stablehlo.bogus"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn prewarm_compiles_mlir_entries_then_hits() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("m")).unwrap();
    std::fs::copy(
        jax("chlo_ops.pretty.mlir"),
        dir.path().join("m/chlo_ops.mlir"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("plan.toml"),
        "[[models]]\npath = \"m/*.mlir\"\ntargets = [\"cpu\", \"tpu:v5e:2x2\"]\n",
    )
    .unwrap();
    let prewarm = |dir: &Path| {
        let out = command(cache.path(), &["prewarm", "plan.toml"])
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let first = prewarm(dir.path());
    assert!(first.contains("2 items: 2 compiled"), "{first}");
    let second = prewarm(dir.path());
    assert!(second.contains("2 items: 0 compiled, 2 hit"), "{second}");
}
