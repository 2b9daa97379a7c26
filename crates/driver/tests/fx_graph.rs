//! `--emit fx`: the FX graph of fixtures as text.

use std::path::{Path, PathBuf};

use tpuc_pt2::Archive;

fn model(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/models")
        .join(name)
}

#[test]
fn mlp_graph_lists_placeholders_calls_and_return() {
    let text = tpuc_driver::fx_graph(&Archive::open(model("mlp.pt2")).unwrap());
    assert!(text.starts_with("graph():\n"), "{text}");
    assert!(
        text.contains("    %x : float32[2, 4] = placeholder[target=x]\n"),
        "{text}"
    );
    assert!(
        text.contains("= call_function[target=torch.ops.aten.linear.default](args = (%x, "),
        "{text}"
    );
    assert!(text.ends_with("    return (%linear_1,)\n"), "{text}");
}

#[test]
fn subgraphs_follow_their_graph_and_symbols_show() {
    let text = tpuc_driver::fx_graph(&Archive::open(model("cond.pt2")).unwrap());
    assert!(
        text.contains("target=torch.ops.higher_order.cond"),
        "{text}"
    );
    assert!(text.contains("\ntrue_graph_0():\n"), "{text}");
    assert!(text.contains("\nfalse_graph_0():\n"), "{text}");
    let text = tpuc_driver::fx_graph(&Archive::open(model("dyn_batch.pt2")).unwrap());
    assert!(
        text.contains("%x : float32[s77, 4, 6] = placeholder[target=x]"),
        "{text}"
    );
}
