//! `tpuc cache ls | show | verify | gc | stats | rm` on a real cache.

mod support;

use support::{compile, fixture, json, tpuc};

#[test]
fn cache_commands_list_show_evict_and_remove() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let (mlp, _) = compile(cache.path(), &fixture("mlp.pt2"), &["cpu", "cpu:2"]);
    let (cnn, _) = compile(cache.path(), &fixture("cnn.pt2"), &["cpu"]);
    let key = |report: &serde_json::Value, i: usize| {
        report["targets"][i]["key"].as_str().unwrap().to_owned()
    };

    let (ls, _) = json(cache.path(), &["cache", "ls"]);
    let listed: Vec<&str> = ls["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["key"].as_str().unwrap())
        .collect();
    assert_eq!(listed.len(), 3);
    for k in [key(&mlp, 0), key(&mlp, 1), key(&cnn, 0)] {
        assert!(listed.contains(&k.as_str()), "{k} not in {listed:?}");
    }

    let (show, _) = json(cache.path(), &["cache", "show", &key(&mlp, 1)]);
    let manifest = &show["manifest"];
    assert_eq!(manifest["target"], "cpu:2");
    assert_eq!(manifest["key_parts"]["target"]["topology"], "cpu:2");
    assert_eq!(manifest["key_parts"]["target"]["platform"], "cpu");
    assert_eq!(manifest["signature"]["arguments"][0]["kind"], "parameter");
    let inputs = manifest["signature"]["arguments"].as_array().unwrap();
    assert_eq!(inputs.last().unwrap()["kind"], "input");
    assert_eq!(manifest["signature"]["results"][0]["kind"], "output");

    let (stats, _) = json(cache.path(), &["cache", "stats"]);
    assert_eq!(
        (stats["entries"].as_u64(), stats["modules"].as_u64()),
        (Some(3), Some(2))
    );
    assert_eq!(stats["frontend_keys"], 2);

    json(cache.path(), &["cache", "rm", &key(&mlp, 0)]);
    let missing = tpuc(cache.path(), &["cache", "show", &key(&mlp, 0)]);
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no entry"));
    let bad = tpuc(cache.path(), &["cache", "rm", "xyz"]);
    assert!(!bad.status.success());

    // The recompiled mlp entry is the most recently used: a cap of one entry keeps it.
    compile(cache.path(), &fixture("mlp.pt2"), &["cpu"]);
    let (ls, _) = json(cache.path(), &["cache", "ls"]);
    let newest = &ls["entries"][0];
    assert_eq!(newest["key"].as_str().unwrap(), key(&mlp, 0));
    let (stats, _) = json(cache.path(), &["cache", "stats"]);
    let cap = newest["size"].as_u64().unwrap() + stats["module_bytes"].as_u64().unwrap();
    let (gc, _) = json(
        cache.path(),
        &["cache", "gc", "--max-size", &cap.to_string()],
    );
    assert_eq!(
        (gc["kept_entries"].as_u64(), gc["removed_entries"].as_u64()),
        (Some(1), Some(2)),
        "{gc}"
    );
    let (ls, _) = json(cache.path(), &["cache", "ls"]);
    let kept: Vec<&str> = ls["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["key"].as_str().unwrap())
        .collect();
    assert_eq!(kept, [key(&mlp, 0)]);
    let (gc, _) = json(cache.path(), &["cache", "gc", "--max-size", "0"]);
    assert_eq!(gc["kept_entries"], 0);
    let (stats, _) = json(cache.path(), &["cache", "stats"]);
    assert_eq!(
        (stats["entries"].as_u64(), stats["modules"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(stats["frontend_keys"], 0);
}

#[test]
fn cache_commands_on_a_regular_file_fail_with_a_diagnostic() {
    let work = tempfile::tempdir().unwrap();
    let file = work.path().join("cache-is-a-file");
    std::fs::write(&file, b"").unwrap();
    for args in [
        &["cache", "ls"][..],
        &["cache", "verify"],
        &["cache", "stats"],
        &["cache", "gc", "--max-size", "1G"],
    ] {
        let out = tpuc(&file, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("cache-is-a-file is not a directory")
                && stderr.contains("tpuc::cache::unusable"),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
