//! `tpuc run` and `tpuc lower` end to end on the real XLA:CPU plugin: every fixture of
//! testdata/manifest.json against the outputs eager PyTorch computed, and the command line's
//! behaviour on bad inputs, failed comparisons and unwritable outputs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

mod support;

use serde_json::Value;
use tpuc_driver::{Input, Options, ResultRole, Runtime, Tolerance};
use tpuc_npy::Array;

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata")
}

fn manifest() -> Value {
    let text = std::fs::read_to_string(testdata().join("manifest.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn paths(list: &Value) -> Vec<PathBuf> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|p| testdata().join(p.as_str().unwrap()))
        .collect()
}

/// Runs one input set; `Ok` holds one line per compared array, `Err` why it failed.
fn run_set(
    runtime: &Runtime,
    model: &Path,
    set: &Value,
    tolerance: Tolerance,
    options: &Options,
) -> Result<Vec<String>, String> {
    let inputs = paths(&set["inputs"])
        .iter()
        .map(Input::read)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let run = tpuc_driver::run(runtime, model, &inputs, options)
        .map_err(|e| format!("{:?}", miette::Report::new(e)))?;
    let expected = paths(&set["outputs"]);
    if run.outputs.len() != expected.len() {
        return Err(format!(
            "{} outputs, expected {}",
            run.outputs.len(),
            expected.len()
        ));
    }
    let mut compared: Vec<(String, tpuc_driver::HostTensor<'_>, PathBuf)> = run
        .outputs
        .into_iter()
        .zip(expected)
        .enumerate()
        .map(|(i, (got, want))| (format!("out{i}"), got, want))
        .collect();
    for (source, value) in run.mutations {
        let ResultRole::BufferMutation { fqn } = source else {
            return Err(format!("unexpected mutation {source:?}"));
        };
        let want = set["mutated_buffers"][&fqn]
            .as_str()
            .ok_or_else(|| format!("mutation of {fqn}, which eager does not mutate"))?;
        compared.push((format!("buffer {fqn}"), value, testdata().join(want)));
    }
    let mut lines = Vec::new();
    for (what, got, want) in compared {
        let got = got
            .to_npy()
            .ok_or_else(|| format!("{what}: no .npy form"))?;
        let c = tpuc_driver::compare(&got, &Array::read(&want).unwrap(), tolerance);
        let line = format!(
            "{what}: max abs {:.3e}, max rel {:.3e}, {}/{} outside",
            c.max_abs, c.max_rel, c.mismatched, c.total
        );
        if !c.passed() {
            return Err(format!("{line} {:?}", c.incompatible));
        }
        lines.push(line);
    }
    Ok(lines)
}

/// Runs every fixture of the manifest (both dialects) through `pipeline` and compares every
/// output with eager PyTorch's.
fn every_fixture_matches_eager_with(pipeline: &str) {
    let runtime = Runtime::cpu(None).unwrap();
    let options = Options {
        pipeline: tpuc_passes::PipelineRequest {
            passes: Some(tpuc_passes::PassName::parse_list(pipeline).unwrap()),
            ..Default::default()
        },
        ..Options::default()
    };
    let manifest = manifest();
    let mut failures = Vec::new();
    for (name, entry) in manifest["models"].as_object().unwrap() {
        let tolerance = Tolerance {
            rtol: entry["tolerance"]["rtol"].as_f64().unwrap(),
            atol: entry["tolerance"]["atol"].as_f64().unwrap(),
        };
        for variant in ["pt2", "core"] {
            let model = testdata().join(entry["files"][variant].as_str().unwrap());
            let sets = entry["files"]["sets"].as_array().unwrap();
            let started = Instant::now();
            let results: Vec<_> = sets
                .iter()
                .map(|set| run_set(&runtime, &model, set, tolerance, &options))
                .collect();
            let label = format!("{name} ({variant})");
            eprintln!("{label}: {:.2?}", started.elapsed());
            for (k, result) in results.iter().enumerate() {
                match result {
                    Ok(lines) => lines.iter().for_each(|l| eprintln!("  set {k} {l}")),
                    Err(why) => eprintln!("  set {k} FAILED: {why}"),
                }
            }
            if !results.iter().all(Result::is_ok) {
                failures.push(label);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "fixtures that differ from eager with `{pipeline}`: {failures:?}"
    );
}

#[test]
fn every_fixture_matches_eager() {
    tpuc_expect::skip_without!(Plugins);
    every_fixture_matches_eager_with(
        &tpuc_passes::PipelineSpec::of_passes(&tpuc_passes::DEFAULT_PASSES).to_string(),
    );
}

/// With composites kept: XLA:CPU inlines their decompositions itself.
#[test]
fn every_fixture_with_composites_matches_eager() {
    tpuc_expect::skip_without!(Plugins);
    every_fixture_matches_eager_with(&format!(
        "{},{}",
        tpuc_passes::PipelineSpec::of_passes(&tpuc_passes::DEFAULT_PASSES),
        tpuc_passes::PipelineSpec::of_passes(&tpuc_passes::FUSE_PASSES)
    ));
}

/// With every composite inlined again by tpuc before XLA sees the module.
#[test]
fn every_fixture_with_composites_inlined_matches_eager() {
    tpuc_expect::skip_without!(Plugins);
    every_fixture_matches_eager_with(&format!(
        "{},{},inline-composites",
        tpuc_passes::PipelineSpec::of_passes(&tpuc_passes::DEFAULT_PASSES),
        tpuc_passes::PipelineSpec::of_passes(&tpuc_passes::FUSE_PASSES)
    ));
}

/// Programs with functional collectives run as one replica per rank, each input and output
/// stacked over the ranks, and match every rank's eager outputs.
#[test]
fn programs_with_collectives_match_eager_on_one_device_per_rank() {
    tpuc_expect::skip_without!(Plugins);
    let manifest = manifest();
    let spmd = manifest["spmd"].as_object().unwrap();
    assert!(!spmd.is_empty(), "the manifest lists no SPMD fixture");
    for (name, entry) in spmd {
        let ranks = entry["world_size"].as_u64().unwrap() as usize;
        let runtime = Runtime::cpu_devices(None, ranks).unwrap();
        let tolerance = Tolerance {
            rtol: entry["tolerance"]["rtol"].as_f64().unwrap(),
            atol: entry["tolerance"]["atol"].as_f64().unwrap(),
        };
        for variant in ["pt2", "core"] {
            let model = testdata().join(entry["files"][variant].as_str().unwrap());
            for set in entry["files"]["sets"].as_array().unwrap() {
                match run_set(&runtime, &model, set, tolerance, &Options::default()) {
                    Ok(lines) => lines
                        .iter()
                        .for_each(|l| eprintln!("{name} ({variant}) {l}")),
                    Err(why) => panic!("{name} ({variant}): {why}"),
                }
            }
        }
    }
}

#[test]
fn a_program_with_collectives_needs_a_device_per_rank() {
    let out = tpuc(&[
        "run",
        "models/collectives.pt2",
        "--input",
        "models/collectives.in0.npy",
        "--output-dir",
        std::env::temp_dir().to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("runs on 4 devices"), "{stderr}");
    assert!(stderr.contains("--target cpu:4"), "{stderr}");

    let out = tpuc(&[
        "run",
        "models/collectives.pt2",
        "--target",
        "cpu:4",
        "--input",
        "models/mlp.in0.npy",
        "--output-dir",
        std::env::temp_dir().to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("per rank, stacked over the 4 ranks"),
        "{stderr}"
    );
}

/// Runs `tpuc` in the testdata directory.
fn tpuc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tpuc"))
        .args(args)
        .current_dir(testdata())
        .output()
        .expect("tpuc runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn unwrapped(bytes: &[u8]) -> String {
    support::unwrapped(&text(bytes))
}

fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn cli_run_writes_outputs_that_match_eager() {
    tpuc_expect::skip_without!(Plugins);
    let dir = temp_dir();
    let out = dir.path().to_str().unwrap();
    let output = tpuc(&[
        "run",
        "models/misc.core.pt2",
        "--target",
        "cpu",
        "--input",
        "models/misc.in0.npy",
        "--input",
        "models/misc.in1.npy",
        "--output-dir",
        out,
        "--expect",
        "models/misc.out0.npy",
        "--expect",
        "models/misc.out1.npy",
        "--expect",
        "models/misc.out2.npy",
    ]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    assert_eq!(stdout.matches("PASS").count(), 3, "{stdout}");
    for (i, dtype) in [
        tpuc_npy::Dtype::F32,
        tpuc_npy::Dtype::I64,
        tpuc_npy::Dtype::I64,
    ]
    .into_iter()
    .enumerate()
    {
        let got = Array::read(dir.path().join(format!("out{i}.npy"))).unwrap();
        let want = Array::read(testdata().join(format!("models/misc.out{i}.npy"))).unwrap();
        assert_eq!(got.dtype(), dtype);
        assert!(tpuc_driver::compare(&got, &want, Tolerance::default()).passed());
    }
}

#[test]
fn cli_run_writes_mutated_buffers_beside_the_outputs() {
    tpuc_expect::skip_without!(Plugins);
    let dir = temp_dir();
    let output = tpuc(&[
        "run",
        "models/stateful.core.pt2",
        "--input",
        "models/stateful.in0.npy",
        "--input",
        "models/stateful.in1.npy",
        "--output-dir",
        dir.path().to_str().unwrap(),
        "--expect",
        "models/stateful.out0.npy",
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    for fqn in ["cache", "steps"] {
        let got = Array::read(dir.path().join(format!("buffer.{fqn}.npy"))).unwrap();
        let want =
            Array::read(testdata().join(format!("models/stateful.buffer.{fqn}.npy"))).unwrap();
        assert!(
            tpuc_driver::compare(&got, &want, Tolerance::default()).passed(),
            "{fqn}"
        );
    }
}

#[test]
fn cli_run_specialises_a_symbolic_batch_from_the_input_file() {
    tpuc_expect::skip_without!(Plugins);
    let dir = temp_dir();
    let output = tpuc(&[
        "run",
        "models/dyn_batch.pt2",
        "--input",
        "models/dyn_batch.set1.in0.npy",
        "--output-dir",
        dir.path().to_str().unwrap(),
        "--expect",
        "models/dyn_batch.set1.out0.npy",
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let out0 = Array::read(dir.path().join("out0.npy")).unwrap();
    assert_eq!(out0.shape(), [1, 2]);
}

#[test]
fn cli_run_takes_bf16_inputs_as_float32_and_writes_float32() {
    tpuc_expect::skip_without!(Plugins);
    let dir = temp_dir();
    let output = tpuc(&[
        "run",
        "models/quant_bf16.pt2",
        "--input",
        "models/quant_bf16.in0.npy",
        "--output-dir",
        dir.path().to_str().unwrap(),
        "--expect",
        "models/quant_bf16.out0.npy",
        "--rtol",
        "0.016",
        "--atol",
        "0.01",
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let out0 = Array::read(dir.path().join("out0.npy")).unwrap();
    assert_eq!(
        (out0.dtype(), out0.shape()),
        (tpuc_npy::Dtype::F32, [3, 4].as_slice())
    );
    // Every value is a bfloat16 widened exactly.
    assert!(
        out0.to_f64()
            .iter()
            .all(|&v| (v as f32).to_bits() & 0xffff == 0)
    );
}

#[test]
fn cli_run_rejects_inputs_of_the_wrong_dtype_shape_or_count() {
    let dir = temp_dir();
    let out = dir.path().to_str().unwrap();
    let cases: [(&[&str], &[&str]); 3] = [
        (
            &["--input", "models/misc.in1.npy"],
            &[
                "input 0 (`x`, from models/misc.in1.npy)",
                "expected float32[2, 4]",
                "got int64[4]",
            ],
        ),
        (
            &["--input", "models/cnn.in0.npy"],
            &[
                "input 0 (`x`",
                "expected float32[2, 4]",
                "got float32[2, 3, 8, 8]",
            ],
        ),
        (
            &[
                "--input",
                "models/mlp.in0.npy",
                "--input",
                "models/mlp.in0.npy",
            ],
            &["takes 1 input(s) (x), but 2 were given"],
        ),
    ];
    for (inputs, messages) in cases {
        let mut args = vec!["run", "models/mlp.pt2", "--output-dir", out];
        args.extend_from_slice(inputs);
        assert_run_fails(&args, messages, dir.path());
    }
}

/// `tpuc args` exits 1 with each of `messages` on stderr, and writes nothing into `out`.
fn assert_run_fails(args: &[&str], messages: &[&str], out: &Path) {
    let output = tpuc(args);
    let stderr = unwrapped(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
    for message in messages {
        assert!(
            stderr.contains(message),
            "{args:?}: {message:?} not in\n{stderr}"
        );
    }
    assert_eq!(
        std::fs::read_dir(out).unwrap().count(),
        0,
        "no outputs written"
    );
}

#[test]
fn cli_run_refuses_a_corrupt_archive_naming_the_damaged_record() {
    tpuc_expect::skip_without!(Plugins);
    let dir = temp_dir();
    let out = dir.path().to_str().unwrap();
    // The two damages of the "Trust" issue: both once ran with wrong weights and exited 0.
    let cases = [
        (
            "malformed/weight_bit_flipped.pt2",
            ["tpuc::pt2::zip::checksum", "`mlp/data/weights/weight_0`"],
        ),
        (
            "malformed/local_extra_length_plus_64.pt2",
            [
                "tpuc::pt2::zip::local_header",
                "`mlp/data/weights/weight_0`",
            ],
        ),
    ];
    for (archive, messages) in cases {
        let args = [
            "run",
            archive,
            "--input",
            "models/mlp.in0.npy",
            "--output-dir",
            out,
        ];
        assert_run_fails(&args, &messages, dir.path());
    }
}

#[test]
fn cli_run_fails_with_the_error_table_when_an_expectation_differs() {
    tpuc_expect::skip_without!(Plugins);
    let dir = temp_dir();
    // The eager output plus 0.5 at one element.
    let want = Array::read(testdata().join("models/mlp.out0.npy")).unwrap();
    let mut bytes = want.data().to_vec();
    let first = f32::from_le_bytes(bytes[..4].try_into().unwrap()) + 0.5;
    bytes[..4].copy_from_slice(&first.to_le_bytes());
    let shifted = Array::new(want.dtype(), want.shape().to_vec(), bytes).unwrap();
    let shifted_path = dir.path().join("shifted.npy");
    std::fs::write(&shifted_path, shifted.to_npy_bytes()).unwrap();

    let out = dir.path().join("out");
    let run = |expect: &str| {
        tpuc(&[
            "run",
            "models/mlp.pt2",
            "--input",
            "models/mlp.in0.npy",
            "--output-dir",
            out.to_str().unwrap(),
            "--expect",
            expect,
        ])
    };
    let output = run(shifted_path.to_str().unwrap());
    let stdout = text(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(3),
        "{stdout}{}",
        text(&output.stderr)
    );
    assert!(
        stdout.contains("max abs err") && stdout.contains("FAIL"),
        "{stdout}"
    );
    assert!(
        stdout.contains("5.000e-1") && stdout.contains("1/6"),
        "{stdout}"
    );

    let output = run("models/cnn.out0.npy");
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(3), "{stdout}");
    assert!(
        stdout.contains("FAIL") && stdout.contains("got float32[2, 3], expected float32[2, 5]"),
        "{stdout}"
    );
}

#[test]
fn cli_lower_prints_every_form_and_writes_files_whole() {
    let pretty = tpuc(&["lower", "models/mlp.pt2"]);
    assert!(pretty.status.success(), "{}", text(&pretty.stderr));
    let pretty = text(&pretty.stdout);
    assert!(
        pretty.contains("func.func public @main(") || pretty.contains("func.func @main("),
        "{pretty}"
    );
    assert!(pretty.contains("stablehlo.dot_general"), "{pretty}");

    let generic = text(&tpuc(&["lower", "models/mlp.pt2", "--emit", "stablehlo-generic"]).stdout);
    assert!(generic.contains("\"stablehlo.dot_general\"("), "{generic}");
    let fx = text(&tpuc(&["lower", "models/mlp.pt2", "--emit", "fx"]).stdout);
    assert!(
        fx.starts_with("graph():\n") && fx.contains("torch.ops.aten.linear.default"),
        "{fx}"
    );

    let dims = text(&tpuc(&["lower", "models/dyn_batch.core.pt2", "--dim", "s77=8"]).stdout);
    assert!(dims.contains("tensor<8x4x6xf32>"), "{dims}");
    let shaped = text(&tpuc(&["lower", "models/dyn_batch.pt2", "--input-shape", "0=5x4x6"]).stdout);
    assert!(shaped.contains("tensor<5x4x6xf32>"), "{shaped}");

    let dir = temp_dir();
    let file = dir.path().join("mlp.mlir");
    let output = tpuc(&["lower", "models/mlp.pt2", "-o", file.to_str().unwrap()]);
    assert!(output.status.success() && output.stdout.is_empty());
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        pretty,
        "deterministic, same as stdout"
    );
}

#[test]
fn cli_lower_to_an_unwritable_path_leaves_no_file() {
    let dir = temp_dir();
    // A directory cannot be replaced by a file, and a file cannot hold one.
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "keep").unwrap();
    for target in [
        dir.path().to_path_buf(),
        blocker.join("out.mlir"),
        dir.path().join("absent/out.mlir"),
    ] {
        let output = tpuc(&["lower", "models/mlp.pt2", "-o", target.to_str().unwrap()]);
        let stderr = unwrapped(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{target:?}");
        assert!(stderr.contains("cannot write"), "{stderr}");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["file"], "{target:?}: nothing but the blocker");
        assert_eq!(std::fs::read_to_string(&blocker).unwrap(), "keep");
    }
}
