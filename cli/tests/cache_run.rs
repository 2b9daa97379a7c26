//! `tpuc run --target cpu` goes through the cache: the first run compiles and stores, later
//! runs load the stored executable (`PJRT_Executable_DeserializeAndLoad`) and execute it.

mod support;

use support::{command, compile, fixture, json};

fn run(cache: &std::path::Path, out: &std::path::Path) -> String {
    let (model, input, expect) = (
        fixture("gpt2.pt2"),
        fixture("gpt2.in0.npy"),
        fixture("gpt2.out0.npy"),
    );
    let output = command(
        cache,
        &[
            "run",
            model.to_str().unwrap(),
            "--input",
            input.to_str().unwrap(),
            "--expect",
            expect.to_str().unwrap(),
            "--output-dir",
            out.to_str().unwrap(),
        ],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "{}\n{stderr}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("PASS"));
    stderr
}

#[test]
fn later_runs_execute_the_cached_executable() {
    tpuc_expect::skip_without!(Plugins);
    let cache = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let first = run(cache.path(), out.path());
    assert!(
        first.contains("executable compiled into the cache"),
        "{first}"
    );
    let second = run(cache.path(), out.path());
    assert!(
        second.contains("executable loaded from the cache"),
        "{second}"
    );

    // `tpuc compile --target cpu` derives the same key, so it hits the entry `run` stored.
    let (report, _) = compile(cache.path(), &fixture("gpt2.pt2"), &["cpu"]);
    let key = report["targets"][0]["key"].as_str().unwrap();
    assert_eq!(report["targets"][0]["hit"], true);
    assert!(second.contains(key), "{second}");

    // A damaged entry is not loaded: the run recompiles, still passes, and repairs it.
    let (show, _) = json(cache.path(), &["cache", "show", key]);
    let payload = std::path::Path::new(show["path"].as_str().unwrap()).join("executable");
    let mut bytes = std::fs::read(&payload).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    std::fs::write(&payload, bytes).unwrap();
    let third = run(cache.path(), out.path());
    assert!(
        third.contains("is corrupt") && third.contains("compiled into the cache"),
        "{third}"
    );
    assert!(run(cache.path(), out.path()).contains("loaded from the cache"));
}
