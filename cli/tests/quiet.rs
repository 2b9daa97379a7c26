//! First contact: a normal compile prints its report and nothing else; the plugins' own log
//! lines (libtpu's hugepage notice, XLA's INFO lines) appear only with TPUC_PLUGIN_LOGS=1.

mod support;

use support::{command, fixture};

fn compile_stderr(plugin_logs: bool) -> String {
    let cache = tempfile::tempdir().unwrap();
    let model = fixture("mlp.pt2");
    let mut compile = command(
        cache.path(),
        &[
            "compile",
            model.to_str().unwrap(),
            "--target",
            "tpu:v5e:2x2",
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
    assert!(String::from_utf8_lossy(&out.stdout).contains("tpu:v5e:2x2"));
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn a_normal_compile_writes_nothing_to_stderr() {
    let stderr = compile_stderr(false);
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn plugin_logs_show_on_request() {
    let stderr = compile_stderr(true);
    assert!(!stderr.is_empty(), "the plugins logged nothing");
}
