//! `--debug`: compiled gathers clamp an out-of-range index where PyTorch raises; with the
//! flag, `tpuc run` names the failing node and its source line and exits non-zero.

mod support;

use std::path::Path;

use tpuc_npy::Array;

/// `decoder`'s tokens with one id past its 64-entry vocabulary.
fn bad_tokens(dir: &Path) -> String {
    let tokens = Array::read(support::fixture("decoder.in0.npy")).unwrap();
    let mut data = tokens.data().to_vec();
    data[8 * 11..8 * 12].copy_from_slice(&70i64.to_le_bytes());
    let bad = Array::new(tokens.dtype(), tokens.shape().to_vec(), data).unwrap();
    let path = dir.join("bad_tokens.npy");
    std::fs::write(&path, bad.to_npy_bytes()).unwrap();
    path.to_str().unwrap().to_owned()
}

fn unwrapped(bytes: &[u8]) -> String {
    support::unwrapped(&String::from_utf8_lossy(bytes))
}

#[test]
fn debug_run_reports_an_out_of_range_token_id_at_its_embedding() {
    tpuc_expect::skip_without!(Plugins);
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let tokens = bad_tokens(dir.path());
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    for model in [
        "testdata/models/decoder.pt2",
        "testdata/models/decoder.core.pt2",
    ] {
        let args = [
            "run",
            model,
            "--input",
            &tokens,
            "--output-dir",
            out,
            "--debug",
        ];
        let run = support::command(&cache, &args).output().unwrap();
        let stderr = unwrapped(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{model}: {stderr}");
        assert!(
            stderr.contains("index 70 is out of range [0, 64) in node `embedding`")
                && stderr.contains("testdata/generate.py:144: `h = self.embed(tokens)`"),
            "{model}: {stderr}"
        );
        // Without --debug the compiled program clamps the index and runs.
        let run = support::command(&cache, &args[..6]).output().unwrap();
        assert!(run.status.success(), "{model}: {}", unwrapped(&run.stderr));
    }
}

#[test]
fn debug_checks_pass_on_valid_inputs_and_show_in_the_lowered_ir() {
    tpuc_expect::skip_without!(Plugins);
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let out = dir.path().join("out");
    let args = [
        "run",
        "testdata/models/misc.pt2",
        "--input",
        "testdata/models/misc.in0.npy",
        "--input",
        "testdata/models/misc.in1.npy",
        "--expect",
        "testdata/models/misc.out0.npy",
        "--output-dir",
        out.to_str().unwrap(),
        "--debug",
    ];
    let run = support::command(&cache, &args).output().unwrap();
    assert!(run.status.success(), "{}", unwrapped(&run.stderr));
    let plain = support::command(&cache, &["lower", "testdata/models/decoder.pt2"])
        .output()
        .unwrap();
    let checked = support::command(&cache, &["lower", "testdata/models/decoder.pt2", "--debug"])
        .output()
        .unwrap();
    let (plain, checked) = (unwrapped(&plain.stdout), unwrapped(&checked.stdout));
    assert!(checked.len() > plain.len());
    assert!(checked.contains("tensor<2xi64>") && !plain.contains("tensor<2xi64>"));
}

/// `log_of_input`'s input with element `[1, 2]` set to `value`.
fn input_with(dir: &Path, value: f32) -> String {
    let input = Array::read(support::fixture("log_of_input.in0.npy")).unwrap();
    let mut data = input.data().to_vec();
    let at = 4 * (4 + 2);
    data[at..at + 4].copy_from_slice(&value.to_le_bytes());
    let bad = Array::new(input.dtype(), input.shape().to_vec(), data).unwrap();
    let path = dir.join(format!("input_{value}.npy"));
    std::fs::write(&path, bad.to_npy_bytes()).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn debug_nan_run_names_the_first_node_whose_output_is_not_finite() {
    tpuc_expect::skip_without!(Plugins);
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let out = dir.path().join("out");
    let out = out.to_str().unwrap();
    for (value, what) in [(-1.0, "NaN"), (0.0, "-inf")] {
        let input = input_with(dir.path(), value);
        for model in [
            "testdata/models/log_of_input.pt2",
            "testdata/models/log_of_input.core.pt2",
        ] {
            let args = [
                "run",
                model,
                "--input",
                &input,
                "--output-dir",
                out,
                "--debug=nan",
            ];
            let run = support::command(&cache, &args).output().unwrap();
            let stderr = unwrapped(&run.stderr);
            assert_eq!(run.status.code(), Some(1), "{model}: {stderr}");
            assert!(
                stderr
                    .contains("node `log` (`torch.ops.aten.log.default`) at testdata/generate.py:")
                    && stderr.contains("`y = torch.log(x)` gives ")
                    && stderr.contains(&format!(
                        "gives {what} at [1, 2] of its output 0 (shape [3, 4])"
                    )),
                "{model}: {stderr}"
            );
            // Plain `--debug` (index checks only) and no `--debug` run and write the NaN, and
            // say where it is.
            for args in [&args[..6], &[&args[..6], &["--debug"]].concat()[..]] {
                let run = support::command(&cache, args).output().unwrap();
                let stderr = unwrapped(&run.stderr);
                assert!(run.status.success(), "{model}: {stderr}");
                let warned = stderr.contains("output 1 holds 1 NaN (the first at [1])");
                assert_eq!(warned, what == "NaN", "{model}: {stderr}");
            }
        }
    }
    // An expected output that is finite where the run's is not says so.
    // Runs against the fixture's expected outputs.
    let expecting = |input: &str, extra: &[&str]| {
        let args = [
            &[
                "run",
                "testdata/models/log_of_input.pt2",
                "--input",
                input,
                "--expect",
                "testdata/models/log_of_input.out0.npy",
                "--expect",
                "testdata/models/log_of_input.out1.npy",
                "--output-dir",
                out,
            ],
            extra,
        ]
        .concat();
        support::command(&cache, &args).output().unwrap()
    };
    let run = expecting(&input_with(dir.path(), -1.0), &[]);
    let stdout = unwrapped(&run.stdout);
    assert_ne!(run.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains(
            "out1: 1 NaN or infinite values where the expected output is finite (the first at [1])"
        ),
        "{stdout}"
    );
    // Finite inputs pass the checks.
    let run = expecting("testdata/models/log_of_input.in0.npy", &["--debug=nan"]);
    assert!(run.status.success(), "{}", unwrapped(&run.stderr));
}

#[test]
fn debug_nan_lowers_a_check_per_floating_point_output() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let lower = |extra: &[&str]| {
        let args = [&["lower", "testdata/models/log_of_input.pt2"], extra].concat();
        let out = support::command(&cache, &args).output().unwrap();
        assert!(out.status.success(), "{}", unwrapped(&out.stderr));
        unwrapped(&out.stdout)
    };
    let (plain, index, nan) = (lower(&[]), lower(&["--debug"]), lower(&["--debug=nan"]));
    assert_eq!(plain, index, "the model has no index to check");
    assert!(!plain.contains("tensor<4xi64>"));
    assert!(
        nan.contains("stablehlo.is_finite") && nan.contains("tensor<4xi64>"),
        "{nan}"
    );
}
