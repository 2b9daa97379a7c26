//! First contact, as a new user meets tpuc: a normal compile prints its report and nothing
//! else (the plugins' own log lines appear only with TPUC_PLUGIN_LOGS=1), and common mistakes
//! get messages that say what to do.

mod support;

use support::{command, fixture, tpuc, uncached};

fn compile_stderr(plugin_logs: bool) -> String {
    let cache = tempfile::tempdir().unwrap();
    let model = fixture("mlp.pt2");
    let mut compile = command(
        cache.path(),
        &[
            "compile",
            model.to_str().unwrap(),
            "--target",
            "tpu:v5e:1x1",
            "--target",
            "cpu",
        ],
    );
    compile.env_remove("TF_CPP_MIN_LOG_LEVEL");
    if plugin_logs {
        compile.env("TPUC_PLUGIN_LOGS", "1");
    } else {
        compile.env_remove("TPUC_PLUGIN_LOGS");
    }
    let out = compile.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("tpu:v5e:1x1"));
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn a_normal_compile_writes_nothing_to_stderr() {
    tpuc_expect::skip_without!(Plugins);
    let stderr = compile_stderr(false);
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn plugin_logs_show_on_request() {
    tpuc_expect::skip_without!(Plugins);
    let stderr = compile_stderr(true);
    assert!(!stderr.is_empty(), "the plugins logged nothing");
}

fn failure(args: &[&str]) -> String {
    let out = uncached(args);
    assert!(!out.status.success(), "tpuc {args:?} succeeded");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn near_miss_targets_get_a_suggestion_and_the_topologies() {
    let model = fixture("mlp.pt2");
    for (target, meant) in [("tpu", "tpu:v5e:2x2"), ("tpu:v5e-2x2", "tpu:v5e:2x2")] {
        let stderr = failure(&["compile", model.to_str().unwrap(), "--target", target]);
        assert!(
            stderr.contains(&format!("did you mean `{meant}`?")),
            "{stderr}"
        );
        assert!(stderr.contains("tpu:v6e:2x2"), "{stderr}");
        assert!(stderr.contains("tpuc targets"), "{stderr}");
    }
}

#[test]
fn a_directory_is_not_an_archive() {
    let stderr = failure(&["inspect", "testdata"]);
    assert!(
        stderr.contains("is a directory, not a .pt2 archive"),
        "{stderr}"
    );
    assert!(!stderr.contains("os error"), "{stderr}");
}

#[test]
fn cache_sizes_take_the_usual_spellings() {
    let cache = tempfile::tempdir().unwrap();
    for size in ["20G", "20GB", "20GiB"] {
        let out = tpuc(cache.path(), &["cache", "gc", "--max-size", size]);
        assert!(
            out.status.success(),
            "{size}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = tpuc(cache.path(), &["cache", "gc", "--max-size", "20 gigs"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("20GiB"), "{stderr}");
}
