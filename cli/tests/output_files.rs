//! What tpuc writes and says when things go wrong, with the real plugins: output files get the
//! permissions `cp` would give them, `run` writes its outputs all or nothing, `--format json`
//! carries every warning, and diagnostics about hostile archives stay short and name the culprit.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use support::{fixture, json, repo_root, tpuc, uncached};

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// The mode the umask gives a file created the ordinary way (as `cp` or `>` would).
fn umask_mode(dir: &Path) -> u32 {
    let reference = dir.join("reference");
    std::fs::File::create(&reference).unwrap();
    let mode = mode(&reference);
    std::fs::remove_file(reference).unwrap();
    mode
}

#[test]
fn compile_output_files_honour_the_umask_and_keep_an_existing_mode() {
    tpuc_expect::skip_without!(Plugins);
    let dir = tempfile::tempdir().unwrap();
    let model = fixture("mlp.pt2");
    let output = dir.path().join("mlp.exe");
    let compile = |output: &Path| {
        let out = tpuc(
            &dir.path().join("cache"),
            &[
                "compile",
                model.to_str().unwrap(),
                "--target",
                "cpu",
                "-o",
                output.to_str().unwrap(),
            ],
        );
        assert!(out.status.success(), "{out:?}");
    };
    compile(&output);
    assert_eq!(mode(&output), umask_mode(dir.path()));
    std::fs::set_permissions(&output, std::fs::Permissions::from_mode(0o644)).unwrap();
    compile(&output);
    assert_eq!(mode(&output), 0o644, "an existing file keeps its mode");
}

fn run_misc(cache: &Path, out_dir: &Path) -> std::process::Output {
    tpuc(
        cache,
        &[
            "run",
            fixture("misc.pt2").to_str().unwrap(),
            "--input",
            fixture("misc.in0.npy").to_str().unwrap(),
            "--input",
            fixture("misc.in1.npy").to_str().unwrap(),
            "--output-dir",
            out_dir.to_str().unwrap(),
        ],
    )
}

#[test]
fn run_writes_its_outputs_all_or_nothing_with_the_umask_mode() {
    tpuc_expect::skip_without!(Plugins);
    let dir = tempfile::tempdir().unwrap();
    let (cache, out_dir) = (dir.path().join("cache"), dir.path().join("out"));
    std::fs::create_dir(&out_dir).unwrap();
    // The last of misc's three outputs cannot be written: a directory has its name.
    std::fs::create_dir(out_dir.join("out2.npy")).unwrap();
    let out = run_misc(&cache, &out_dir);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("out2.npy"), "{stderr}");
    let left: Vec<_> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["out2.npy"], "nothing new is left behind");

    std::fs::remove_dir(out_dir.join("out2.npy")).unwrap();
    let out = run_misc(&cache, &out_dir);
    assert!(out.status.success(), "{out:?}");
    for index in 0..3 {
        let path = out_dir.join(format!("out{index}.npy"));
        assert_eq!(
            std::fs::read(&path).unwrap().len(),
            std::fs::read(fixture(&format!("misc.out{index}.npy")))
                .unwrap()
                .len()
        );
        assert_eq!(mode(&path), umask_mode(dir.path()), "{}", path.display());
    }
}

#[test]
fn compile_json_reports_an_unusable_shared_cache_in_its_warnings() {
    tpuc_expect::skip_without!(Plugins);
    let dir = tempfile::tempdir().unwrap();
    let dead = format!("http://127.0.0.1:{}", tpuc_testkit::free_port());
    let model = fixture("mlp.pt2");
    let (report, stderr) = json(
        dir.path(),
        &[
            "compile",
            model.to_str().unwrap(),
            "--target",
            "cpu",
            "--remote",
            "s3://nobody/x",
            "--endpoint",
            &dead,
            "--remote-deadline",
            "2",
        ],
    );
    let warnings = report["warnings"].as_array().unwrap();
    assert!(
        warnings.iter().any(|w| w
            .as_str()
            .unwrap()
            .contains("shared cache cannot be used now")),
        "{report}\n{stderr}"
    );
    assert_eq!(report["targets"][0]["origin"], "compiled");
}

#[test]
fn a_graph_with_duplicate_node_names_is_refused_naming_the_node() {
    for file in ["duplicate_node_name.pt2", "duplicate_node_output.pt2"] {
        let path = repo_root().join("testdata/malformed").join(file);
        let out = uncached(&["inspect", path.to_str().unwrap()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{file}: {stderr}");
        assert!(
            stderr.contains("two nodes named `linear`") && stderr.contains(file),
            "{file}: {stderr}"
        );
    }
}

#[test]
fn an_overflow_diagnostic_quotes_a_bounded_part_of_a_huge_expression() {
    let path = repo_root().join("testdata/malformed/sym_size_100000_digits.pt2");
    let out = uncached(&["lower", path.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.len() < 4096, "a {} byte diagnostic", stderr.len());
    assert!(
        stderr.contains("overflow") && stderr.contains("(100000 characters)"),
        "{stderr}"
    );
}
