//! Shape buckets for serving: `compile --buckets`/`--dim` lists build one executable per
//! shape and record them in the shape index; `key --shape` answers with the smallest bucket
//! that holds a request and the padding it needs; dimensions are named by symbol or by input
//! axis, and names that cannot apply are diagnostics.

mod support;

use std::path::Path;

use serde_json::{Value, json as value};
use support::{fixture, json, tpuc};

fn dyn_seq() -> String {
    fixture("dyn_seq.pt2").to_str().unwrap().to_owned()
}

fn compile_buckets(cache: &Path, flags: &[&str]) -> Value {
    let model = dyn_seq();
    let mut args = vec!["compile", model.as_str(), "--target", "cpu"];
    args.extend_from_slice(flags);
    json(cache, &args).0
}

fn key_for(cache: &Path, shape: &str) -> std::process::Output {
    let model = dyn_seq();
    tpuc(
        cache,
        &[
            "key", &model, "--target", "cpu", "--shape", shape, "--format", "json",
        ],
    )
}

/// A failed `--format json` command's error (on stdout): its message and help as one line.
fn json_error(out: &std::process::Output) -> String {
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("no JSON error: {}", String::from_utf8_lossy(&out.stdout)));
    let error = &report["error"];
    assert_eq!(error["code"], "tpuc::shape", "{report}");
    format!(
        "{} help: {}",
        error["message"].as_str().unwrap(),
        error["help"].as_str().unwrap_or("")
    )
}

fn stderr(out: &std::process::Output) -> String {
    support::unwrapped(&String::from_utf8_lossy(&out.stderr))
}

#[test]
fn buckets_compile_one_executable_per_shape_and_key_picks_the_smallest_that_holds() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let report = compile_buckets(cache.path(), &["--buckets", "tokens.1=pow2:4..16"]);
    let targets = report["targets"].as_array().unwrap();
    assert_eq!(targets.len(), 3, "{report}");
    let mut keys = std::collections::BTreeMap::new();
    for (target, seq) in targets.iter().zip([4, 8, 16]) {
        assert_eq!(target["target"], "cpu");
        assert_eq!(target["dims"], value!({"s27": seq}), "{target}");
        assert_eq!(
            target["inputs"],
            value!([{"name": "tokens", "shape": [2, seq]}])
        );
        assert_eq!(target["hit"], false);
        keys.insert(seq, target["key"].as_str().unwrap().to_owned());
    }
    assert_eq!(keys.len(), 3, "every shape has its own executable");

    // The same list as --dim, in another order: every shape is a cache hit.
    let again = compile_buckets(cache.path(), &["--dim", "s27=16,4,8", "-j", "2"]);
    let hits: Vec<_> = again["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["dims"]["s27"].as_i64().unwrap(), t["hit"].clone()))
        .collect();
    assert_eq!(
        hits,
        [(4, Value::Bool(true)), (8, true.into()), (16, true.into())]
    );

    for (request, bucket, padding) in [
        (
            "tokens=2x5",
            8,
            value!([{"input": "tokens", "axis": 1, "from": 5, "to": 8}]),
        ),
        ("tokens=2x16", 16, value!([])),
        (
            "tokens=1x3",
            4,
            value!([
                {"input": "tokens", "axis": 0, "from": 1, "to": 2},
                {"input": "tokens", "axis": 1, "from": 3, "to": 4},
            ]),
        ),
    ] {
        let out = key_for(cache.path(), request);
        assert!(out.status.success(), "{request}: {}", stderr(&out));
        let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
        let target = &answer["targets"][0];
        assert_eq!(target["dims"], value!({"s27": bucket}), "{request}");
        assert_eq!(target["key"], keys[&bucket].as_str(), "{request}");
        assert_eq!(target["cached"], true, "{request}");
        assert_eq!(target["padding"], padding, "{request}");
        assert_eq!(target["family_key"].as_str().unwrap().len(), 64);
    }

    let out = key_for(cache.path(), "tokens=2x17");
    assert_eq!(out.status.code(), Some(1));
    let text = json_error(&out);
    for needle in [
        "no compiled bucket for cpu holds tokens=2x17",
        "tokens=2x4; tokens=2x8; tokens=2x16",
        "--buckets",
    ] {
        assert!(text.contains(needle), "`{needle}` missing: {text}");
    }
    let out = key_for(cache.path(), "ids=2x8");
    assert_eq!(out.status.code(), Some(1));
    let text = json_error(&out);
    assert!(text.contains("the program has no input `ids`"), "{text}");
    assert!(text.contains("its inputs are tokens"), "{text}");
}

#[test]
fn a_shape_never_compiled_for_the_target_says_how_to_get_one() {
    let cache = tempfile::tempdir().unwrap();
    let out = key_for(cache.path(), "tokens=2x8");
    assert_eq!(out.status.code(), Some(1));
    let text = json_error(&out);
    assert!(
        text.contains("no shape of this program is recorded for cpu"),
        "{text}"
    );
}

#[test]
fn dimension_names_that_cannot_apply_are_diagnostics() {
    let cache = tempfile::tempdir().unwrap();
    let model = dyn_seq();
    for (flags, needles) in [
        (
            vec!["--dim", "tokens.0=4"],
            vec!["`tokens.0`: axis 0 of `tokens` is static (size 2)"],
        ),
        (
            vec!["--dim", "tokens.2=4"],
            vec!["input `tokens` has 2 dimensions, so no axis 2"],
        ),
        (
            vec!["--dim", "ids.1=4"],
            vec![
                "the program has no user input `ids`",
                "its inputs are tokens",
            ],
        ),
        (
            vec!["--dim", "tokens.1=8", "--dim", "s27=16"],
            vec!["are the same dimension (`s27`)"],
        ),
        (
            vec!["--buckets", "s27=64..8"],
            vec!["buckets are written pow2:LO..HI"],
        ),
        (vec!["--dim", "s27=0"], vec!["a size must be positive"]),
        (
            vec!["--dim", "s99=8"],
            vec!["the program has no symbol `s99`"],
        ),
    ] {
        let mut args = vec!["compile", model.as_str(), "--target", "cpu"];
        args.extend(&flags);
        let out = tpuc(cache.path(), &args);
        let text = stderr(&out);
        assert_ne!(out.status.code(), Some(0), "{flags:?}");
        for needle in needles {
            assert!(
                text.contains(needle),
                "{flags:?}: `{needle}` missing: {text}"
            );
        }
    }
    // Commands that work on one shape refuse a list.
    let out = support::uncached(&["lower", &model, "--dim", "s27=8,16"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(
        stderr(&out)
            .contains("--dim and --buckets ask for 2 shapes, but this command works on one"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_input_axis_names_the_same_shape_as_its_symbol() {
    let by_axis = support::uncached(&["lower", &dyn_seq(), "--dim", "tokens.1=32"]);
    let by_symbol = support::uncached(&["lower", &dyn_seq(), "--dim", "s27=32"]);
    assert!(by_axis.status.success(), "{}", stderr(&by_axis));
    assert_eq!(by_axis.stdout, by_symbol.stdout);
    assert!(String::from_utf8_lossy(&by_axis.stdout).contains("tensor<2x32xi64>"));
}

#[test]
fn prewarm_plans_take_buckets_by_input_axis_and_fill_the_shape_index() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join("plan.toml");
    std::fs::write(
        &plan,
        format!(
            "[[models]]\npath = {:?}\ntargets = [\"cpu\"]\nbuckets = {{ \"tokens.1\" = \"pow2:4..8\" }}\n",
            dyn_seq()
        ),
    )
    .unwrap();
    let out = tpuc(cache.path(), &["prewarm", plan.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = key_for(cache.path(), "tokens=2x6");
    assert!(out.status.success(), "{}", stderr(&out));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["targets"][0]["dims"], value!({"s27": 8}));
    assert_eq!(answer["targets"][0]["cached"], true);

    std::fs::write(
        &plan,
        format!(
            "[[models]]\npath = {:?}\ntargets = [\"cpu\"]\nbuckets = {{ s27 = \"4..8\" }}\n",
            dyn_seq()
        ),
    )
    .unwrap();
    let out = tpuc(cache.path(), &["prewarm", plan.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("buckets are written pow2:LO..HI"),
        "{}",
        stderr(&out)
    );
}
