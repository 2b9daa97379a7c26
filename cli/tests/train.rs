//! `tpuc train` end to end on the real XLA:CPU plugin: every family and optimizer run of
//! testdata/training/manifest.json, from the loss-only archive (tpuc's differentiation) and
//! from the joint graph, against the losses and parameters eager PyTorch computed
//! (`loss.backward()` and `torch.optim`); data- and fully-sharded runs on two devices; and the
//! command's refusals.

mod support;

use std::path::{Path, PathBuf};

use serde_json::Value;
use tpuc_npy::Array;

fn training() -> PathBuf {
    support::repo_root().join("testdata/training")
}

fn manifest() -> Value {
    let text = std::fs::read_to_string(training().join("manifest.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// How close a trained tensor must be: `|got - want| <= atol + rtol |want|` element by
/// element, except where Adam follows rounding noise. Adam divides each gradient element by its
/// own running magnitude, so an element whose true gradient is below the rounding floor (a
/// GPT-2 key bias, whose gradient is exactly zero since softmax ignores a constant added to
/// every score; Llama's LM-head row of a token no position predicts) steps by up to `lr` in a
/// direction the rounding picks, in any implementation. Such an element (its eager float32
/// gradient at the initial parameters at most `floor` times the tensor's largest) may miss by
/// up to `bound` (the two trajectories moving apart by `lr` per step each).
#[derive(Clone, Copy)]
struct Tolerance {
    rtol: f64,
    atol: f64,
    floor: f64,
    bound: f64,
}

impl Tolerance {
    fn exact(rtol: f64, atol: f64) -> Self {
        Tolerance {
            rtol,
            atol,
            floor: 0.0,
            bound: 0.0,
        }
    }

    /// A manifest run's `tolerance.KEY` (`{"rtol", "atol"}`), else `rtol`, `atol`.
    fn of(run: &Value, key: &str, rtol: f64, atol: f64) -> Self {
        let given = &run["tolerance"][key];
        Tolerance::exact(
            given["rtol"].as_f64().unwrap_or(rtol),
            given["atol"].as_f64().unwrap_or(atol),
        )
    }
}

/// Compares a written `.npy` with the reference (`gradient`: the tensor's eager gradient, for
/// the rounding-floor allowance); returns the failures.
fn compare(
    what: &str,
    got: &Path,
    want: &Path,
    gradient: Option<&Path>,
    tolerance: Tolerance,
) -> Vec<String> {
    let got = match Array::read(got) {
        Ok(array) => array,
        Err(error) => return vec![format!("{what}: {error}")],
    };
    let want = Array::read(want).unwrap();
    if got.shape() != want.shape() {
        return vec![format!(
            "{what}: shape {:?}, want {:?}",
            got.shape(),
            want.shape()
        )];
    }
    let (got, want) = (got.to_f64(), want.to_f64());
    let gradient = gradient
        .filter(|path| path.exists())
        .map(|path| Array::read(path).unwrap().to_f64());
    let largest = gradient
        .iter()
        .flatten()
        .map(|g| g.abs())
        .fold(0.0, f64::max);
    let noise = |i: usize| {
        gradient
            .as_ref()
            .is_some_and(|g| g[i].abs() <= tolerance.floor * largest)
    };
    let misses: Vec<(usize, f64)> = got
        .iter()
        .zip(&want)
        .map(|(g, w)| ((g - w).abs(), w))
        .enumerate()
        .filter(|(_, (d, w))| *d > tolerance.atol + tolerance.rtol * w.abs())
        .map(|(i, (d, _))| (i, d))
        .collect();
    let real: Vec<f64> = misses
        .iter()
        .filter(|&&(i, d)| !noise(i) || d > tolerance.bound)
        .map(|&(_, d)| d)
        .collect();
    if real.is_empty() {
        Vec::new()
    } else {
        vec![format!(
            "{what}: {} of {} elements off (largest {:.3e}; {} more at the rounding floor)",
            real.len(),
            want.len(),
            real.iter().cloned().fold(0.0, f64::max),
            misses.len() - real.len()
        )]
    }
}

/// Trains one run (with `--precision` when the run has one) into `out`; `Err` holds why not.
fn train_into(
    family: &str,
    f: &Value,
    kind: &str,
    run: &str,
    extra: &[&str],
    out: &Path,
) -> Result<(), String> {
    let archive = training().join(f["archives"][kind].as_str().unwrap());
    let r = &f["runs"][run];
    let cache = tempfile::tempdir().unwrap();
    let pattern = training().join(format!("{family}.batch{{step}}.in{{input}}.npy"));
    let steps = f["steps"].as_u64().unwrap_or(5).to_string();
    let mut args = vec![
        "train",
        archive.to_str().unwrap(),
        "--optimizer",
        r["optimizer"].as_str().unwrap(),
        "--steps",
        &steps,
        "--batches",
        pattern.to_str().unwrap(),
        "--output-dir",
        out.to_str().unwrap(),
    ];
    if let Some(precision) = r["precision"].as_str() {
        args.extend(["--precision", precision]);
    }
    args.extend(extra);
    let output = support::command(cache.path(), &args).output().unwrap();
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "tpuc train failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Trains one run and compares; returns the failures.
fn train_run(family: &str, f: &Value, kind: &str, run: &str, extra: &[&str]) -> Vec<String> {
    let r = &f["runs"][run];
    let optimizer = r["optimizer"].as_str().unwrap();
    let out = tempfile::tempdir().unwrap();
    let name = format!("{family} {kind} {run} {}", extra.join(" "));
    if let Err(error) = train_into(family, f, kind, run, extra, out.path()) {
        return vec![format!("{name}: {error}")];
    }
    let lr = optimizer
        .split([':', ','])
        .find_map(|field| field.strip_prefix("lr="))
        .and_then(|lr| lr.parse::<f64>().ok())
        .unwrap_or(1e-3);
    let adam = optimizer.starts_with("adam");
    let mixed = r["precision"].is_string();
    let mut failures = compare(
        &format!("{name} losses"),
        &out.path().join("losses.npy"),
        &training().join(r["losses"].as_str().unwrap()),
        None,
        Tolerance::of(r, "loss", 1e-4, 1e-5),
    );
    let gradients = f["grads"].as_str().map(|dir| training().join(dir));
    let steps = f["steps"].as_f64().unwrap_or(5.0);
    for (dir, ours) in [("params", "params"), ("buffers", "state")] {
        let Some(reference) = r[dir].as_str() else {
            continue;
        };
        let tolerance = if dir == "buffers" {
            Tolerance::exact(1e-3, 1e-4)
        } else {
            Tolerance {
                // The rounding floor relative to a tensor's largest gradient: float32's
                // epsilon with room for a sum's growth, bfloat16's (2^-8) for a mixed run.
                floor: match (adam, mixed) {
                    (false, _) => 0.0,
                    (true, false) => 1e-6,
                    (true, true) => 2f64.powi(-7),
                },
                bound: 2.0 * steps * lr,
                ..Tolerance::of(r, "params", 1e-3, 1e-5)
            }
        };
        for entry in std::fs::read_dir(training().join(reference)).unwrap() {
            let want = entry.unwrap().path();
            let file = want.file_name().unwrap().to_owned();
            let got = out.path().join(ours).join(&file);
            let what = format!("{name} {dir}/{}", file.to_string_lossy());
            let gradient = gradients.as_ref().map(|dir| dir.join(&file));
            failures.extend(compare(&what, &got, &want, gradient.as_deref(), tolerance));
        }
    }
    failures
}

#[test]
fn every_family_trains_as_pytorch_does() {
    tpuc_expect::skip_without!(CpuPlugin);
    let manifest = manifest();
    let mut failures = Vec::new();
    let mut runs = 0;
    for (family, f) in manifest["families"].as_object().unwrap() {
        for kind in ["loss", "joint"] {
            if f["archives"][kind].as_str().is_none() {
                continue;
            }
            for (run, r) in f["runs"].as_object().unwrap() {
                // `--precision` trains the loss-only export (it refuses joint graphs).
                if r.get("precision").is_some() && kind == "joint" {
                    continue;
                }
                failures.extend(train_run(family, f, kind, run, &[]));
                runs += 1;
            }
        }
    }
    assert!(runs >= 20, "only {runs} runs in the manifest");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn data_and_fully_sharded_steps_reproduce_the_trajectory() {
    tpuc_expect::skip_without!(CpuPlugin);
    let manifest = manifest();
    let mut failures = Vec::new();
    for (family, f) in manifest["families"].as_object().unwrap() {
        for kind in ["loss", "joint"] {
            if f["archives"][kind].as_str().is_none() {
                continue;
            }
            for preset in ["dp", "fsdp"] {
                for run in ["sgd", "adamw"] {
                    failures.extend(train_run(
                        family,
                        f,
                        kind,
                        run,
                        &["--target", "cpu:2", "--shard", preset],
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn refusal(args: &[&str]) -> String {
    let cache = tempfile::tempdir().unwrap();
    let output = support::command(cache.path(), args).output().unwrap();
    assert!(!output.status.success(), "tpuc {args:?} succeeded");
    support::unwrapped(&String::from_utf8_lossy(&output.stderr))
}

#[test]
fn bad_training_requests_are_refused_with_what_to_fix() {
    tpuc_expect::skip_without!(CpuPlugin);
    let mlp = training().join("mlp.loss.pt2");
    let mlp = mlp.to_str().unwrap();
    let batches = training().join("mlp.batch{step}.in{input}.npy");
    let batches = batches.to_str().unwrap();
    let out = tempfile::tempdir().unwrap();
    let out_dir = out.path().join("run");
    let out_dir = out_dir.to_str().unwrap();
    let base = |optimizer: &'static str| {
        vec![
            "train",
            mlp,
            "--optimizer",
            optimizer,
            "--steps",
            "2",
            "--batches",
            batches,
            "--output-dir",
            out_dir,
        ]
    };

    let typo = refusal(&base("adamw:lr=1e-3,betta1=0.9"));
    assert!(
        typo.contains("betta1") && typo.contains("beta1, beta2"),
        "{typo}"
    );
    let unknown = refusal(&base("lion:lr=1"));
    assert!(unknown.contains("sgd, adam, adamw"), "{unknown}");

    let mut missing = base("sgd:lr=0.1");
    missing[7] = "/nonexistent/batch{step}.in{input}.npy";
    let missing = refusal(&missing);
    assert!(missing.contains("/nonexistent/batch0.in0.npy"), "{missing}");

    let logits = support::fixture("mlp.pt2");
    let not_a_loss = refusal(&[
        "train",
        logits.to_str().unwrap(),
        "--optimizer",
        "sgd:lr=0.1",
        "--batches",
        support::fixture("mlp.in{input}.npy").to_str().unwrap(),
        "--output-dir",
        out_dir,
    ]);
    assert!(
        not_a_loss.contains("first output is tensor<2x3xf32>"),
        "{not_a_loss}"
    );

    // A batch file of the wrong dtype, at a later step: the file, expected and found.
    let bad = tempfile::tempdir().unwrap();
    for (step, input, source) in [(0, 0, "in0"), (0, 1, "in1"), (1, 0, "in1"), (1, 1, "in1")] {
        std::fs::copy(
            training().join(format!("mlp.batch0.{source}.npy")),
            bad.path().join(format!("b{step}.in{input}.npy")),
        )
        .unwrap();
    }
    let pattern = bad.path().join("b{step}.in{input}.npy");
    let mut wrong = base("sgd:lr=0.1");
    wrong[7] = pattern.to_str().unwrap();
    let wrong = refusal(&wrong);
    assert!(
        wrong.contains("b1.in0.npy") && wrong.contains("expected float32[8, 8], got int64[8]"),
        "{wrong}"
    );

    let diverges = refusal(&base("sgd:lr=1e30"));
    assert!(
        diverges.contains("step 1") && diverges.contains("nothing was written"),
        "{diverges}"
    );
    assert!(
        !Path::new(out_dir).exists(),
        "a refused run wrote {out_dir}"
    );
}

#[test]
fn a_prewarmed_training_step_is_the_one_train_loads() {
    tpuc_expect::skip_without!(CpuPlugin);
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let model = training().join("mlp.loss.pt2");
    let plan = dir.path().join("plan.toml");
    std::fs::write(
        &plan,
        format!(
            "[[models]]\npath = {:?}\ntargets = [\"cpu\"]\noptimizer = \"adamw:lr=1e-3\"\n\n\
             [[models]]\npath = {:?}\ntargets = [\"cpu\"]\noptimizer = \"adamw:betta1=0.9\"\n",
            model.display(),
            model.display()
        ),
    )
    .unwrap();
    let output = support::command(cache.path(), &["prewarm", plan.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "the misspelt item must fail");
    assert!(stderr.contains("betta1"), "{stderr}");
    let batches = training().join("mlp.batch{step}.in{input}.npy");
    let out = dir.path().join("out");
    let output = support::command(
        cache.path(),
        &[
            "train",
            model.to_str().unwrap(),
            "--optimizer",
            "adamw:lr=0.001",
            "--batches",
            batches.to_str().unwrap(),
            "--output-dir",
            out.to_str().unwrap(),
        ],
    )
    .output()
    .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("loaded from the cache"), "{stderr}");
}

/// The mixed-precision trajectories are PyTorch autocast's, not float32's: where tpuc applies
/// autocast's policy exactly (the MLP's biased linears, Llama's attention and projections), its
/// first loss is nearer autocast's than float32's is. (GPT-2's is not yet: docs/training.md.)
#[test]
fn mixed_precision_follows_autocast_not_float32() {
    tpuc_expect::skip_without!(CpuPlugin);
    let manifest = manifest();
    let mut failures = Vec::new();
    for family in ["mlp", "llama"] {
        let f = &manifest["families"][family];
        let out = tempfile::tempdir().unwrap();
        if let Err(error) = train_into(family, f, "loss", "adamw_bf16", &[], out.path()) {
            failures.push(format!("{family}: {error}"));
            continue;
        }
        let first = |path: &Path| Array::read(path).unwrap().to_f64()[0];
        let ours = first(&out.path().join("losses.npy"));
        let autocast = first(&training().join(f["runs"]["adamw_bf16"]["losses"].as_str().unwrap()));
        let float32 = first(&training().join(f["runs"]["adamw"]["losses"].as_str().unwrap()));
        if (ours - autocast).abs() * 4.0 > (float32 - autocast).abs() {
            failures.push(format!(
                "{family}: first loss {ours} vs autocast's {autocast} (float32's {float32})"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// An op tpuc cannot differentiate on the path to the loss is named with its FX node and the
/// user's source line.
#[test]
fn a_non_differentiable_op_is_named_with_its_source_line() {
    let dir = tempfile::tempdir().unwrap();
    let module = dir.path().join("kernel.mlir");
    std::fs::write(
        &module,
        r#"module {
  func.func public @main(%w: tensor<4xf32> {tpuc.role = "parameter", jax.arg_info = "w"}) -> (tensor<f32> {tpuc.role = "output", tpuc.output = 0 : i64}) {
    %0 = stablehlo.custom_call @my_kernel(%w) : (tensor<4xf32>) -> tensor<4xf32> loc("my_kernel"("model.py":7:0))
    %init = stablehlo.constant dense<0.0> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %init) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    return %1 : tensor<f32>
  }
}
"#,
    )
    .unwrap();
    let output = support::uncached(&["opt", module.to_str().unwrap(), "--passes", "autodiff"]);
    let stderr = support::unwrapped(&String::from_utf8_lossy(&output.stderr));
    assert!(!output.status.success(), "{stderr}");
    for part in ["stablehlo.custom_call", "`my_kernel`", "model.py:7"] {
        assert!(stderr.contains(part), "`{part}` missing from:\n{stderr}");
    }
}

/// `tpuc compile --optimizer` makes the TPU train step ahead of time: libtpu reports every
/// output but the loss aliased to its argument (parameters and optimizer state donated).
#[test]
fn the_tpu_train_step_donates_its_state() {
    tpuc_expect::skip_without!(TpuPlugin);
    let cache = tempfile::tempdir().unwrap();
    let model = training().join("mlp.loss.pt2");
    let output = support::command(
        cache.path(),
        &[
            "compile",
            model.to_str().unwrap(),
            "--optimizer",
            "adamw:lr=1e-3",
            "--target",
            "tpu:v5e:1x1",
            "--format",
            "json",
        ],
    )
    .output()
    .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let memory = &report["targets"][0]["memory"];
    let alias = memory["alias_bytes"].as_i64().unwrap();
    let outputs = memory["output_bytes"].as_i64().unwrap();
    // 6 parameters and 12 Adam moments of float32, padded to TPU tiles: far more than the loss.
    assert!(alias > 4096, "{memory}");
    assert!(
        outputs - alias <= 4096,
        "only the loss may be returned fresh: {memory}"
    );
}

/// What makes a training step another program makes another key: the optimizer's canonical
/// spec and `--precision`; two spellings of one spec are one key.
#[test]
fn optimizer_and_precision_are_part_of_the_key() {
    let model = training().join("mlp.loss.pt2");
    let key = |extra: &[&str]| {
        let mut args = vec![
            "key",
            model.to_str().unwrap(),
            "--target",
            "cpu",
            "--format",
            "json",
        ];
        args.extend(extra);
        let out = support::stdout_of(&args);
        let value: Value = serde_json::from_str(&out).unwrap();
        value["frontend_key"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    let adamw = key(&["--optimizer", "adamw:lr=1e-3"]);
    assert!(!adamw.is_empty());
    assert_eq!(adamw, key(&["--optimizer", "adamw:lr=0.001, beta1=0.9"]));
    assert_ne!(adamw, key(&["--optimizer", "adamw:lr=2e-3"]));
    assert_ne!(
        adamw,
        key(&["--optimizer", "adamw:lr=1e-3", "--precision", "bf16"])
    );
    assert_ne!(adamw, key(&[]));
}

/// `--parameters` makes arguments of a role-less module (JAX's) trained parameters: part of
/// the key, and a name `main` lacks is refused with the names it has.
#[test]
fn parameters_of_a_module_without_roles() {
    let dir = tempfile::tempdir().unwrap();
    let module = dir.path().join("loss.mlir");
    std::fs::write(
        &module,
        "module {\n  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<f32> {\n    %0 = stablehlo.multiply %arg0, %arg1 : tensor<4xf32>\n    %init = stablehlo.constant dense<0.0> : tensor<f32>\n    %1 = stablehlo.reduce(%0 init: %init) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>\n    return %1 : tensor<f32>\n  }\n}\n",
    )
    .unwrap();
    let module = module.to_str().unwrap();
    let key = |extra: &[&str]| {
        let mut args = vec!["key", module, "--target", "cpu", "--format", "json"];
        args.extend(extra);
        let value: Value = serde_json::from_str(&support::stdout_of(&args)).unwrap();
        value["frontend_key"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    let plain = key(&[]);
    assert_ne!(plain, key(&["--parameters", "arg0"]));
    assert_ne!(
        key(&["--parameters", "arg0"]),
        key(&["--parameters", "0,1"])
    );
    let lowered =
        support::stdout_of(&["lower", module, "--parameters", "0", "--passes", "autodiff"]);
    assert!(
        lowered.contains("tpuc.role = \"parameter\"")
            && lowered.contains("tpuc.role = \"gradient\""),
        "{lowered}"
    );
    let refused = refusal(&["key", module, "--target", "cpu", "--parameters", "w"]);
    assert!(
        refused.contains("no argument `w`") && refused.contains("arg0, arg1"),
        "{refused}"
    );
}

/// Tensor-parallel steps (Megatron splits of the projections, `tp`; and with the data axis,
/// `fsdp+tp`) reproduce the single-device trajectory; the donated results come back whole.
#[test]
fn tensor_parallel_steps_reproduce_the_trajectory() {
    tpuc_expect::skip_without!(CpuPlugin);
    let manifest = manifest();
    let mut failures = Vec::new();
    for family in ["llama", "gpt2"] {
        let f = &manifest["families"][family];
        for run in ["sgd", "adamw"] {
            failures.extend(train_run(
                family,
                f,
                "loss",
                run,
                &["--target", "cpu:2", "--shard", "tp"],
            ));
        }
    }
    let llama = &manifest["families"]["llama"];
    failures.extend(train_run(
        "llama",
        llama,
        "loss",
        "adamw",
        &[
            "--target",
            "cpu:4",
            "--shard",
            "fsdp+tp",
            "--mesh",
            "dp=2,tp=2",
        ],
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
