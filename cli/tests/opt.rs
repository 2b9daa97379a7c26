//! `tpuc opt` reads StableHLO that another producer printed, verifies it and prints it again.

mod support;

use support::uncached as tpuc;

#[test]
fn reprints_jax_text_and_reaches_a_fixed_point() {
    let dir = tempfile::tempdir().unwrap();
    for (emit, source) in [
        ("pretty", "testdata/jax/transformer_block.generic.mlir"),
        ("generic", "testdata/jax/control_flow.pretty.mlir"),
    ] {
        let first = dir.path().join(format!("first.{emit}.mlir"));
        let out = tpuc(&["opt", source, "--emit", emit, "-o", first.to_str().unwrap()]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let first_text = std::fs::read_to_string(&first).unwrap();
        assert!(first_text.contains("stablehlo."), "{first_text}");

        let again = tpuc(&["opt", first.to_str().unwrap(), "--emit", emit]);
        assert!(
            again.status.success(),
            "{}",
            String::from_utf8_lossy(&again.stderr)
        );
        assert_eq!(String::from_utf8(again.stdout).unwrap(), first_text);
    }
}

#[test]
fn strips_locations_on_request() {
    let out = tpuc(&[
        "opt",
        "testdata/jax/cnn_bits.pretty.mlir",
        "--emit",
        "generic",
        "--strip-locations",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\"stablehlo.convolution\""), "{text}");
    assert!(!text.contains("loc("), "{text}");
}

#[test]
fn legalizes_chlo_by_default_and_keeps_it_with_no_passes() {
    for file in [
        "chlo_ops",
        "chlo_math",
        "chlo_broadcast",
        "chlo_special",
        "chlo_ragged_dot",
        "chlo_more_text",
        "chlo_more_f64",
    ] {
        let source = format!("testdata/jax/{file}.pretty.mlir");
        let out = tpuc(&["opt", &source]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(!text.contains("chlo."), "{file}: {text}");
        assert!(text.contains("stablehlo."), "{file}: {text}");

        let kept = tpuc(&["opt", &source, "--passes", ""]);
        assert!(kept.status.success());
        let text = String::from_utf8(kept.stdout).unwrap();
        assert!(text.contains("chlo."), "{file}: {text}");
    }
}

#[test]
fn rejects_unmodelled_chlo_with_the_line_of_the_op() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("erf_inv.mlir");
    std::fs::write(
        &file,
        "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  \
         %0 = chlo.minimum_broadcast_shapes %a : tensor<2xf32> -> tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n",
    )
    .unwrap();
    let out = tpuc(&["opt", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unsupported CHLO op `chlo.minimum_broadcast_shapes`"),
        "{stderr}"
    );
    assert!(stderr.contains("erf_inv.mlir:2"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn invalid_module_is_reported_not_printed() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.mlir");
    std::fs::write(
        &bad,
        "func.func @main(%a: tensor<2xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {\n  \
         %0 = stablehlo.add %a, %b : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n",
    )
    .unwrap();
    let out_file = dir.path().join("out.mlir");
    let out = tpuc(&[
        "opt",
        bad.to_str().unwrap(),
        "-o",
        out_file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(!out_file.exists(), "no output file for an invalid module");
}

/// The line of `text` that holds `needle`, with the line after it.
fn line_with<'t>(text: &'t str, needle: &str) -> (&'t str, &'t str) {
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.contains(needle) {
            return (line, lines.next().unwrap_or_default());
        }
    }
    panic!("no line with `{needle}` in:\n{text}");
}

#[test]
fn verifier_errors_label_the_op_and_the_users_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.mlir"),
        "func.func @main(%a: tensor<2xf32>) -> tensor<3xf32> {\n  \
         %0 = stablehlo.abs %a : tensor<2xf32> loc(\"abs\"(\"gone.py\":9:0))\n  \
         %1 = func.call @helper(%0) : (tensor<2xf32>) -> tensor<2xf32> \
         loc(\"call_helper\"(\"model.py\":3:0))\n  \
         return %1 : tensor<2xf32> loc(\"output\"(\"gone.py\":12:0))\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("model.py"),
        "def forward(x):\n    y = x.abs()\n    return helper(y)\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tpuc"))
        .args(["opt", "bad.mlir"])
        .current_dir(dir.path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.contains("2 verifier errors"), "{stderr}");

    // The call: its line of bad.mlir labelled, then the user's line of model.py that exists.
    assert!(stderr.contains("[bad.mlir:3:3]"), "{stderr}");
    let (source, _) = line_with(&stderr, "%1 = func.call @helper(%0)");
    assert!(source.trim_start().starts_with("3 "), "{source}");
    line_with(&stderr, "`func.call` in `@main`");
    line_with(&stderr, "help: define `@helper` in the module");
    line_with(&stderr, "from FX node `call_helper` at model.py:3");
    assert!(stderr.contains("[model.py:3:5]"), "{stderr}");
    let (user_line, _) = line_with(&stderr, "return helper(y)");
    assert!(user_line.trim_start().starts_with("3 "), "{user_line}");
    line_with(&stderr, "this line");

    // The return: its line labelled; its user file is not on disk, so only `file:line`.
    assert!(stderr.contains("[bad.mlir:4:3]"), "{stderr}");
    line_with(&stderr, "the signature says (tensor<3xf32>)");
    line_with(&stderr, "from FX node `output` at gone.py:12");
    assert!(!stderr.contains("[gone.py"), "{stderr}");
}
