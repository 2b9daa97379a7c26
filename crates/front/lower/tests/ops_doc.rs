//! `docs/ops.md` must list exactly what the registry supports.

use std::path::PathBuf;

#[test]
fn ops_doc_is_current() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../docs/ops.md");
    let expected = tpuc_lower::ops_markdown();
    if std::env::var_os("UPDATE_OPS_DOC").is_some() {
        std::fs::write(&path, &expected).expect("write docs/ops.md");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == expected,
        "docs/ops.md is stale; regenerate it with `UPDATE_OPS_DOC=1 cargo test -p tpuc-lower --test ops_doc`"
    );
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
