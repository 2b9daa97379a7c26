//! The op counter gives the counts the peers' README states for torch_xla's StableHLO.

use tpuc_benches::op_count::OpCounts;
use tpuc_benches::peers_dir;

#[test]
fn torch_xla_op_counts_match_the_peers_readme() {
    let Some(peers) = peers_dir() else {
        eprintln!("skipped: no peer comparison set at ../shared/peers");
        return;
    };
    let expected = [
        ("mlp", 10),
        ("cnn", 27),
        ("decoder1", 117),
        ("gpt2", 194),
        ("bert", 198),
        ("llama", 233),
    ];
    for (name, ops) in expected {
        let path = peers.join("torch_xla").join(format!("{name}.mlir"));
        let text = std::fs::read_to_string(&path).expect("torch_xla's StableHLO of the model");
        assert_eq!(OpCounts::of(&text).total(), ops, "{name}");
    }
}
