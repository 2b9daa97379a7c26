//! torch's own per-op test inputs (OpInfo samples, `testdata/opinfo/`, made by
//! `testdata/opinfo.py`) run on XLA:CPU in both dialects and compared with eager PyTorch: a
//! group's samples lowered together (`LowerOptions::outputs`), each entry's and then each
//! sample's alone where that fails. `docs/opinfo.md` is the table of
//! the results; regenerate it with `BLESS=1 cargo test -p tpuc-cli --test opinfo`.
//! `OPINFO_ONLY=KEY,...` (OpInfo keys, or entries such as `var.bfloat16`) runs only those and
//! prints their table instead of checking the document.

mod support;

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use support::{opinfo_refusal, percent};
use tpuc_driver::{LowerOptions, Options, Runtime};
use tpuc_expect::expect_file;
use tpuc_npy::Array;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A user output to compare: its manifest description and its entry's tolerance (rtol, atol).
type Check<'a> = (&'a Value, (f64, f64));

/// `Ok` when every output (of one or more samples) matches, else why not (the diagnostic's
/// first line).
fn run_sample(
    runtime: &Runtime,
    model: &Path,
    sample: &[Check<'_>],
    expected: &[f64],
) -> Result<(), String> {
    let outputs: Vec<usize> = sample
        .iter()
        .map(|(o, _)| o["output"].as_u64().unwrap() as usize)
        .collect();
    let options = Options {
        lower: LowerOptions {
            outputs: Some(outputs),
            ..LowerOptions::default()
        },
        ..Options::default()
    };
    let run = tpuc_driver::run(runtime, model, &[], &options).map_err(|e| {
        let text = e.to_string();
        text.lines().next().unwrap_or_default().to_owned()
    })?;
    if run.outputs.len() != sample.len() {
        return Err(format!(
            "{} results, eager has {}",
            run.outputs.len(),
            sample.len()
        ));
    }
    for (got, &(want, tol)) in run.outputs.iter().zip(sample) {
        let (dtype, shape) = (want["dtype"].as_str().unwrap(), &want["shape"]);
        if got.dtype.torch_name() != dtype {
            return Err(format!("result is {}, eager's is {dtype}", got.dtype));
        }
        if serde_json::to_value(&got.shape).unwrap() != *shape {
            return Err(format!(
                "result has shape {:?}, eager's is {shape}",
                got.shape
            ));
        }
        let got = got.to_npy().ok_or("an output has no .npy form")?;
        let got = Array::from_npy_bytes(&got.to_npy_bytes())
            .map_err(|e| e.to_string())?
            .to_f64();
        let offset = want["offset"].as_u64().unwrap() as usize;
        let want = &expected[offset..offset + got.len()];
        let exact = !matches!(dtype, "float32" | "float16" | "bfloat16" | "complex64");
        for (&g, &w) in got.iter().zip(want) {
            let ok = (g.is_nan() && w.is_nan())
                || g == w
                || (!exact && (g - w).abs() <= tol.1 + tol.0 * w.abs());
            if !ok {
                return Err(format!("differs from eager: got {g}, want {w}"));
            }
        }
    }
    Ok(())
}

/// The table's dtype columns; an entry `KEY.DTYPE` is in its dtype's column, int64 and int32
/// in `integer`.
const COLUMNS: [&str; 6] = [
    "float32",
    "bfloat16",
    "float16",
    "integer",
    "bool",
    "complex64",
];

/// The share of each column's samples that must pass (the bar).
const REQUIRED_PASS_RATE: f64 = 0.97;

/// The OpInfo key and the dtype of a manifest entry.
fn split_entry(name: &str) -> (&str, &str) {
    name.split_once('.').unwrap_or((name, "float32"))
}

fn column(dtype: &str) -> usize {
    let integer = matches!(dtype, "int64" | "int32");
    COLUMNS
        .iter()
        .position(|&c| c == dtype || (integer && c == "integer"))
        .unwrap()
}

#[derive(Default)]
struct Tally {
    passed: usize,
    total: usize,
    reasons: BTreeMap<String, usize>,
}

impl Tally {
    fn cell(&self, dtype: &str) -> String {
        // The integer column is int64 unless said.
        let int32 = if dtype == "int32" { " (int32)" } else { "" };
        format!("{} / {}{int32}", self.passed, self.total)
    }
}

/// Per OpInfo key, its entries' tallies by dtype.
type Tallies = BTreeMap<String, BTreeMap<String, Tally>>;

/// A panic is a tpuc bug; it is counted and named, and the others still run.
fn attempt(
    runtime: &Runtime,
    model: &Path,
    checks: &[Check<'_>],
    expected: &[f64],
) -> Result<(), String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_sample(runtime, model, checks, expected)
    }))
    .unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("?");
        Err(format!("tpuc panicked: {what}"))
    })
}

/// An entry's samples, each as the checks of its outputs.
fn samples(op: &Value) -> Vec<Vec<Check<'_>>> {
    let tol = (
        op["tolerance"]["rtol"].as_f64().unwrap(),
        op["tolerance"]["atol"].as_f64().unwrap(),
    );
    op["samples"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_array().unwrap().iter().map(|o| (o, tol)).collect())
        .collect()
}

/// The tallies of one group's entries. Compiling dominates the time, so a dialect's program
/// is first lowered with every entry's outputs, then each entry's, then each sample's alone,
/// going finer only where the coarser run fails (to count and name the failing samples).
fn run_group<'m>(
    runtime: &Runtime,
    dir: &Path,
    group: &Value,
    entries: &[(&'m String, &'m Value)],
) -> Vec<(&'m String, Tally)> {
    let expected = Array::read(dir.join(group["expected"].as_str().unwrap()))
        .unwrap()
        .to_f64();
    let per_entry: Vec<Vec<Vec<Check<'_>>>> = entries.iter().map(|(_, op)| samples(op)).collect();
    let mut tallies: Vec<Tally> = entries.iter().map(|_| Tally::default()).collect();
    for variant in ["pt2", "core"] {
        let model = dir.join(group[variant].as_str().unwrap());
        let all: Vec<Check<'_>> = per_entry.iter().flatten().flatten().copied().collect();
        let all_pass = entries.len() > 1 && attempt(runtime, &model, &all, &expected).is_ok();
        for (samples, tally) in per_entry.iter().zip(&mut tallies) {
            tally.total += samples.len();
            let together: Vec<Check<'_>> = samples.concat();
            if all_pass
                || (samples.len() > 1 && attempt(runtime, &model, &together, &expected).is_ok())
            {
                tally.passed += samples.len();
                continue;
            }
            for sample in samples {
                match attempt(runtime, &model, sample, &expected) {
                    Ok(()) => tally.passed += 1,
                    Err(why) => {
                        *tally
                            .reasons
                            .entry(format!("{variant}: {why}"))
                            .or_default() += 1
                    }
                }
            }
        }
    }
    entries.iter().map(|(name, _)| *name).zip(tallies).collect()
}

#[test]
fn opinfo_samples_match_eager() {
    tpuc_expect::skip_without!(Plugins);
    let dir = repo().join("testdata/opinfo");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let runtime = Runtime::cpu(None).unwrap();
    let mut tallies = Tallies::new();
    let mut refused: BTreeMap<String, String> = BTreeMap::new();
    let only = std::env::var("OPINFO_ONLY").ok();
    let chosen = |name: &str| {
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|k| k == name || k == split_entry(name).0))
    };
    let mut groups: BTreeMap<&str, Vec<(&String, &Value)>> = BTreeMap::new();
    for (name, op) in manifest["ops"].as_object().unwrap() {
        if !chosen(name) {
            continue;
        }
        match op["refused"].as_str() {
            Some(why) => {
                refused.insert(name.clone(), opinfo_refusal(op, why));
            }
            None => groups
                .entry(op["group"].as_str().unwrap())
                .or_default()
                .push((name, op)),
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
                    let group = &manifest["groups"][*group];
                    let tallied = run_group(&runtime, &dir, group, entries);
                    done.lock().unwrap().extend(tallied);
                }
            });
        }
    });
    for (name, tally) in done.into_inner().unwrap() {
        let (opinfo, dtype) = split_entry(name);
        tallies
            .entry(opinfo.to_owned())
            .or_default()
            .insert(dtype.to_owned(), tally);
    }
    let mut doc = report(&tallies, &refused);
    if only.is_some() {
        println!("{doc}");
        return;
    }
    doc.push_str(&core_coverage(&manifest, &dir));
    let path = repo().join("docs/opinfo.md");
    expect_file(&path, &doc);
    for (c, (passed, total)) in COLUMNS.iter().zip(column_totals(&tallies)) {
        assert!(
            passed as f64 >= REQUIRED_PASS_RATE * total as f64,
            "{c}: only {passed} of {total} OpInfo samples pass ({:.1}%)",
            percent(passed, total)
        );
    }
}

/// Passed and total samples per column.
fn column_totals(tallies: &Tallies) -> [(usize, usize); COLUMNS.len()] {
    let mut totals = [(0, 0); COLUMNS.len()];
    for (dtype, t) in tallies.values().flatten() {
        let slot = &mut totals[column(dtype)];
        slot.0 += t.passed;
        slot.1 += t.total;
    }
    totals
}

/// `docs/opinfo.md`.
fn report(tallies: &Tallies, refused: &BTreeMap<String, String>) -> String {
    let all = tallies.values().flatten().map(|(_, t)| t);
    let (passed, total) = all.fold((0, 0), |(p, n), t| (p + t.passed, n + t.total));
    let mut doc = String::from(
        "# OpInfo results\n\n\
         Generated by `cargo test -p tpuc-cli --test opinfo` (regenerate with `BLESS=1`);\n\
         do not edit. torch's OpInfo sample inputs (`testdata/opinfo/`, made by\n\
         `testdata/opinfo.py`) for every OpInfo whose ATen op tpuc registers, lowered in both\n\
         dialects (a group's samples together, finer where that fails), run on\n\
         XLA:CPU and compared with eager PyTorch (values, dtypes and shapes): up to 4 samples in\n\
         float32 and up to 2 in each of bfloat16, float16, one integer type (int64, or int32 when\n\
         the OpInfo has no int64), bool and complex64 that the OpInfo supports. Integer and\n\
         boolean results compare exactly, the narrow floats within a few roundings of their\n\
         precision, complex64 ones part by part as float32. A cell counts both dialects' runs\n\
         (int32 is named; other integer cells are int64); empty means the OpInfo has no such\n\
         dtype.\n\n",
    );
    let _ = writeln!(
        doc,
        "**{passed} of {total} samples pass ({:.1}%)** over {} OpInfos.\n",
        percent(passed, total),
        tallies.len()
    );
    doc.push_str("| dtype | OpInfos | passed / total | passed |\n|---|---|---|---|\n");
    for (c, (passed, total)) in COLUMNS.iter().zip(column_totals(tallies)) {
        let opinfos = tallies
            .values()
            .filter(|by| by.keys().any(|d| COLUMNS[column(d)] == *c))
            .count();
        let _ = writeln!(
            doc,
            "| {c} | {opinfos} | {passed} / {total} | {:.1}% |",
            percent(passed, total)
        );
    }
    let _ = writeln!(
        doc,
        "\n| OpInfo | {} | why the others fail |\n|---|{}---|",
        COLUMNS.join(" | "),
        "---|".repeat(COLUMNS.len())
    );
    for (name, by_dtype) in tallies {
        let mut cells = vec![String::new(); COLUMNS.len()];
        let mut reasons = Vec::new();
        for (dtype, t) in by_dtype {
            cells[column(dtype)] = t.cell(dtype);
            for (why, n) in &t.reasons {
                let why = why.replace('|', "\\|").replace('\n', " ");
                reasons.push(format!("{n}× {dtype} {why}"));
            }
        }
        let _ = writeln!(
            doc,
            "| `{name}` | {} | {} |",
            cells.join(" | "),
            reasons.join("; ")
        );
    }
    if !refused.is_empty() {
        doc.push_str("\nEntries without a usable sample (none runs in eager or exports):\n\n");
        for (name, why) in refused {
            let _ = writeln!(doc, "- `{name}`: {why}");
        }
    }
    doc
}

/// Every archive under `dir` but the OpInfo programs and the malformed ones, sorted.
fn fixture_archives(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() && !path.ends_with("opinfo") && !path.ends_with("malformed") {
            found.extend(fixture_archives(&path));
        } else if path.extension().is_some_and(|e| e == "pt2") {
            found.push(path);
        }
    }
    found.sort();
    found
}

/// The ATen targets (`name.overload`) of every graph of the archives in `paths`.
fn targets_of(paths: impl IntoIterator<Item = PathBuf>) -> std::collections::BTreeSet<String> {
    let mut found = std::collections::BTreeSet::new();
    for path in paths {
        let archive = tpuc_pt2::Archive::open(&path).unwrap();
        for (_, node) in archive.graph().walk() {
            if let Some(op) = node.target.strip_prefix("torch.ops.aten.") {
                found.insert(op.to_owned());
            }
        }
    }
    found
}

/// The section of `docs/opinfo.md` on torch's core ATen opset: which ops the OpInfo programs
/// reach, which only the fixtures of `testdata/models` do, and which tpuc does not lower.
fn core_coverage(manifest: &Value, dir: &Path) -> String {
    let core: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("testdata/core_aten.json")).unwrap(),
    )
    .unwrap();
    let ops: Vec<&str> = core["ops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|op| op.as_str().unwrap())
        .collect();
    let programs = manifest["groups"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|group| {
            ["pt2", "core"].map(|variant| dir.join(group[variant].as_str().unwrap()))
        });
    let by_opinfo = targets_of(programs);
    let by_fixture = targets_of(fixture_archives(&repo().join("testdata")));
    let not_lowered: Vec<&str> = tpuc_lower::NOT_LOWERED
        .iter()
        .filter_map(|(target, _)| target.strip_prefix("torch.ops.aten."))
        .collect();
    let opinfo_count = ops.iter().filter(|op| by_opinfo.contains(**op)).count();
    let fixture_only: Vec<&&str> = ops
        .iter()
        .filter(|op| !by_opinfo.contains(**op) && by_fixture.contains(**op))
        .collect();
    let neither: Vec<&&str> = ops
        .iter()
        .filter(|op| !by_opinfo.contains(**op) && !by_fixture.contains(**op))
        .collect();
    let mut doc = format!(
        "\n## Core ATen\n\n\
         torch {}'s core ATen opset (`testdata/core_aten.json`): {} overloads. {} of them are in \
         the programs of the OpInfo samples above, {} more only in the fixtures of `testdata/` \
         (each checked against eager PyTorch by the `run`, `train` or `generate` tests), and {} \
         tpuc does not lower ([ops.md](ops.md#not-lowered) says why).\n",
        core["torch_version"].as_str().unwrap_or("?"),
        ops.len(),
        opinfo_count,
        fixture_only.len(),
        not_lowered.len()
    );
    let list = |ops: &[&&str]| -> String {
        ops.iter()
            .map(|op| format!("`{op}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(doc, "\nOnly in the fixtures: {}.", list(&fixture_only));
    let untested: Vec<&&str> = neither
        .iter()
        .filter(|op| !not_lowered.contains(**op))
        .copied()
        .collect();
    if !untested.is_empty() {
        let _ = writeln!(
            doc,
            "\nLowered but reached by no sample or fixture: {}.",
            list(&untested)
        );
    }
    doc
}
