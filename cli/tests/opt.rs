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
fn rejects_chlo_with_the_line_of_the_op() {
    let out = tpuc(&["opt", "testdata/jax/chlo_ops.pretty.mlir"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("chlo."), "{stderr}");
    assert!(stderr.contains("chlo_ops.pretty.mlir"), "{stderr}");
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
