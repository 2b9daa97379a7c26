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
