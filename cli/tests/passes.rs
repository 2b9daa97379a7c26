//! The pass flags of `tpuc lower`, `tpuc compile` and `tpuc opt`: pipelines, dumps, timing,
//! and what the pipeline does to the module and its arguments.

mod support;

use support::{fixture, uncached as tpuc};

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn op_lines(text: &str) -> usize {
    text.lines().filter(|l| l.contains("stablehlo.")).count()
}

#[test]
fn print_ir_after_all_names_each_pass_and_timing_shows_op_deltas() {
    let model = fixture("decoder.pt2");
    let out = tpuc(&[
        "lower",
        model.to_str().unwrap(),
        "--print-ir-after-all",
        "--timing",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let headers: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("// -----// IR after"))
        .collect();
    assert_eq!(
        headers,
        [
            "// -----// IR after canonicalize //----- //",
            "// -----// IR after evaluate //----- //",
            "// -----// IR after cse //----- //",
            "// -----// IR after canonicalize //----- //",
            "// -----// IR after cse //----- //",
            "// -----// IR after dce //----- //",
            "// -----// IR after prune-args //----- //",
        ]
    );
    // The last dump is what stdout prints.
    let stdout = String::from_utf8(out.stdout).unwrap();
    let last = err
        .rsplit("// -----// IR after prune-args //----- //\n")
        .next()
        .unwrap();
    assert!(
        last.starts_with(stdout.as_str()),
        "last dump differs from the output"
    );
    // One timing line per pass with `before → after delta`, then the total.
    let timing: Vec<&str> = err
        .lines()
        .skip_while(|l| !l.starts_with("pass "))
        .skip(1)
        .collect();
    assert_eq!(timing.len(), 8, "{err}");
    let cse: Vec<&str> = timing[2].split_whitespace().collect();
    assert_eq!(cse[0], "cse");
    let (before, after, delta): (i64, i64, i64) = (
        cse[3].parse().unwrap(),
        cse[5].parse().unwrap(),
        cse[6].parse().unwrap(),
    );
    assert!(after < before, "cse removed nothing in the decoder: {err}");
    assert_eq!(after - before, delta);
    assert!(timing[7].starts_with("total"));
}

#[test]
fn print_ir_before_and_after_one_pass_and_an_empty_pipeline() {
    let model = fixture("decoder.pt2");
    let out = tpuc(&[
        "lower",
        model.to_str().unwrap(),
        "--passes",
        "cse",
        "--print-ir-before",
        "cse",
        "--print-ir-after",
        "cse",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let before = err
        .split("// -----// IR after cse //----- //")
        .next()
        .unwrap();
    let after = err
        .split("// -----// IR after cse //----- //")
        .nth(1)
        .unwrap();
    assert!(before.contains("// -----// IR before cse //----- //"));
    assert!(op_lines(after) < op_lines(before));

    let raw = tpuc(&["lower", model.to_str().unwrap(), "--passes", ""]);
    let default = tpuc(&["lower", model.to_str().unwrap()]);
    assert!(raw.status.success() && default.status.success());
    let (raw, default) = (
        String::from_utf8(raw.stdout).unwrap(),
        String::from_utf8(default.stdout).unwrap(),
    );
    // It adds reshapes where libtpu reads fewer bytes for them (linear layers on flattened
    // rows) and removes more of everything else.
    let computing = |text: &str| op_lines(text) - text.matches("stablehlo.reshape").count();
    assert!(
        computing(&default) < computing(&raw),
        "the default pipeline removes ops other than reshapes"
    );
}

#[test]
fn unknown_pass_is_a_diagnostic_listing_the_passes() {
    let model = fixture("mlp.pt2");
    let out = tpuc(&[
        "lower",
        model.to_str().unwrap(),
        "--passes",
        "cse,fuse-everything",
    ]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("unknown pass `fuse-everything`"), "{err}");
    assert!(
        err.contains("canonicalize, fold, evaluate, cse, dce, prune-args"),
        "{err}"
    );
}

#[test]
fn unused_buffers_are_not_arguments_and_runs_still_match() {
    // BatchNorm's `num_batches_tracked` is never read in eval mode.
    let model = fixture("cnn.pt2");
    let raw = tpuc(&["lower", model.to_str().unwrap(), "--passes", ""]);
    let pruned = tpuc(&["lower", model.to_str().unwrap()]);
    let main_args = |out: &std::process::Output| {
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = text
            .lines()
            .find(|l| l.contains("func.func public @main"))
            .unwrap()
            .to_owned();
        line.matches("%arg").count()
    };
    assert_eq!(main_args(&raw), main_args(&pruned) + 1);
}

#[test]
fn opt_runs_a_pipeline_on_text() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.mlir");
    std::fs::write(
        &path,
        "module {\n  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n    %0 = stablehlo.exponential %arg0 : tensor<4xf32>\n    %1 = stablehlo.exponential %arg0 : tensor<4xf32>\n    %2 = stablehlo.add %0, %1 : tensor<4xf32>\n    return %2 : tensor<4xf32>\n  }\n}\n",
    )
    .unwrap();
    let untouched = tpuc(&["opt", path.to_str().unwrap()]);
    let simplified = tpuc(&[
        "opt",
        path.to_str().unwrap(),
        "--passes",
        "cse",
        "--verify-each",
    ]);
    assert!(untouched.status.success() && simplified.status.success());
    let count = |out: &std::process::Output| {
        String::from_utf8_lossy(&out.stdout)
            .matches("stablehlo.exponential")
            .count()
    };
    assert_eq!((count(&untouched), count(&simplified)), (2, 1));
}
