//! The messages a new user meets when something is wrong (issue 12, "First contact"): each
//! says what happened, where, and what to do, with a non-zero exit, in text and in JSON.

mod support;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;
use support::{command, compile, fixture, json, tpuc};

/// A copy of the fixture `name` in `dir` whose program JSON has every `from` replaced by `to`
/// (same length, CRCs fixed up); how many of each were replaced.
fn edited(dir: &Path, name: &str, replacements: &[(&str, &str)]) -> (PathBuf, Vec<usize>) {
    let mut bytes = std::fs::read(fixture(name)).unwrap();
    let mut counts = vec![0; replacements.len()];
    tpuc_testkit::zip::edit_records(
        &mut bytes,
        |record| record.ends_with("models/model.json"),
        |_, _, data| {
            for ((from, to), count) in replacements.iter().zip(&mut counts) {
                assert_eq!(from.len(), to.len());
                let mut i = 0;
                while i + from.len() <= data.len() {
                    if &data[i..i + from.len()] == from.as_bytes() {
                        data[i..i + from.len()].copy_from_slice(to.as_bytes());
                        *count += 1;
                        i += from.len();
                    } else {
                        i += 1;
                    }
                }
            }
        },
    );
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    (path, counts)
}

/// `text` without whitespace and the frame of a rendered diagnostic, so that a message can be
/// found wherever the renderer wrapped its lines.
fn squash(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace() && !"│×╰─▶".contains(*c))
        .collect()
}

/// Whether the diagnostic text `stderr` says `message`, however it was wrapped.
fn says(stderr: &str, message: &str) -> bool {
    squash(stderr).contains(&squash(message))
}

/// The run succeeded; its stderr.
fn succeeded(out: &Output, what: &str) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{what}: {stderr}");
    stderr
}

/// The run failed with exit code 1, without a panic; its stderr.
fn failed(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!says(&stderr, "panicked"), "{stderr}");
    stderr
}

/// GPT-2 with `aten.embedding` (one node for tokens, one for positions) and `aten.view`
/// (many nodes) renamed to ops tpuc does not know; how many views it has.
fn gpt2_with_unknown_ops(dir: &Path) -> (PathBuf, usize) {
    let (path, counts) = edited(
        dir,
        "gpt2.pt2",
        &[
            (
                "\"torch.ops.aten.embedding.default\"",
                "\"torch.ops.aten.embeddinx.default\"",
            ),
            (
                "\"torch.ops.aten.view.default\"",
                "\"torch.ops.aten.viex.default\"",
            ),
        ],
    );
    assert_eq!(counts[0], 2, "GPT-2 embeds tokens and positions");
    (path, counts[1])
}

#[test]
fn an_unsupported_op_points_at_the_line_with_the_op() {
    let dir = tempfile::tempdir().unwrap();
    let (model, _) = gpt2_with_unknown_ops(dir.path());
    let model = model.to_str().unwrap();
    let stderr = failed(&tpuc(dir.path(), &["lower", model]));
    // The first unknown node is `view` in GPT2Model.forward, called from the LM head model's
    // forward, called from the fixture's wrapper: the diagnostic names the innermost line.
    assert!(
        says(&stderr, "transformers/models/gpt2/modeling_gpt2.py:549"),
        "{stderr}"
    );
    assert!(
        says(&stderr, "input_ids.view(-1, input_shape[-1])"),
        "{stderr}"
    );
    assert!(!says(&stderr, "generate.py"), "{stderr}");
    assert!(!says(&stderr, "call chain"), "{stderr}");

    // -v adds the whole chain, outermost first.
    let stderr = failed(&tpuc(dir.path(), &["lower", model, "-v"]));
    let chain = stderr
        .split_once("call chain of node `view` (outermost first):\n")
        .unwrap_or_else(|| panic!("{stderr}"))
        .1;
    let frames: Vec<&str> = chain.lines().take(3).map(str::trim).collect();
    assert_eq!(
        frames,
        [
            "testdata/generate.py:335 in forward",
            "transformers/models/gpt2/modeling_gpt2.py:683 in forward",
            "transformers/models/gpt2/modeling_gpt2.py:549 in forward",
        ],
        "{stderr}"
    );
}

#[test]
fn keep_going_reports_each_unsupported_op_once_with_its_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let (model, views) = gpt2_with_unknown_ops(dir.path());
    assert!(views > 5, "GPT-2 has {views} views");
    let stderr = failed(&tpuc(
        dir.path(),
        &["lower", model.to_str().unwrap(), "--keep-going"],
    ));
    assert!(
        says(&stderr, "2 ops of the model cannot be lowered"),
        "{stderr}"
    );
    assert_eq!(
        squash(&stderr)
            .matches(&squash(
                "tpuc does not lower `torch.ops.aten.viex.default` yet"
            ))
            .count(),
        1,
        "{stderr}"
    );
    assert!(
        says(
            &stderr,
            &format!("`torch.ops.aten.viex.default` yet: {views} node(s): `view`, `view_1`")
        ),
        "{stderr}"
    );
    assert!(
        says(&stderr, &format!("and {} more, first at", views - 5)),
        "{stderr}"
    );
    assert!(
        says(
            &stderr,
            "`torch.ops.aten.embeddinx.default` yet: 2 node(s): `embedding`, `embedding_1`, first at transformers/models/gpt2/modeling_gpt2.py:569"
        ),
        "{stderr}"
    );
}

/// `tpuc ARGS --format json` that fails: exit code 1, nothing on stderr, and its error object.
fn json_error(cache: &Path, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let out = tpuc(cache, &all);
    let stderr = failed(&out);
    assert!(stderr.is_empty(), "{stderr}");
    let value: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stdout));
    });
    value["error"].clone()
}

#[test]
fn with_format_json_errors_are_json_on_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let (model, views) = gpt2_with_unknown_ops(dir.path());
    let model = model.to_str().unwrap();

    let error = json_error(dir.path(), &["compile", model, "--target", "cpu"]);
    assert_eq!(error["code"], "tpuc::lower::unsupported_op");
    assert_eq!(error["node"], "view");
    assert_eq!(
        error["location"]["file"],
        "transformers/models/gpt2/modeling_gpt2.py"
    );
    assert_eq!(error["location"]["line"], 549);
    assert_eq!(error["location"]["chain"].as_array().unwrap().len(), 3);
    assert!(error["message"].as_str().unwrap().contains("viex"));
    assert!(error["help"].as_str().unwrap().contains("docs/ops.md"));

    let error = json_error(
        dir.path(),
        &["compile", model, "--target", "cpu", "--keep-going"],
    );
    assert_eq!(error["code"], "tpuc::lower::many");
    let related = error["related"].as_array().unwrap();
    assert_eq!(related.len(), 2, "{error}");
    assert_eq!(related[0]["target"], "torch.ops.aten.viex.default");
    assert_eq!(related[0]["count"], views);
    assert_eq!(related[0]["nodes"].as_array().unwrap().len(), views);
    assert_eq!(related[1]["count"], 2);

    let error = json_error(dir.path(), &["cache", "show", "zz"]);
    assert_eq!(error["code"], "tpuc::cache::key");
    assert!(error["help"].as_str().unwrap().contains("64 hex digits"));
    assert!(error["node"].is_null() && error["location"].is_null());

    // A parse error carries its position.
    let module = dir.path().join("bad.mlir");
    std::fs::write(&module, "func.func @main() {\n  %0 = stablehlo.nope\n}\n").unwrap();
    let error = json_error(dir.path(), &["key", module.to_str().unwrap()]);
    assert_eq!(error["code"], "tpuc::mlir_parse", "{error}");
    assert_eq!(error["location"]["line"], 2, "{error}");
}

#[test]
fn an_archive_from_a_newer_torch_says_which_versions_tpuc_reads() {
    let dir = tempfile::tempdir().unwrap();
    let (model, counts) = edited(
        dir.path(),
        "mlp.pt2",
        &[
            ("\"major\": 8, \"minor\": 20", "\"major\": 9, \"minor\": 20"),
            ("\"2.15.0+cu132\"", "\"2.17.0+cu132\""),
        ],
    );
    assert_eq!(counts, [1, 1]);
    let stderr = failed(&tpuc(dir.path(), &["inspect", model.to_str().unwrap()]));
    assert!(
        says(
            &stderr,
            "was written by torch 2.17.0+cu132 with export schema 9.20, newer than this tpuc knows"
        ),
        "{stderr}"
    );
    assert!(
        says(
            &stderr,
            "tpuc reads export schema 8.x, which torch 2.9 to 2.15 write"
        ),
        "{stderr}"
    );
    assert!(says(&stderr, "a newer tpuc may read it"), "{stderr}");
    assert!(!says(&stderr, ">= 2.9"), "{stderr}");
}

#[test]
fn an_unknown_xla_flag_is_a_diagnostic_not_an_abort() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let model = fixture("mlp.pt2");
    // XLA aborts on both: a flag no XLA has, and a libtpu flag (which goes in
    // LIBTPU_INIT_ARGS) even though libtpu knows its name.
    for (target, flag) in [
        ("cpu", "--xla_no_such_flag"),
        ("tpu:v5e:1x1", "--xla_no_such_flag"),
        ("tpu:v5e:1x1", "--xla_tpu_enable_latency_hiding_scheduler"),
    ] {
        let out = command(
            cache.path(),
            &["compile", model.to_str().unwrap(), "--target", target],
        )
        .env(
            "XLA_FLAGS",
            format!("--xla_backend_optimization_level=1 {flag}=true"),
        )
        .output()
        .unwrap();
        let stderr = failed(&out);
        assert!(
            says(&stderr, "XLA_FLAGS has a flag the plugin")
                && says(&stderr, &format!("does not know: {flag}")),
            "{target}: {stderr}"
        );
        assert!(says(&stderr, "LIBTPU_INIT_ARGS"), "{stderr}");
        assert!(
            !says(&stderr, "xla_backend_optimization_level,"),
            "{stderr}"
        );
        assert!(!says(&stderr, "Unknown flag"), "{stderr}");
    }
    // XLA reads a value that does not start with `-` as a file of flags, and needs two dashes.
    let flag_file = cache.path().join("xla-flags.txt");
    std::fs::write(
        &flag_file,
        "--xla_backend_optimization_level=1\n--xla_nope\n",
    )
    .unwrap();
    let missing = cache.path().join("no-such-file");
    for (value, message) in [
        (
            flag_file.to_str().unwrap(),
            format!(
                "does not know: --xla_nope help: XLA_FLAGS names the flag file `{}`",
                flag_file.display()
            ),
        ),
        (
            missing.to_str().unwrap(),
            format!(
                "XLA_FLAGS names the flag file `{}`, which cannot be read",
                missing.display()
            ),
        ),
        (
            "-xla_backend_optimization_level=1",
            "does not know: -xla_backend_optimization_level".to_owned(),
        ),
    ] {
        let out = command(
            cache.path(),
            &["compile", model.to_str().unwrap(), "--target", "cpu"],
        )
        .env("XLA_FLAGS", value)
        .output()
        .unwrap();
        let stderr = failed(&out);
        assert!(says(&stderr, &message), "{value}: {stderr}");
        assert!(!says(&stderr, "F0000"), "{stderr}");
    }

    // Flags the plugins know pass.
    for target in ["cpu", "tpu:v5e:1x1"] {
        let out = command(
            cache.path(),
            &["compile", model.to_str().unwrap(), "--target", target],
        )
        .env(
            "XLA_FLAGS",
            "--xla_backend_optimization_level=1 --xla_dump_hlo_as_text=false",
        )
        .output()
        .unwrap();
        succeeded(&out, target);
    }
}

/// A cache holding mlp.pt2 compiled for XLA:CPU; its key.
fn cache_with_mlp(cache: &Path) -> String {
    let (report, _) = compile(cache, &fixture("mlp.pt2"), &["cpu"]);
    report["targets"][0]["key"].as_str().unwrap().to_owned()
}

#[test]
fn cache_commands_take_unique_key_prefixes() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let key = cache_with_mlp(cache.path());
    let (show, _) = json(cache.path(), &["cache", "show", &key[..6]]);
    assert_eq!(show["key"], key);

    let out_file = cache.path().join("mlp.exe");
    json(
        cache.path(),
        &[
            "cache",
            "export",
            &key[..8].to_uppercase(),
            "--for",
            "pjrt",
            "-o",
            out_file.to_str().unwrap(),
        ],
    );
    assert!(out_file.metadata().unwrap().len() > 0);

    let (verify, _) = json(cache.path(), &["cache", "verify", &key[..5]]);
    assert_eq!(
        (
            verify["ok"].as_u64(),
            verify["corrupt"].as_array().map(Vec::len)
        ),
        (Some(1), Some(0))
    );

    let stderr = failed(&tpuc(cache.path(), &["cache", "show", &key[..3]]));
    assert!(says(&stderr, "is too short"), "{stderr}");
    assert!(says(&stderr, "at least 4 hex digits"), "{stderr}");

    // A second entry directory whose key shares the first 10 digits makes them ambiguous.
    let entries = cache.path().join("v1/entries").join(&key[..2]);
    let twin = format!("{}{}", &key[..10], "0".repeat(54));
    std::fs::create_dir(entries.join(&twin)).unwrap();
    for (args, what) in [
        (vec!["cache", "show", &key[..6]], "show"),
        (vec!["cache", "verify", &key[..8]], "verify"),
        (vec!["cache", "rm", &key[..10]], "rm"),
    ] {
        let stderr = failed(&tpuc(cache.path(), &args));
        assert!(
            says(&stderr, "is ambiguous: 2 cache entries' keys start with it"),
            "{what}: {stderr}"
        );
        assert!(
            says(&stderr, &key) && says(&stderr, &twin),
            "{what}: {stderr}"
        );
        assert!(says(&stderr, "give more digits"), "{what}: {stderr}");
    }
    let stderr = failed(&tpuc(cache.path(), &["cache", "rm", "abcdef12"]));
    assert!(
        says(&stderr, "no cache entry's key starts with `abcdef12`"),
        "{stderr}"
    );
    json(cache.path(), &["cache", "rm", &key[..11]]);
    assert!(!entries.join(&key).exists());
}

#[test]
fn cache_ls_shows_ages_and_models() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let key = cache_with_mlp(cache.path());
    let out = tpuc(cache.path(), &["cache", "ls"]);
    succeeded(&out, "cache ls");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find(|line| line.starts_with(&key))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.contains(" mlp.pt2 "), "{line}");
    assert!(
        line.ends_with("ago") || line.ends_with("just now"),
        "{line}"
    );

    let (ls, _) = json(cache.path(), &["cache", "ls"]);
    let entry = &ls["entries"][0];
    assert_eq!(entry["model"], "mlp.pt2");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let used = entry["last_used_unix"].as_u64().unwrap();
    assert!(used <= now && now - used < 600, "{entry}");
    assert!(entry["created_unix"].as_u64().unwrap() <= now);
}

#[test]
fn verbose_shows_what_the_plugin_logged_while_loading() {
    tpuc_expect::skip_without!(Plugins);
    let model = fixture("mlp.pt2");
    let run = |verbose: bool| {
        let mut args = vec![
            "compile",
            model.to_str().unwrap(),
            "--target",
            "tpu:v5e:1x1",
        ];
        if verbose {
            args.push("-v");
        }
        let scratch = tempfile::tempdir().unwrap();
        let out = command(scratch.path(), &args)
            .env_remove("TF_CPP_MIN_LOG_LEVEL")
            .env_remove("TPUC_PLUGIN_LOGS")
            .output()
            .unwrap();
        succeeded(&out, "compile")
    };
    assert_eq!(run(false), "");
    let stderr = run(true);
    let log = stderr
        .split_once("while loading:\n")
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        log.0.starts_with("plugin log of ") && log.0.trim_end().ends_with("libtpu.so"),
        "{stderr}"
    );
    assert!(!log.1.trim().is_empty(), "{stderr}");
}

#[test]
fn the_graph_listing_shows_the_call_chain() {
    let cache = tempfile::tempdir().unwrap();
    let model = fixture("gpt2.pt2");
    let out = tpuc(
        cache.path(),
        &["inspect", model.to_str().unwrap(), "--graph"],
    );
    succeeded(&out, "inspect");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let view = stdout
        .split_once("%view = aten.view.default(")
        .unwrap_or_else(|| panic!("{stdout}"))
        .1;
    let lines: Vec<&str> = view.lines().skip(1).take(2).map(str::trim).collect();
    assert_eq!(
        lines,
        [
            "at transformers/models/gpt2/modeling_gpt2.py:549: input_ids = input_ids.view(-1, input_shape[-1])",
            "called from transformers/models/gpt2/modeling_gpt2.py:683 (forward), testdata/generate.py:335 (forward)",
        ],
        "{stdout}"
    );

    let (report, _) = json(
        cache.path(),
        &["inspect", model.to_str().unwrap(), "--graph"],
    );
    let node = &report["graph"]["nodes"][0];
    assert_eq!(node["name"], "view");
    assert_eq!(node["source"]["line"], 549);
    assert_eq!(node["stack"].as_array().unwrap().len(), 3);
    assert_eq!(node["stack"][0]["file"], "testdata/generate.py");
}
