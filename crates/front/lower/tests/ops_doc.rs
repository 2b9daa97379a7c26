//! `docs/ops.md` must list exactly what the registry supports; regenerate it with
//! `BLESS=1 cargo test -p tpuc-lower --test ops_doc`.

use std::path::PathBuf;

use tpuc_expect::expect_file;

#[test]
fn ops_doc_is_current() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../docs/ops.md");
    expect_file(path, &tpuc_lower::ops_markdown());
}

#[test]
fn supported_targets_are_sorted_and_listed() {
    let targets: Vec<&str> = tpuc_lower::supported_targets().collect();
    assert!(targets.windows(2).all(|w| w[0] < w[1]));
    assert!(targets.contains(&"torch.ops.aten.linear.default"));
    assert!(targets.contains(&"torch.ops.aten.add.Tensor"));
    let doc = tpuc_lower::ops_markdown();
    for target in targets {
        assert!(
            doc.contains(&format!("`{target}`")),
            "{target} missing from the docs"
        );
    }
}

/// Every op of the pinned torch's core ATen opset lowers, or is listed with its reason; at
/// most five are listed.
#[test]
fn every_core_aten_op_lowers_or_says_why_not() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../testdata/core_aten.json");
    let core: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let supported: Vec<&str> = tpuc_lower::supported_targets().collect();
    let listed: Vec<&str> = tpuc_lower::NOT_LOWERED.iter().map(|(t, _)| *t).collect();
    assert!(listed.windows(2).all(|w| w[0] < w[1]), "{listed:?}");
    for target in &listed {
        assert!(
            !supported.contains(target),
            "{target} lowers: drop it from NOT_LOWERED"
        );
    }
    let missing: Vec<String> = core["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|op| format!("torch.ops.aten.{}", op.as_str().unwrap()))
        .filter(|t| !supported.contains(&t.as_str()) && !listed.contains(&t.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "core ATen ops neither lowered nor listed: {missing:?}"
    );
    assert!(
        listed.len() <= 5,
        "{} core ops not lowered: {listed:?}",
        listed.len()
    );
}
