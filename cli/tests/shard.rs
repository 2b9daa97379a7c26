//! `--shard` and `--mesh` on the commands: the Llama-style fixture compiled for TPU topologies
//! with every chip (libtpu, compile-only), what `tpuc lower --shard` shows, what the manifest
//! records, and the diagnostics of plans that cannot apply.

mod support;

use std::path::Path;

use serde_json::Value;
use support::{fixture, json, tpuc, warnings};

fn llama() -> String {
    fixture("llama.pt2").to_str().unwrap().to_owned()
}

/// `tpuc compile llama --target TARGET FLAGS... --format json`: the target's report.
fn compile(cache: &Path, target: &str, flags: &[&str]) -> (Value, String) {
    let model = llama();
    let mut args = vec!["compile", model.as_str(), "--target", target];
    args.extend(flags);
    let (report, stderr) = json(cache, &args);
    (report["targets"][0].clone(), stderr)
}

fn number(report: &Value, section: &str, name: &str) -> f64 {
    report[section][name]
        .as_f64()
        .unwrap_or_else(|| panic!("no {section}.{name} in {report}"))
}

#[test]
fn llama_uses_every_chip_of_a_v5e_2x2_with_fsdp_and_tp() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let (whole, stderr) = compile(cache.path(), "tpu:v5e:2x2", &[]);
    assert_eq!(whole["partitions"], 1);
    assert!(
        warnings(&stderr)
            .iter()
            .any(|w| w.contains("has 4 devices, but this executable uses one")),
        "{stderr}"
    );
    let whole_arguments = number(&whole, "memory", "argument_bytes");
    let whole_flops = number(&whole, "cost", "flops");
    for (preset, max_arguments, max_flops) in [("fsdp", 0.3, 1.0), ("tp", 0.3, 0.3)] {
        let (sharded, stderr) = compile(cache.path(), "tpu:v5e:2x2", &["--shard", preset]);
        assert_eq!(sharded["devices"], 4, "{preset}");
        assert_eq!(sharded["partitions"], 4, "{preset}");
        assert!(
            !stderr.contains("uses one of them"),
            "{preset}: a sharded executable uses every chip: {stderr}"
        );
        let arguments = number(&sharded, "memory", "argument_bytes") / whole_arguments;
        let flops = number(&sharded, "cost", "flops") / whole_flops;
        eprintln!("{preset}: per-device arguments {arguments:.3}x, flops {flops:.3}x");
        assert!(
            arguments <= max_arguments,
            "{preset}: arguments {arguments:.3}x"
        );
        assert!(flops <= max_flops, "{preset}: flops {flops:.3}x");
    }
}

#[test]
fn larger_topologies_and_other_generations_compile_sharded() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    for (target, flags, partitions) in [
        ("tpu:v5e:2x4", &["--shard", "tp"][..], 8),
        (
            "tpu:v5e:2x4",
            &["--shard", "fsdp+tp", "--mesh", "dp=2,tp=4"][..],
            8,
        ),
        ("tpu:v6e:2x2", &["--shard", "fsdp"][..], 4),
        (
            "tpu:v6e:2x2",
            &["--shard", "dp+tp", "--mesh", "dp=2,tp=2"][..],
            4,
        ),
        ("cpu:4", &["--shard", "tp"][..], 4),
    ] {
        let (report, stderr) = compile(cache.path(), target, flags);
        assert_eq!(
            report["partitions"], partitions,
            "{target} {flags:?}: {stderr}"
        );
        assert!(report["mesh"].as_str().is_some(), "{target} {flags:?}");
    }
}

#[test]
fn every_fixture_compiles_sharded_for_v5e_2x2_or_says_why_not() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let manifest = support::manifest();
    for (name, model) in manifest["models"].as_object().unwrap() {
        let file = support::repo_root()
            .join("testdata")
            .join(model["files"]["pt2"].as_str().unwrap());
        let file = file.to_str().unwrap();
        for flags in [&["--shard", "fsdp"][..], &["--shard", "tp"][..]] {
            let mut args = vec![
                "compile",
                file,
                "--target",
                "tpu:v5e:2x2",
                "--format",
                "json",
            ];
            args.extend(flags);
            let out = tpuc(cache.path(), &args);
            let stderr = support::unwrapped(&String::from_utf8_lossy(&out.stderr));
            if out.status.success() {
                let report: Value = serde_json::from_slice(&out.stdout).unwrap();
                assert_eq!(report["targets"][0]["partitions"], 4, "{name} {flags:?}");
            } else {
                // Only a plan that cannot apply may stop it, and it says why.
                assert!(
                    stderr.contains("tpuc::shard::"),
                    "{name} {flags:?}: {stderr}"
                );
            }
        }
    }
}

#[test]
fn the_plan_and_mesh_enter_the_key_and_the_manifest_records_shardings() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let (tp, _) = compile(cache.path(), "tpu:v5e:2x2", &["--shard", "tp"]);
    let (fsdp, _) = compile(cache.path(), "tpu:v5e:2x2", &["--shard", "fsdp"]);
    let (mesh, _) = compile(
        cache.path(),
        "tpu:v5e:2x2",
        &["--shard", "dp+tp", "--mesh", "dp=2,tp=2"],
    );
    let (other_mesh, _) = compile(
        cache.path(),
        "tpu:v5e:2x2",
        &["--shard", "dp+tp", "--mesh", "tp=2,dp=2"],
    );
    let keys: std::collections::BTreeSet<_> = [&tp, &fsdp, &mesh, &other_mesh]
        .iter()
        .map(|r| r["key"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(keys.len(), 4, "every plan and mesh has its own key");
    let (again, _) = compile(cache.path(), "tpu:v5e:2x2", &["--shard", "tp"]);
    assert_eq!(again["key"], tp["key"]);
    assert_eq!(again["hit"], true);

    let entry = Path::new(tp["entry"].as_str().unwrap());
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(entry.join("manifest.json")).unwrap()).unwrap();
    let signature = &manifest["signature"];
    assert_eq!(
        signature["mesh"],
        serde_json::json!([{"name": "tp", "size": 4}])
    );
    let argument = |fqn: &str| {
        signature["arguments"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["name"] == fqn)
            .unwrap_or_else(|| panic!("no argument {fqn}"))["sharding"]
            .clone()
    };
    // Megatron: q/k/v and up/gate split on their output features, o and down on their inputs.
    let column = serde_json::json!([["tp"], []]);
    let row = serde_json::json!([[], ["tp"]]);
    for (fqn, expected) in [
        ("inner.model.layers.0.self_attn.q_proj.weight", &column),
        ("inner.model.layers.0.self_attn.k_proj.weight", &column),
        ("inner.model.layers.0.self_attn.v_proj.weight", &column),
        ("inner.model.layers.0.self_attn.o_proj.weight", &row),
        ("inner.model.layers.1.mlp.gate_proj.weight", &column),
        ("inner.model.layers.1.mlp.up_proj.weight", &column),
        ("inner.model.layers.1.mlp.down_proj.weight", &row),
        ("inner.lm_head.weight", &column),
    ] {
        assert_eq!(&argument(fqn), expected, "{fqn}");
    }
    // A square embedding ([256, 256]) fills tiles either way; it splits on the vocabulary.
    assert_eq!(argument("inner.model.embed_tokens.weight"), column);
}

#[test]
fn plans_that_cannot_apply_fail_naming_tensor_shape_and_axis() {
    let dir = tempfile::tempdir().unwrap();
    let plan = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let nothing = plan(
        "nothing.toml",
        "[parameters]\n\"encoder.*\" = \"replicated\"\n",
    );
    let odd = plan(
        "odd.toml",
        "mesh = \"tp=3\"\n[parameters]\n\"inner.lm_head.weight\" = [[\"tp\"], []]\n",
    );
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            vec!["--shard", &nothing, "--target", "tpu:v5e:2x2"],
            vec!["encoder.*", "matches no parameter"],
        ),
        (
            vec!["--shard", &odd, "--target", "cpu:3"],
            vec!["lm_head.weight", "[256, 256]", "axis `tp` (3)"],
        ),
        (
            vec!["--shard", "dp", "--target", "cpu:8"],
            vec!["input 0", "[4, 16]", "axis `dp` (8)"],
        ),
        (
            vec![
                "--shard",
                "dp+tp",
                "--mesh",
                "dp=2,tp=4",
                "--target",
                "tpu:v5e:2x2",
            ],
            vec!["dp=2,tp=4", "8 devices", "the target has 4"],
        ),
        (
            vec!["--shard", "tensor", "--target", "cpu:2"],
            vec!["`tensor` is neither a sharding preset nor a plan file"],
        ),
        (vec!["--shard", "tp"], vec!["no --mesh and no target"]),
        (
            vec!["--shard", "auto", "--target", "tpu:v5e:2x2"],
            vec!["--shard auto picks a plan", "only `tpuc compile`"],
        ),
    ];
    let model = llama();
    let collectives = support::fixture("collectives.pt2")
        .to_str()
        .unwrap()
        .to_owned();
    let cases: Vec<(&str, Vec<&str>, Vec<&str>)> = cases
        .into_iter()
        .map(|(flags, needles)| (model.as_str(), flags, needles))
        .chain([(
            collectives.as_str(),
            vec!["--shard", "fsdp", "--target", "tpu:v5e:2x2"],
            vec!["collectives for 4 ranks", "compile it without --shard"],
        )])
        .collect();
    for (model, flags, needles) in cases {
        let mut args = vec!["lower", model];
        args.extend(&flags);
        let out = support::uncached(&args);
        let stderr = support::unwrapped(&String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(1), "{flags:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{flags:?}: no module on failure");
        for needle in needles {
            assert!(
                stderr.contains(needle),
                "{flags:?}: `{needle}` missing: {stderr}"
            );
        }
    }
    // The same diagnostics from compile, before anything is compiled.
    let cache = tempfile::tempdir().unwrap();
    let out = tpuc(
        cache.path(),
        &["compile", &model, "--target", "cpu:3", "--shard", &odd],
    );
    let stderr = support::unwrapped(&String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("weight `inner.lm_head.weight` has shape [256, 256]"),
        "{stderr}"
    );
    let (stats, _) = json(cache.path(), &["cache", "stats"]);
    assert_eq!(stats["entries"], 0);
}

#[test]
fn prewarm_entries_shard_and_compile_hits_them() {
    tpuc_expect::skip_without!(Plugins);
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("models")).unwrap();
    std::fs::copy(fixture("mlp.pt2"), dir.path().join("models/mlp.pt2")).unwrap();
    let plan = "[[models]]\npath = \"models/mlp.pt2\"\ntargets = [\"cpu:2\"]\nshard = \"fsdp\"\n\n\
                [[models]]\npath = \"models/mlp.pt2\"\ntargets = [\"cpu:2\"]\n";
    std::fs::write(dir.path().join("plan.toml"), plan).unwrap();
    let cache = dir.path().join("cache");
    let out = support::command(&cache, &["prewarm", "plan.toml", "--report", "report.json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let report: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("report.json")).unwrap()).unwrap();
    let items = report["items"]
        .as_array()
        .unwrap_or_else(|| panic!("{report}"));
    assert_eq!(
        items.len(),
        2,
        "the sharded and the plain item are two items"
    );
    assert_ne!(items[0]["key"], items[1]["key"]);

    let model = dir.path().join("models/mlp.pt2");
    let model = model.to_str().unwrap();
    let (compiled, _) = json(
        &cache,
        &["compile", model, "--target", "cpu:2", "--shard", "fsdp"],
    );
    assert_eq!(compiled["targets"][0]["key"], items[0]["key"]);
    assert_eq!(compiled["targets"][0]["hit"], true);
    assert_eq!(compiled["targets"][0]["partitions"], 2);
}

#[test]
fn a_program_with_collectives_compiles_for_a_slice_as_its_ranks() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let model = support::fixture("collectives.pt2");
    let args = [
        "compile",
        model.to_str().unwrap(),
        "--target",
        "tpu:v5e:2x2",
    ];
    let (report, stderr) = json(cache.path(), &args);
    assert_eq!(report["targets"][0]["devices"], 4, "{report}");
    assert!(
        warnings(&stderr).is_empty(),
        "its four ranks use the four chips: {stderr}"
    );
}

#[test]
fn shard_auto_needs_a_tpu_target_and_picks_the_mesh_itself() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let model = llama();
    for (flags, needle) in [
        (&["--target", "cpu:4"][..], "cpu:4 is not a TPU"),
        (
            &["--target", "tpu:v5e:2x2", "--mesh", "tp=4"][..],
            "picks the mesh as well",
        ),
    ] {
        let mut args = vec!["compile", model.as_str(), "--shard", "auto"];
        args.extend(flags);
        let out = tpuc(cache.path(), &args);
        let stderr = support::unwrapped(&String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(1), "{flags:?}: {stderr}");
        assert!(stderr.contains(needle), "{flags:?}: {stderr}");
    }
}
