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

/// `|got - want| <= atol + rtol |want|` element by element; returns the failures. Adam divides
/// each gradient element by its own running magnitude, so an element whose gradient is at the
/// float32 rounding floor (|g| ~ 1e-8 where others are ~0.3) moves by up to `lr` per step in
/// either implementation: `slack` such elements per tensor may miss, by at most `bound`.
fn compare(
    what: &str,
    got: &Path,
    want: &Path,
    rtol: f64,
    atol: f64,
    slack: usize,
    bound: f64,
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
    let misses: Vec<f64> = got
        .iter()
        .zip(&want)
        .map(|(g, w)| (g - w).abs())
        .zip(&want)
        .filter(|(d, w)| *d > atol + rtol * w.abs())
        .map(|(d, _)| d)
        .collect();
    let allowed = misses.len() <= slack && misses.iter().all(|&d| d <= bound);
    if misses.is_empty() || allowed {
        Vec::new()
    } else {
        vec![format!(
            "{what}: {} of {} elements off (largest {:.3e})",
            misses.len(),
            want.len(),
            misses.iter().cloned().fold(0.0, f64::max)
        )]
    }
}

/// Trains one run and compares; returns the failures.
fn train_run(family: &str, f: &Value, kind: &str, run: &str, extra: &[&str]) -> Vec<String> {
    let archive = training().join(f["archives"][kind].as_str().unwrap());
    let r = &f["runs"][run];
    let optimizer = r["optimizer"].as_str().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let pattern = training().join(format!("{family}.batch{{step}}.in{{input}}.npy"));
    let steps = f["steps"].as_u64().unwrap_or(5).to_string();
    let mut args = vec![
        "train",
        archive.to_str().unwrap(),
        "--optimizer",
        optimizer,
        "--steps",
        &steps,
        "--batches",
        pattern.to_str().unwrap(),
        "--output-dir",
        out.path().to_str().unwrap(),
    ];
    args.extend(extra);
    let output = support::command(cache.path(), &args).output().unwrap();
    let name = format!("{family} {kind} {run} {}", extra.join(" "));
    if !output.status.success() {
        return vec![format!(
            "{name}: tpuc train failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        )];
    }
    let lr = optimizer
        .split([':', ','])
        .find_map(|field| field.strip_prefix("lr="))
        .and_then(|lr| lr.parse::<f64>().ok())
        .unwrap_or(1e-3);
    let slack = if optimizer.starts_with("adam") { 2 } else { 0 };
    let bound = lr * 5.0;
    let mut failures = compare(
        &format!("{name} losses"),
        &out.path().join("losses.npy"),
        &training().join(r["losses"].as_str().unwrap()),
        1e-4,
        1e-5,
        0,
        0.0,
    );
    for (dir, ours) in [("params", "params"), ("buffers", "state")] {
        let Some(reference) = r[dir].as_str() else {
            continue;
        };
        for entry in std::fs::read_dir(training().join(reference)).unwrap() {
            let want = entry.unwrap().path();
            let file = want.file_name().unwrap().to_owned();
            let got = out.path().join(ours).join(&file);
            let what = format!("{name} {dir}/{}", file.to_string_lossy());
            let (rtol, atol) = if dir == "buffers" {
                (1e-3, 1e-4)
            } else {
                (1e-3, 1e-5)
            };
            failures.extend(compare(&what, &got, &want, rtol, atol, slack, bound));
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
                // Mixed-precision references wait for `--precision bf16` (docs/training.md).
                if r.get("precision").is_some() {
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
        let kinds: &[&str] = if family == "llama" {
            &["loss", "joint"]
        } else {
            &["loss"]
        };
        for kind in kinds {
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
    String::from_utf8_lossy(&output.stderr).into_owned()
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
