//! Measures tpuc against the StableHLO project's own test files (`stablehlo/tests` of
//! github.com/openxla/stablehlo, fetched by the user; see `docs/testing.md`):
//!
//! - **interpret**: every case of `tests/interpret` (a `// -----` split with `check.expect_*`
//!   ops and no `interpreter.*` ops) becomes a module whose `main` returns what its check ops
//!   check; `tpuc run` executes it on XLA:CPU, and the `.npy` outputs are compared with the
//!   expected constants (exactly, or within the check's tolerance);
//! - **verify**: every split of the verifier test files is parsed and verified; a split with an
//!   `expected-error` must be refused, any other accepted;
//! - **roundtrip**: every top-level function of the round-trip files is a module that must
//!   parse, and print (pretty and generic) a text that parses back and prints the same.
//!
//! ```sh
//! cargo build -p tpuc-cli
//! cargo run -p tpuc-ir --example stablehlo_suite -- DIR [--only PART] [--filter TEXT] [--twice]
//! ```
//!
//! `DIR` holds `stablehlo/tests` (or is that directory). `--twice` runs every module a second
//! time, from the compile cache, and requires the same outputs. `--tpuc PATH` names the binary
//! (default: `target/debug/tpuc` of this workspace); `--keep DIR` writes the generated modules.
//! Every failing case is printed with its reason, then the totals.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use tpuc_ir::parse::parse_module;
use tpuc_ir::{DenseElements, ElementType, ElementValue, OpKind, PrintOptions, TensorType, Type};
use tpuc_npy::{Array, Dtype};

/// The verifier test files (each split verified on its own).
const VERIFY_FILES: &[&str] = &[
    "ops_stablehlo.mlir",
    "ops_chlo.mlir",
    "ops_dot_general_algorithms.mlir",
    "verify_async_ops.mlir",
    "verify_bounds.mlir",
    "verify_convolution.mlir",
    "verify_dynamic_conv.mlir",
    "verify_reduce.mlir",
    "verify_reduce_window.mlir",
    "verify_replica_groups_mesh_axes.mlir",
    "verify_scatter.mlir",
    "verify_select_and_scatter.mlir",
    "verify_while.mlir",
];

/// The round-trip files (each top-level function a module of its own).
const ROUNDTRIP_FILES: &[&str] = &["ops_stablehlo_roundtrip.mlir", "print_stablehlo.mlir"];

struct Args {
    tests: PathBuf,
    only: Option<String>,
    filter: Option<String>,
    twice: bool,
    tpuc: PathBuf,
    keep: Option<PathBuf>,
}

fn main() -> std::process::ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("error: {message}");
            eprintln!(
                "usage: stablehlo_suite DIR [--only interpret|verify|roundtrip] [--filter TEXT] \
                 [--twice] [--tpuc PATH] [--keep DIR]"
            );
            return std::process::ExitCode::from(2);
        }
    };
    let wants = |part: &str| args.only.as_deref().is_none_or(|only| only == part);
    let mut summary = String::new();
    if wants("verify") {
        summary += &verify_suite(&args);
    }
    if wants("roundtrip") {
        summary += &roundtrip_suite(&args);
    }
    if wants("interpret") {
        summary += &interpret_suite(&args);
    }
    println!("\n{summary}");
    std::process::ExitCode::SUCCESS
}

fn parse_args() -> Result<Args, String> {
    let mut tests = None;
    let mut only = None;
    let mut filter = None;
    let mut twice = false;
    let mut keep = None;
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut tpuc = workspace.join("target/debug/tpuc");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--only" => only = Some(value("--only")?),
            "--filter" => filter = Some(value("--filter")?),
            "--tpuc" => tpuc = PathBuf::from(value("--tpuc")?),
            "--keep" => keep = Some(PathBuf::from(value("--keep")?)),
            "--twice" => twice = true,
            // What `cargo bench`/`cargo run` may pass along.
            "--bench" => {}
            _ if arg.starts_with("--") => return Err(format!("unknown option {arg}")),
            _ => tests = Some(PathBuf::from(arg)),
        }
    }
    let tests = tests.ok_or("no directory of StableHLO tests given")?;
    let tests = [tests.join("stablehlo/tests"), tests.clone()]
        .into_iter()
        .find(|dir| dir.join("interpret").is_dir())
        .ok_or_else(|| format!("{} holds no stablehlo/tests/interpret", tests.display()))?;
    if let Some(part) = &only
        && !["interpret", "verify", "roundtrip"].contains(&part.as_str())
    {
        return Err(format!("unknown part {part}"));
    }
    Ok(Args {
        tests,
        only,
        filter,
        twice,
        tpuc,
        keep,
    })
}

/// The `// -----` splits of a file, each with its first line number (1-based).
fn splits(text: &str) -> Vec<(usize, String)> {
    let mut out = vec![(1, String::new())];
    for (index, line) in text.lines().enumerate() {
        if line.trim_end() == "// -----" {
            out.push((index + 2, String::new()));
        } else {
            let current = &mut out.last_mut().expect("one split").1;
            current.push_str(line);
            current.push('\n');
        }
    }
    out
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The first line of an error, without ANSI colours.
fn first_line(message: &str) -> String {
    let line = message.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut out = String::new();
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    let out = out.trim().to_owned();
    if out.len() > 200 {
        format!("{}...", &out[..out.floor_char_boundary(200)])
    } else {
        out
    }
}

// Verifier.

fn verify_suite(args: &Args) -> String {
    let (mut invalid, mut invalid_accepted, mut valid, mut valid_rejected) = (0, 0, 0, 0);
    println!("== verify: invalid cases accepted, valid cases rejected");
    for file in VERIFY_FILES {
        let text = read(&args.tests.join(file));
        for (line, split) in splits(&text) {
            let name = format!("{file}:{line}");
            if !split.contains("func.func") && !split.contains("module") {
                continue;
            }
            if args.filter.as_ref().is_some_and(|f| !name.contains(f)) {
                continue;
            }
            let outcome = parse_module(&split)
                .map_err(|e| format!("parse: {}", first_line(&e.to_string())))
                .and_then(|module| {
                    tpuc_ir::verify(&module)
                        .map_err(|e| format!("verify: {}", first_line(&e.to_string())))
                });
            if split.contains("expected-error") {
                invalid += 1;
                if outcome.is_ok() {
                    invalid_accepted += 1;
                    let wanted = split
                        .lines()
                        .find_map(|l| l.split_once("expected-error").map(|(_, e)| e.trim()))
                        .unwrap_or("");
                    println!("ACCEPTED {name}: {}", first_line(wanted));
                }
            } else {
                valid += 1;
                if let Err(reason) = outcome {
                    valid_rejected += 1;
                    println!("REJECTED {name}: {reason}");
                }
            }
        }
    }
    format!(
        "verify: {invalid_accepted} of {invalid} invalid cases accepted; \
         {valid_rejected} of {valid} valid cases rejected\n"
    )
}

// Round trip.

/// The top-level functions of a file: from each `func.func` at the start of a line to the line
/// closing it.
fn top_level_functions(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut index = 0;
    while index < lines.len() {
        if !lines[index].starts_with("func.func") {
            index += 1;
            continue;
        }
        let start = index;
        let mut depth = 0i64;
        let mut opened = false;
        let mut body = String::new();
        while index < lines.len() {
            let line = lines[index];
            let code = line.split("//").next().unwrap_or("");
            for c in code.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            body.push_str(line);
            body.push('\n');
            index += 1;
            if opened && depth == 0 {
                break;
            }
        }
        out.push((start + 1, body));
    }
    out
}

fn roundtrip_suite(args: &Args) -> String {
    let (mut total, mut parsed, mut fixed) = (0, 0, 0);
    println!("== roundtrip: modules that do not parse or do not print a fixed point");
    let options = PrintOptions::default();
    for file in ROUNDTRIP_FILES {
        let text = read(&args.tests.join(file));
        for (line, function) in top_level_functions(&text) {
            let name = format!("{file}:{line}");
            if args.filter.as_ref().is_some_and(|f| !name.contains(f)) {
                continue;
            }
            total += 1;
            let module = match parse_module(&function) {
                Ok(module) => module,
                Err(e) => {
                    println!("NO PARSE {name}: {}", first_line(&e.to_string()));
                    continue;
                }
            };
            parsed += 1;
            let mut problems = Vec::new();
            for (form, print) in [
                ("pretty", tpuc_ir::print::pretty as fn(&_, &_) -> String),
                ("generic", tpuc_ir::print::generic),
            ] {
                let once = print(&module, &options);
                match parse_module(&once) {
                    Ok(again) if print(&again, &options) == once => {}
                    Ok(_) => problems.push(format!("{form} text prints differently")),
                    Err(e) => problems.push(format!(
                        "{form} text does not parse: {}",
                        first_line(&e.to_string())
                    )),
                }
            }
            if problems.is_empty() {
                fixed += 1;
            } else {
                println!("NOT FIXED {name}: {}", problems.join("; "));
            }
        }
    }
    format!("roundtrip: {parsed} of {total} modules parse, {fixed} of them print a fixed point\n")
}

// Interpreter cases.

/// What a check op compares its value with.
#[derive(Clone, Debug)]
enum Expected {
    /// A constant, `dense<...> : type`.
    Constant(String),
    /// Another value of the function.
    Value(String),
}

#[derive(Clone, Debug)]
enum Tolerance {
    Exact,
    Absolute(f64),
    Ulps(u64),
}

#[derive(Clone, Debug)]
struct Check {
    value: String,
    ty: String,
    expected: Expected,
    tolerance: Tolerance,
}

/// One case turned into a module: `main` returns the checked values, then the values checks
/// compare them with.
struct Case {
    module: String,
    checks: Vec<Check>,
}

/// The end (exclusive) of the statement starting at `start`: the first newline at bracket
/// depth zero.
fn statement_end(text: &str, start: usize) -> usize {
    let mut depth = 0i64;
    for (offset, c) in text[start..].char_indices() {
        match c {
            '<' | '[' | '(' | '{' => depth += 1,
            '>' | ']' | ')' | '}' => depth -= 1,
            // A statement goes on after a line ending with a comma.
            '\n' if depth <= 0 && !text[start..start + offset].trim_end().ends_with(',') => {
                return start + offset;
            }
            _ => {}
        }
    }
    text.len()
}

/// Splits at top-level commas (outside brackets).
fn top_level_split(text: &str, separator: char) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut depth = 0i64;
    for c in text.chars() {
        match c {
            '<' | '[' | '(' | '{' => depth += 1,
            '>' | ']' | ')' | '}' => depth -= 1,
            _ => {}
        }
        if c == separator && depth == 0 {
            parts.push(String::new());
        } else {
            parts.last_mut().expect("one part").push(c);
        }
    }
    parts.into_iter().map(|p| p.trim().to_owned()).collect()
}

/// `text` without a trailing `{...}` attribute dictionary, and the dictionary's `tolerance`.
fn strip_attr_dict(text: &str) -> (String, Option<f64>) {
    let text = text.trim();
    if let Some(open) = text.rfind('{')
        && text.ends_with('}')
    {
        let dict = &text[open + 1..text.len() - 1];
        let tolerance = dict
            .split(',')
            .filter_map(|entry| entry.split_once('='))
            .find(|(key, _)| key.trim() == "tolerance")
            .and_then(|(_, value)| value.split(':').next()?.trim().parse().ok());
        return (text[..open].trim().to_owned(), tolerance);
    }
    (text.to_owned(), None)
}

fn parse_check(op: &str, rest: &str) -> Result<Check, String> {
    let (rest, dict_tolerance) = strip_attr_dict(rest);
    let parts = top_level_split(&rest, ',');
    let value = parts[0].clone();
    let named = |key: &str| {
        parts.iter().find_map(|p| {
            let (k, v) = p.split_once('=')?;
            (k.trim() == key).then(|| {
                top_level_split(v, ':')[0]
                    .trim()
                    .trim_end_matches(|c: char| !c.is_ascii_digit())
                    .to_owned()
            })
        })
    };
    // The type follows the first top-level `:` (`%a, %b : type` or `..., : type, type`).
    let type_of = |text: &str| -> Result<String, String> {
        let pieces = top_level_split(text, ':');
        let ty = pieces.get(1).ok_or(format!("no type in `{text}`"))?;
        Ok(top_level_split(ty, ',')[0].clone())
    };
    match op {
        "expect_eq_const" | "expect_almost_eq_const" => {
            let constant = parts.get(1).ok_or("no constant")?;
            let (literal, ty) = constant
                .rsplit_once(" : ")
                .ok_or(format!("no type in `{constant}`"))?;
            let ty = ty.trim().to_owned();
            let tolerance = if op == "expect_eq_const" {
                Tolerance::Exact
            } else {
                let given = named("tolerance").and_then(|t| t.parse().ok());
                Tolerance::Absolute(given.or(dict_tolerance).unwrap_or(1e-4))
            };
            Ok(Check {
                value,
                expected: Expected::Constant(format!("{} : {ty}", literal.trim())),
                ty,
                tolerance,
            })
        }
        "expect_eq" | "expect_almost_eq" | "expect_close" => {
            let other = top_level_split(&parts[1], ':')[0].clone();
            let ty = type_of(&rest)?;
            let tolerance = match op {
                "expect_eq" => Tolerance::Exact,
                "expect_almost_eq" => {
                    let given = named("tolerance").and_then(|t| t.parse().ok());
                    Tolerance::Absolute(given.or(dict_tolerance).unwrap_or(1e-4))
                }
                _ => Tolerance::Ulps(named("max_ulp_difference").map_or(Ok(1), |t| {
                    t.parse().map_err(|_| format!("bad max_ulp_difference {t}"))
                })?),
            };
            Ok(Check {
                value,
                ty,
                expected: Expected::Value(other),
                tolerance,
            })
        }
        other => Err(format!("unsupported check op check.{other}")),
    }
}

/// The span of each function of `text` (from `func.func` to its closing brace, inclusive) and
/// where its body opens.
fn function_spans(text: &str) -> Vec<(usize, usize, usize)> {
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("func.func") {
        let start = from + found;
        let Some(open) = text[start..].find('{').map(|i| start + i) else {
            break;
        };
        let mut depth = 0i64;
        let mut end = text.len();
        for (offset, c) in text[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + offset + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        spans.push((start, open, end));
        from = end;
    }
    spans
}

/// The modules of a case: one per function holding check ops (most cases have one), with
/// every check op removed, that function renamed `main` and made to return what its checks
/// check.
fn make_cases(split: &str) -> Result<Vec<Case>, String> {
    let spans = function_spans(split);
    // (function index, line range of the statement, the check)
    let mut found: Vec<(usize, (usize, usize), Check)> = Vec::new();
    let mut cursor = 0;
    while let Some(at) = split[cursor..].find("check.expect_") {
        let start = cursor + at;
        let end = statement_end(split, start);
        let statement = split[start..end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let (op, rest) = statement["check.".len()..]
            .split_once(' ')
            .ok_or(format!("bad check `{statement}`"))?;
        let function = spans
            .iter()
            .position(|&(s, _, e)| s <= start && start < e)
            .ok_or("a check op outside any function")?;
        let line_start = split[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = if end < split.len() { end + 1 } else { end };
        found.push((function, (line_start, line_end), parse_check(op, rest)?));
        cursor = end;
    }
    let mut functions: Vec<usize> = found.iter().map(|(f, ..)| *f).collect();
    functions.dedup();
    let mut cases = Vec::new();
    for function in functions {
        let (start, open, end) = spans[function];
        if !split[start..open].contains("()") {
            return Err(format!(
                "checking function takes arguments: {}",
                split[start..open].trim()
            ));
        }
        let checks: Vec<&Check> = found
            .iter()
            .filter(|(f, ..)| *f == function)
            .map(|(.., c)| c)
            .collect();
        let mut returned: Vec<(&str, &str)> = checks
            .iter()
            .map(|c| (c.value.as_str(), c.ty.as_str()))
            .collect();
        for check in &checks {
            if let Expected::Value(other) = &check.expected {
                returned.push((other, &check.ty));
            }
        }
        let types: Vec<&str> = returned.iter().map(|(_, t)| *t).collect();
        let values: Vec<&str> = returned.iter().map(|(v, _)| *v).collect();
        let ret = split[open..end]
            .rfind("return")
            .map(|i| open + i)
            .ok_or("no return in the checking function")?;
        let ret_start = split[..ret].rfind('\n').map_or(0, |i| i + 1);
        let ret_end = split[ret..].find('\n').map_or(split.len(), |i| ret + i);
        // Edits in the split's coordinates: (start, end, replacement).
        let mut edits: Vec<(usize, usize, String)> = found
            .iter()
            .map(|(_, (s, e), _)| (*s, *e, String::new()))
            .collect();
        edits.push((
            start,
            open,
            format!("func.func @main() -> ({}) ", types.join(", ")),
        ));
        edits.push((
            ret_start,
            ret_end,
            format!("  func.return {} : {}", values.join(", "), types.join(", ")),
        ));
        edits.sort_by_key(|(s, ..)| *s);
        let mut module = String::new();
        let mut at = 0;
        for (s, e, replacement) in edits {
            module.push_str(&split[at..s]);
            module.push_str(&replacement);
            at = e;
        }
        module.push_str(&split[at..]);
        let checks = found
            .iter()
            .filter(|(f, ..)| *f == function)
            .map(|(.., c)| c.clone())
            .collect();
        cases.push(Case { module, checks });
    }
    if cases.is_empty() {
        return Err("no check op".into());
    }
    Ok(cases)
}

/// A decoded element, for comparisons.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scalar {
    Int(i128),
    Float(f64),
    Complex(f64, f64),
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scalar::Int(v) => write!(f, "{v}"),
            Scalar::Float(v) => write!(f, "{v:?}"),
            Scalar::Complex(re, im) => write!(f, "({re:?}, {im:?})"),
        }
    }
}

/// The expected constant `dense<...> : type`, as tpuc's parser reads it.
fn expected_constant(constant: &str) -> Result<(TensorType, Vec<Scalar>), String> {
    let ty_text = constant.rsplit_once(" : ").map(|(_, t)| t).unwrap_or("");
    let text = format!(
        "func.func @main() -> {ty_text} {{\n  %0 = stablehlo.constant {constant}\n  \
         func.return %0 : {ty_text}\n}}\n"
    );
    let module = parse_module(&text).map_err(|e| first_line(&e.to_string()))?;
    let function = &module.functions[0];
    let block = function.block(function.entry_block());
    let op = function.op(block.ops[0]);
    let OpKind::Constant(data) = &op.kind else {
        return Err("not a constant".into());
    };
    let Type::Tensor(ty) = function.value_type(op.results[0]).clone() else {
        return Err("not a tensor".into());
    };
    let count = ty.num_elements().ok_or("dynamic shape")? as usize;
    Ok((ty.clone(), dense_scalars(&ty, data, count)))
}

fn dense_scalars(ty: &TensorType, data: &DenseElements, count: usize) -> Vec<Scalar> {
    (0..count)
        .map(|i| {
            let index = if data.is_splat() { 0 } else { i };
            let element = ty.element;
            match data.value(element, index) {
                ElementValue::Bool(b) => Scalar::Int(i128::from(b)),
                ElementValue::Signed(v) => Scalar::Int(i128::from(v)),
                ElementValue::Unsigned(v) => Scalar::Int(i128::from(v)),
                ElementValue::Float(_) => {
                    Scalar::Float(data.float_at(element, index).expect("float"))
                }
                ElementValue::Complex(..) => {
                    let part = element.complex_part().expect("complex");
                    let bytes = data.bytes();
                    let width = part.storage_bytes();
                    let at = index * 2 * width;
                    let re = DenseElements::from_bytes(
                        &TensorType::of(&[2], part),
                        bytes[at..at + 2 * width].to_vec(),
                    )
                    .expect("complex parts");
                    let parts: Vec<f64> = (0..re.stored_len(part).max(1))
                        .map(|k| re.float_at(part, k).expect("float"))
                        .collect();
                    Scalar::Complex(parts[0], *parts.get(1).unwrap_or(&parts[0]))
                }
            }
        })
        .collect()
}

/// An output `.npy` file's elements.
fn npy_scalars(array: &Array) -> Vec<Scalar> {
    let dtype = array.dtype();
    array
        .data()
        .chunks_exact(dtype.itemsize())
        .map(|b| {
            let le = |n: usize| -> u128 {
                b[..n]
                    .iter()
                    .rev()
                    .fold(0u128, |acc, &byte| (acc << 8) | u128::from(byte))
            };
            let signed = |n: usize| -> i128 {
                let v = le(n);
                let shift = 128 - 8 * n as u32;
                ((v << shift) as i128) >> shift
            };
            match dtype {
                Dtype::Bool | Dtype::U8 | Dtype::U16 | Dtype::U32 | Dtype::U64 => {
                    Scalar::Int(le(dtype.itemsize()) as i128)
                }
                Dtype::I8 | Dtype::I16 | Dtype::I32 | Dtype::I64 => {
                    Scalar::Int(signed(dtype.itemsize()))
                }
                Dtype::F16 | Dtype::F32 | Dtype::F64 => {
                    let one = Array::new(dtype, vec![1], b.to_vec()).expect("one element");
                    Scalar::Float(one.to_f64()[0])
                }
                Dtype::C64 | Dtype::C128 => {
                    let one = Array::new(dtype, vec![1], b.to_vec()).expect("one element");
                    let parts = one.to_f64();
                    Scalar::Complex(parts[0], parts[1])
                }
            }
        })
        .collect()
}

fn almost_equal(a: f64, b: f64, tolerance: f64) -> bool {
    if a == b || (a.is_nan() && b.is_nan()) {
        return true;
    }
    a.is_finite() && b.is_finite() && (a - b).abs() <= tolerance
}

fn float_bits_f64(v: f64) -> i64 {
    let bits = v.to_bits() as i64;
    if bits < 0 { i64::MIN - bits } else { bits }
}

/// Whether `got` matches `want` under `tolerance`; ULP distances are measured in the element
/// type `element`.
fn matches(got: Scalar, want: Scalar, tolerance: &Tolerance, element: ElementType) -> bool {
    match (got, want) {
        (Scalar::Int(a), Scalar::Int(b)) => a == b,
        (Scalar::Float(a), Scalar::Float(b)) => match tolerance {
            Tolerance::Exact => a == b || (a.is_nan() && b.is_nan()),
            Tolerance::Absolute(t) => almost_equal(a, b, *t),
            Tolerance::Ulps(n) => {
                if a.is_nan() || b.is_nan() {
                    return a.is_nan() && b.is_nan();
                }
                // Distance in units of the element type's last place, measured through f64.
                let mantissa = element.float_mantissa_bits().unwrap_or(52);
                let scale = 1u64 << (52 - mantissa);
                (float_bits_f64(a) - float_bits_f64(b)).unsigned_abs() / scale <= *n
            }
        },
        (Scalar::Complex(ar, ai), Scalar::Complex(br, bi)) => {
            matches(Scalar::Float(ar), Scalar::Float(br), tolerance, element)
                && matches(Scalar::Float(ai), Scalar::Float(bi), tolerance, element)
        }
        _ => false,
    }
}

trait MantissaBits {
    fn float_mantissa_bits(self) -> Option<u32>;
}

impl MantissaBits for ElementType {
    fn float_mantissa_bits(self) -> Option<u32> {
        match self {
            ElementType::F16 => Some(10),
            ElementType::BF16 => Some(7),
            ElementType::F32 => Some(23),
            ElementType::F64 => Some(52),
            _ => None,
        }
    }
}

/// Runs `module` with `tpuc run`, returning its outputs.
fn tpuc_run(args: &Args, dir: &Path, module: &Path, tag: &str) -> Result<Vec<Array>, String> {
    let out = dir.join(format!("out-{tag}"));
    let result = Command::new(&args.tpuc)
        .arg("run")
        .arg(module)
        .arg("--output-dir")
        .arg(&out)
        .arg("--cache-dir")
        .arg(dir.join("cache"))
        .env("NO_COLOR", "1")
        .output()
        .map_err(|e| format!("cannot start {}: {e}", args.tpuc.display()))?;
    if !result.status.success() {
        let stderr = String::from_utf8_lossy(&result.stderr);
        // The diagnostic's first two lines, without the paths of this run.
        let lines: Vec<&str> = stderr
            .lines()
            .map(|l| l.trim().trim_start_matches(['×', '│', '╰', '─', '▶', ' ']))
            .filter(|l| !l.is_empty() && !l.starts_with("warning") && !l.starts_with("note"))
            .collect();
        let start = lines
            .iter()
            .position(|l| !l.starts_with("executable"))
            .unwrap_or(0);
        let reason = lines[start..]
            .iter()
            .take(2)
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        let reason = reason.replace(&format!("{}", dir.display()), "");
        return Err(first_line(&reason));
    }
    let mut outputs = Vec::new();
    for index in 0.. {
        let path = out.join(format!("out{index}.npy"));
        if !path.exists() {
            break;
        }
        outputs.push(Array::read(&path).map_err(|e| format!("{}: {e}", path.display()))?);
    }
    Ok(outputs)
}

fn compare(case: &Case, outputs: &[Array]) -> Result<(), String> {
    let checked = case.checks.len();
    let others = case
        .checks
        .iter()
        .filter(|c| matches!(c.expected, Expected::Value(_)))
        .count();
    if outputs.len() != checked + others {
        return Err(format!(
            "{} outputs written, {} expected",
            outputs.len(),
            checked + others
        ));
    }
    let mut other_index = checked;
    for (index, check) in case.checks.iter().enumerate() {
        let got = &outputs[index];
        let (ty, want) = match &check.expected {
            Expected::Constant(constant) => {
                expected_constant(constant).map_err(|e| format!("expected constant: {e}"))?
            }
            Expected::Value(_) => {
                let ty = parse_tensor_type(&check.ty)?;
                let other = &outputs[other_index];
                other_index += 1;
                (ty, npy_scalars(other))
            }
        };
        let shape: Vec<usize> = ty
            .static_shape()
            .ok_or("dynamic expected shape")?
            .into_iter()
            .map(|d| d as usize)
            .collect();
        if got.shape() != shape.as_slice() {
            return Err(format!(
                "check {index}: shape {:?}, expected {shape:?}",
                got.shape()
            ));
        }
        let got = npy_scalars(got);
        if let Some((at, (g, w))) = got
            .iter()
            .zip(&want)
            .enumerate()
            .find(|(_, (g, w))| !matches(**g, **w, &check.tolerance, ty.element))
        {
            return Err(format!(
                "check {index}: element {at} is {g}, expected {w} ({:?})",
                check.tolerance
            ));
        }
    }
    Ok(())
}

fn parse_tensor_type(text: &str) -> Result<TensorType, String> {
    let module =
        format!("func.func @main(%arg0: {text}) -> {text} {{\n  func.return %arg0 : {text}\n}}\n");
    let module = parse_module(&module).map_err(|e| first_line(&e.to_string()))?;
    match module.functions[0].arg_types().first() {
        Some(Type::Tensor(ty)) => Ok(ty.clone()),
        _ => Err(format!("not a tensor type: {text}")),
    }
}

fn interpret_suite(args: &Args) -> String {
    println!("== interpret: cases that do not match");
    let scratch = tempfile::tempdir().expect("temporary directory");
    let mut files: Vec<PathBuf> = Vec::new();
    for dir in [
        args.tests.join("interpret"),
        args.tests.join("interpret/chlo"),
    ] {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("directory entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
            .collect();
        entries.sort();
        files.extend(entries);
    }
    let (mut total, mut matched) = (0, 0);
    let mut reasons: Vec<(String, String)> = Vec::new();
    for path in files {
        let relative = path
            .strip_prefix(args.tests.join("interpret"))
            .expect("under interpret")
            .display()
            .to_string();
        for (line, split) in splits(&read(&path)) {
            if !split.contains("check.") || split.contains("interpreter.") {
                continue;
            }
            let name = format!("{relative}:{line}");
            if args.filter.as_ref().is_some_and(|f| !name.contains(f)) {
                continue;
            }
            total += 1;
            let outcome = make_cases(&split).and_then(|cases| {
                for (part, case) in cases.iter().enumerate() {
                    let tag = format!("{total}-{part}");
                    let file = scratch.path().join(format!("case{tag}.mlir"));
                    std::fs::write(&file, &case.module).expect("write the case");
                    if let Some(keep) = &args.keep {
                        std::fs::create_dir_all(keep).expect("create --keep");
                        let kept =
                            keep.join(format!("{}-{part}.mlir", name.replace(['/', ':'], "_")));
                        std::fs::write(kept, &case.module).expect("write to --keep");
                    }
                    let outputs = tpuc_run(args, scratch.path(), &file, &format!("{tag}a"))?;
                    compare(case, &outputs)?;
                    if args.twice {
                        let again = tpuc_run(args, scratch.path(), &file, &format!("{tag}b"))
                            .map_err(|e| format!("second run (from the cache): {e}"))?;
                        compare(case, &again)
                            .map_err(|e| format!("second run (from the cache): {e}"))?;
                    }
                }
                Ok(())
            });
            match outcome {
                Ok(()) => matched += 1,
                Err(reason) => {
                    println!("FAIL {name}: {reason}");
                    reasons.push((name, reason));
                }
            }
        }
    }
    let mut out = String::new();
    let _ = writeln!(out, "interpret: {matched} of {total} cases match");
    out
}
