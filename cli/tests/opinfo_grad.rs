//! tpuc's gradients of torch's OpInfo samples against PyTorch autograd. `testdata/opinfo_grad/`
//! (made by `testdata/opinfo_grad.py`) holds, per group of OpInfos, a loss-only program whose
//! parameters are the samples' inputs that require grad, and `loss.backward()`'s gradients.
//! Each group is lowered with the `autodiff` pass, run on XLA:CPU and every sample's gradients
//! compared; where the group does not lower, differentiate or compile, each OpInfo's loss alone
//! and then each sample's (`LowerOptions::outputs`). `docs/opinfo_grad.md` is the table of the
//! results and the expectation: regenerate it with
//! `BLESS=1 cargo test -p tpuc-cli --test opinfo_grad`. `OPINFO_GRAD_ONLY=KEY,...` runs only
//! those OpInfos and prints their table instead of checking the document.

mod support;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use support::{opinfo_refusal, percent};
use tpuc_driver::{LowerOptions, Options, Runtime};
use tpuc_expect::expect_file;
use tpuc_ir::ResultRole;
use tpuc_npy::Array;
use tpuc_passes::{PassName, PipelineRequest};

/// `|got - want| <= ATOL * max(1, max |want|) + RTOL |want|`, element by element: the absolute
/// tolerance scales with the largest element of the expected gradient (of that parameter), so a
/// gradient of large values may differ in its small elements by float32 rounding of the large.
const RTOL: f64 = 1e-4;
const ATOL: f64 = 1e-5;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn host_f64(tensor: &tpuc_driver::HostTensor<'_>) -> Result<Vec<f64>, String> {
    let npy = tensor.to_npy().ok_or("a result has no .npy form")?;
    Ok(Array::from_npy_bytes(&npy.to_npy_bytes())
        .map_err(|e| e.to_string())?
        .to_f64())
}

/// What one run of a loss program gave: the value of each loss output it was asked for, and
/// each gradient by parameter name (with its shape).
struct Computed {
    losses: HashMap<usize, f64>,
    gradients: HashMap<String, (Vec<u64>, Vec<f64>)>,
}

/// The first line of an error, without what differs between programs (the FX node) or says
/// nothing (where the op is).
fn reason(error: &str) -> String {
    let line = error.lines().next().unwrap_or_default();
    let mut line = line.replace(" on the path from the parameters to the loss", "");
    for node in [" (FX node `", " (node `"] {
        if let Some(start) = line.find(node)
            && let Some(end) = line[start + node.len()..].find("`)")
        {
            line.replace_range(start..start + node.len() + end + 2, "");
        }
    }
    if let Some(rest) = line.strip_prefix("cannot lower node `")
        && let Some((_, after)) = rest.split_once("` ")
    {
        line = format!("cannot lower {after}");
    }
    line
}

/// Lowers the program's loss outputs `outputs` (all when `None`; the first is the loss, the
/// others stay outputs) with the `autodiff` pass, and runs it.
fn compute(
    runtime: &Runtime,
    model: &Path,
    outputs: Option<Vec<usize>>,
    all: usize,
) -> Result<Computed, String> {
    let order = outputs.clone().unwrap_or_else(|| (0..all).collect());
    let options = Options {
        lower: LowerOptions {
            outputs,
            ..LowerOptions::default()
        },
        pipeline: PipelineRequest {
            passes: Some(vec![
                PassName::Autodiff,
                PassName::Canonicalize,
                PassName::Cse,
                PassName::Dce,
            ]),
            ..PipelineRequest::default()
        },
        ..Options::default()
    };
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        tpuc_driver::run(runtime, model, &[], &options)
    }))
    .map_err(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("?");
        format!("tpuc panicked: {what}")
    })?
    .map_err(|e| reason(&e.to_string()))?;
    if run.outputs.len() + 1 != order.len() {
        return Err(format!(
            "{} outputs besides the loss, the program has {}",
            run.outputs.len(),
            order.len() - 1
        ));
    }
    let mut losses = HashMap::new();
    for (&output, tensor) in order[1..].iter().zip(&run.outputs) {
        losses.insert(output, host_f64(tensor)?[0]);
    }
    let mut gradients = HashMap::new();
    for (role, tensor) in &run.mutations {
        match role {
            ResultRole::Loss => {
                losses.insert(order[0], host_f64(tensor)?[0]);
            }
            ResultRole::Gradient { fqn } => {
                let shape = tensor.shape.iter().map(|&d| d as u64).collect();
                gradients.insert(fqn.clone(), (shape, host_f64(tensor)?));
            }
            _ => {}
        }
    }
    Ok(Computed { losses, gradients })
}

fn close(got: f64, want: f64, atol: f64) -> bool {
    (got.is_nan() && want.is_nan()) || got == want || (got - want).abs() <= atol + RTOL * want.abs()
}

/// `Ok` when the sample's loss and every gradient match PyTorch's, else the first difference.
fn check_sample(computed: &Computed, sample: &Value, expected: &[f64]) -> Result<(), String> {
    let output = sample["output"].as_u64().unwrap() as usize;
    // A loss that is not finite is written as text (`inf`, `nan`).
    let loss = &sample["loss"];
    let want = loss
        .as_f64()
        .or_else(|| loss.as_str()?.parse().ok())
        .unwrap_or(f64::NAN);
    let got = computed.losses[&output];
    if !close(got, want, ATOL * want.abs().max(1.0)) {
        return Err(format!("the loss differs: {got:.6e}, PyTorch's {want:.6e}"));
    }
    for param in sample["params"].as_array().unwrap() {
        let name = param["name"].as_str().unwrap();
        let argument = param["argument"].as_str().unwrap();
        let shape: Vec<u64> = param["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap())
            .collect();
        let size = shape.iter().product::<u64>() as usize;
        let offset = param["offset"].as_u64().unwrap() as usize;
        let want = &expected[offset..offset + size];
        // No gradient: the loss does not depend on the parameter, a zero gradient.
        let zeros = vec![0.0; size];
        let got = match computed.gradients.get(name) {
            Some((got_shape, _)) if *got_shape != shape => {
                return Err(format!(
                    "the gradient of `{argument}` has shape {got_shape:?}, PyTorch's {shape:?}"
                ));
            }
            Some((_, values)) => values,
            None => &zeros,
        };
        let scale = want
            .iter()
            .filter(|w| w.is_finite())
            .fold(1.0f64, |m, w| m.max(w.abs()));
        let atol = ATOL * scale;
        let mut worst: Option<(f64, f64, f64)> = None;
        for (&g, &w) in got.iter().zip(want) {
            if !close(g, w, atol) {
                let error = if g.is_finite() && w.is_finite() {
                    (g - w).abs()
                } else {
                    f64::INFINITY
                };
                if worst.is_none_or(|(e, _, _)| error > e) {
                    worst = Some((error, g, w));
                }
            }
        }
        if let Some((error, g, w)) = worst {
            let missing = if computed.gradients.contains_key(name) {
                ""
            } else {
                " (tpuc has none)"
            };
            return Err(format!(
                "the gradient of `{argument}` differs{missing}: max error {error:.2e} \
                 (got {g:.6e}, want {w:.6e}; max |grad| {scale:.2e})"
            ));
        }
    }
    Ok(())
}

#[derive(Default)]
struct Tally {
    passed: usize,
    total: usize,
    reasons: BTreeMap<String, usize>,
}

impl Tally {
    fn record(&mut self, result: Result<(), String>) {
        self.total += 1;
        match result {
            Ok(()) => self.passed += 1,
            Err(why) => *self.reasons.entry(why).or_default() += 1,
        }
    }
}

/// The tallies of one group's OpInfos: the whole group in one program, else each OpInfo's
/// loss, else each sample's (a failure to lower, differentiate or compile hides the others').
fn run_group<'m>(
    runtime: &Runtime,
    dir: &Path,
    group: &Value,
    entries: &[(&'m String, &'m Value)],
    outputs: usize,
) -> Vec<(&'m String, Tally)> {
    let model = dir.join(group["pt2"].as_str().unwrap());
    let expected = Array::read(dir.join(group["grads"].as_str().unwrap()))
        .unwrap()
        .to_f64();
    let whole = compute(runtime, &model, None, outputs).ok();
    let mut tallies = Vec::new();
    for &(name, op) in entries {
        let samples = op["samples"].as_array().unwrap();
        let mut tally = Tally::default();
        let entry_run;
        let computed = match &whole {
            Some(computed) => Ok(computed),
            None => {
                let entry = op["output"].as_u64().unwrap() as usize;
                let losses = samples
                    .iter()
                    .map(|s| s["output"].as_u64().unwrap() as usize);
                let outputs_run = std::iter::once(entry).chain(losses).collect();
                entry_run = compute(runtime, &model, Some(outputs_run), outputs);
                entry_run.as_ref().map_err(Clone::clone)
            }
        };
        for sample in samples {
            let result = match &computed {
                Ok(computed) => check_sample(computed, sample, &expected),
                // One sample: its loss alone is the OpInfo's.
                Err(why) if samples.len() == 1 => Err(why.clone()),
                Err(_) => {
                    let output = sample["output"].as_u64().unwrap() as usize;
                    compute(runtime, &model, Some(vec![output]), outputs)
                        .and_then(|computed| check_sample(&computed, sample, &expected))
                }
            };
            tally.record(result);
        }
        tallies.push((name, tally));
    }
    tallies
}

#[test]
fn opinfo_gradients_match_autograd() {
    tpuc_expect::skip_without!(CpuPlugin);
    let dir = repo().join("testdata/opinfo_grad");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let runtime = Runtime::cpu(None).unwrap();
    let only = std::env::var("OPINFO_GRAD_ONLY").ok();
    let chosen = |name: &str| {
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|k| k == name))
    };
    let mut refused: BTreeMap<String, String> = BTreeMap::new();
    let mut groups: BTreeMap<&str, Vec<(&String, &Value)>> = BTreeMap::new();
    // Outputs per group: the group's loss, one per OpInfo and one per sample.
    let mut outputs: BTreeMap<&str, usize> = BTreeMap::new();
    for (name, op) in manifest["ops"].as_object().unwrap() {
        if let Some(why) = op["refused"].as_str() {
            if chosen(name) {
                refused.insert(name.clone(), opinfo_refusal(op, why));
            }
            continue;
        }
        let group = op["group"].as_str().unwrap();
        *outputs.entry(group).or_insert(1) += 1 + op["samples"].as_array().unwrap().len();
        if chosen(name) {
            groups.entry(group).or_default().push((name, op));
        }
    }
    let groups: Vec<_> = groups.into_iter().collect();
    // Groups are independent: one worker per core takes the next until none is left.
    let next = AtomicUsize::new(0);
    let done = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some((group, entries)) = groups.get(next.fetch_add(1, Ordering::Relaxed))
                {
                    let tallied = run_group(
                        &runtime,
                        &dir,
                        &manifest["groups"][*group],
                        entries,
                        outputs[group],
                    );
                    done.lock().unwrap().extend(tallied);
                }
            });
        }
    });
    let tallies: BTreeMap<String, Tally> = done
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|(name, tally)| (name.clone(), tally))
        .collect();
    let doc = report(&tallies, &refused, &manifest);
    if only.is_some() {
        println!("{doc}");
        return;
    }
    let path = repo().join("docs/opinfo_grad.md");
    let regressed = regressions(
        &std::fs::read_to_string(&path).unwrap_or_default(),
        &tallies,
    );
    if !regressed.is_empty() {
        let message = format!(
            "OpInfos that pass fewer gradient samples than docs/opinfo_grad.md says: {}",
            regressed.join(", ")
        );
        assert!(tpuc_expect::blessing(), "{message}");
        eprintln!("{message} (blessed)");
    }
    expect_file(&path, &doc);
}

/// The OpInfos of the document's table that passed more samples than they do now.
fn regressions(doc: &str, tallies: &BTreeMap<String, Tally>) -> Vec<String> {
    let mut regressed = Vec::new();
    for line in doc.lines() {
        let cells: Vec<&str> = line.split(" | ").collect();
        let (Some(name), Some(passed)) = (cells.first(), cells.get(2)) else {
            continue;
        };
        let Some(name) = name.strip_prefix("| `").and_then(|n| n.strip_suffix('`')) else {
            continue;
        };
        let Ok(before) = passed.trim().parse::<usize>() else {
            continue;
        };
        let now = tallies.get(name).map_or(0, |t| t.passed);
        if now < before {
            regressed.push(format!("`{name}` ({before} → {now})"));
        }
    }
    regressed
}

/// `docs/opinfo_grad.md`.
fn report(
    tallies: &BTreeMap<String, Tally>,
    refused: &BTreeMap<String, String>,
    manifest: &Value,
) -> String {
    let (passed, total) = tallies
        .values()
        .fold((0, 0), |(p, n), t| (p + t.passed, n + t.total));
    let all_pass = tallies.values().filter(|t| t.passed == t.total).count();
    let mut doc = String::from(
        "# OpInfo gradients\n\n\
         Generated by `cargo test -p tpuc-cli --test opinfo_grad` (regenerate with `BLESS=1`);\n\
         do not edit. For every OpInfo of docs/opinfo.md that supports autograd, up to 2\n\
         float32 samples (`testdata/opinfo_grad/`, made by `testdata/opinfo_grad.py`) as a\n\
         loss-only program: the sample's inputs that require grad are parameters and the loss\n\
         is `sum((out * ct).sum())` over the op's differentiable results with fixed random\n\
         cotangents `ct`. tpuc differentiates it (`--passes autodiff,canonicalize,cse,dce`),\n\
         XLA:CPU runs it, and the loss and every gradient are compared with PyTorch's\n\
         `loss.backward()`: `|got - want| <= 1e-5 * max(1, max |want|) + 1e-4 * |want|`\n\
         element by element, the absolute tolerance scaled by the largest element of that\n\
         gradient. A parameter tpuc gives no gradient (the loss does not depend on it) has a\n\
         zero one. The test fails when an OpInfo passes fewer samples than this table says.\n\n",
    );
    let _ = writeln!(
        doc,
        "**{passed} of {total} samples pass ({:.1}%)**; {all_pass} of {} OpInfos pass every \
         sample; {} OpInfos have no usable sample and {} are not differentiable.\n",
        percent(passed, total),
        tallies.len(),
        refused
            .values()
            .filter(|why| !why.starts_with("not differentiable"))
            .count(),
        refused
            .values()
            .filter(|why| why.starts_with("not differentiable"))
            .count()
    );
    // Failures grouped by reason, the op named in a refusal or the kind of difference.
    let mut by_reason: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for (name, tally) in tallies {
        for why in tally.reasons.keys() {
            let class = classify(why);
            let names = by_reason.entry(class).or_default();
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    if !by_reason.is_empty() {
        doc.push_str("## Failures by cause\n\n| cause | OpInfos |\n|---|---|\n");
        for (class, names) in &by_reason {
            let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
            let _ = writeln!(doc, "| {} | {} |", escape(class), names.join(", "));
        }
        doc.push('\n');
    }
    doc.push_str(
        "## Per OpInfo\n\n| OpInfo | samples | passed | why the others fail |\n|---|---|---|---|\n",
    );
    for (name, tally) in tallies {
        let reasons: Vec<String> = tally
            .reasons
            .iter()
            .map(|(why, n)| format!("{n}× {}", escape(why)))
            .collect();
        let _ = writeln!(
            doc,
            "| `{name}` | {} | {} | {} |",
            tally.total,
            tally.passed,
            reasons.join("; ")
        );
    }
    let (not_differentiable, unusable): (Vec<_>, Vec<_>) = refused
        .iter()
        .partition(|(_, why)| why.starts_with("not differentiable"));
    if !unusable.is_empty() {
        doc.push_str(
            "\nOpInfos without a usable sample (none runs in eager with inputs that require \
             grad, has a differentiable result, or exports):\n\n",
        );
        for (name, why) in unusable {
            let _ = writeln!(doc, "- `{name}`: {why}");
        }
    }
    if !not_differentiable.is_empty() {
        let names: Vec<String> = not_differentiable
            .iter()
            .map(|(name, _)| format!("`{name}`"))
            .collect();
        let _ = writeln!(
            doc,
            "\nOpInfos of docs/opinfo.md that PyTorch does not differentiate \
             (`supports_autograd=False`), {}: {}.",
            names.len(),
            names.join(", ")
        );
    }
    let _ = writeln!(
        doc,
        "\nFixtures made with torch {}.",
        manifest["torch_version"].as_str().unwrap_or("?")
    );
    doc
}

fn escape(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// A failure's cause, for the summary: the refused op, the unsupported ATen op, or the kind of
/// numeric difference.
fn classify(why: &str) -> String {
    if let Some(rest) = why.split("cannot differentiate `").nth(1) {
        let op = rest.split('`').next().unwrap_or("?");
        let detail = rest.split_once(": ").map_or("", |(_, d)| d);
        return format!("cannot differentiate `{op}`: {detail}");
    }
    if why.starts_with("the loss differs") {
        return "the loss (forward) differs".into();
    }
    if why.contains("differs (tpuc has none)") {
        return "a gradient is missing".into();
    }
    if why.starts_with("the gradient of") && why.contains("differs") {
        return "a gradient differs".into();
    }
    why.to_owned()
}
