//! `.mlir` file tests. Each file is a module with directives in comments:
//!
//! - `// RUN: <text>`: what to run (a pass pipeline, `verify`, ...), read by the test;
//! - `// CHECK: <line>`: one line of the expected output, in order;
//! - `// ERROR: <line>:<col>: <message>`: one expected diagnostic, in order.
//!
//! [`run_file_tests`] finds every `*.mlir` under a directory, hands each to a closure that
//! produces the output or the diagnostics, and compares them with the file's CHECK or ERROR
//! lines. With `BLESS=1` it rewrites those lines instead, where the first of them was (at the
//! end of a file that has none). The failures of all files are reported together.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::bless::blessing;
use crate::diff::line_diff;

const RUN: &str = "// RUN:";
const CHECK: &str = "// CHECK:";
const ERROR: &str = "// ERROR:";

/// One file as the closure sees it.
pub struct FileTest {
    /// The file's path.
    pub path: PathBuf,
    /// The text after `// RUN:`, trimmed, if the file has such a line.
    pub run: Option<String>,
    /// The file with its CHECK and ERROR lines blanked (so lines and columns stay the file's).
    pub source: String,
}

impl FileTest {
    /// The `// RUN:` text, or an error saying the file needs one.
    pub fn run_line(&self) -> Result<&str, String> {
        self.run
            .as_deref()
            .ok_or_else(|| "no `// RUN: <what to run>` line".to_owned())
    }
}

/// What running a file produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The output, compared with the CHECK lines.
    Output(String),
    /// The diagnostics, compared with the ERROR lines.
    Diagnostics(Vec<Diagnostic>),
}

/// One diagnostic at a 1-based line and column of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    /// `line:col: message`, with any newline of the message written as `\n`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = self.message.trim_end().replace('\n', "\\n");
        write!(f, "{}:{}: {message}", self.line, self.column)
    }
}

/// Runs every `*.mlir` under `dir` (sorted, recursively) through `produce`; returns how many
/// files ran. Panics with the failures of all files, or when there is no file. An `Err` from
/// `produce` is a failure of that file (the test could not run it at all).
#[track_caller]
pub fn run_file_tests(
    dir: impl AsRef<Path>,
    mut produce: impl FnMut(&FileTest) -> Result<Outcome, String>,
) -> usize {
    let dir = dir.as_ref();
    let mut paths = Vec::new();
    find_mlir_files(dir, &mut paths);
    assert!(!paths.is_empty(), "no .mlir file under {}", dir.display());
    let bless = blessing();
    let failures: Vec<String> = paths
        .iter()
        .filter_map(|path| {
            run_one(path, bless, &mut produce).err().map(|error| {
                let name = path.strip_prefix(dir).unwrap_or(path);
                format!("{}: {error}", name.display())
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} file tests failed (BLESS=1 accepts the actual lines):\n\n{}",
        failures.len(),
        paths.len(),
        failures.join("\n\n")
    );
    paths.len()
}

fn find_mlir_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            find_mlir_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "mlir") {
            found.push(path);
        }
    }
}

fn is_directive(line: &str) -> bool {
    line.starts_with(CHECK) || line.starts_with(ERROR)
}

/// Blessing rewrites a file until its lines hold: ERROR lines above the module move it down,
/// and the positions they name with it, so a second pass may be needed.
const BLESS_PASSES: usize = 3;

fn run_one(
    path: &Path,
    bless: bool,
    produce: &mut impl FnMut(&FileTest) -> Result<Outcome, String>,
) -> Result<(), String> {
    if !bless {
        return check_one(path, false, produce).map(drop);
    }
    for _ in 0..BLESS_PASSES {
        if check_one(path, true, produce)? {
            return Ok(());
        }
    }
    Err(format!(
        "its lines still change after {BLESS_PASSES} blessings"
    ))
}

/// Compares one file (true when it held); with `bless`, rewrites it when it did not.
fn check_one(
    path: &Path,
    bless: bool,
    produce: &mut impl FnMut(&FileTest) -> Result<Outcome, String>,
) -> Result<bool, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let test = FileTest {
        path: path.to_owned(),
        run: text
            .lines()
            .find_map(|line| line.strip_prefix(RUN))
            .map(|run| run.trim().to_owned()),
        source: text
            .lines()
            .map(|line| if is_directive(line) { "" } else { line })
            .map(|line| format!("{line}\n"))
            .collect(),
    };
    let expected: Vec<&str> = text.lines().filter(|l| is_directive(l)).collect();
    let actual = directives(&produce(&test)?);
    if expected == actual {
        return Ok(true);
    }
    if bless {
        std::fs::write(path, blessed(&text, &actual)).map_err(|e| e.to_string())?;
        return Ok(false);
    }
    Err(format!(
        "expected lines differ (- expected, + actual):\n{}",
        line_diff(&lines(&expected), &lines(&actual))
    ))
}

/// The CHECK or ERROR lines an outcome should be written as.
fn directives(outcome: &Outcome) -> Vec<String> {
    match outcome {
        Outcome::Output(output) => output
            .lines()
            .map(|line| format!("{CHECK} {line}").trim_end().to_owned())
            .collect(),
        Outcome::Diagnostics(diagnostics) => diagnostics
            .iter()
            .map(|d| format!("{ERROR} {d}").trim_end().to_owned())
            .collect(),
    }
}

fn lines(lines: &[impl AsRef<str>]) -> String {
    lines.iter().map(|l| format!("{}\n", l.as_ref())).collect()
}

/// `text` with its CHECK and ERROR lines replaced by `actual`, where the first of them was.
fn blessed(text: &str, actual: &[String]) -> String {
    let all: Vec<&str> = text.lines().collect();
    let first = all.iter().position(|l| is_directive(l));
    let kept: Vec<&str> = all.iter().copied().filter(|l| !is_directive(l)).collect();
    let at = match first {
        Some(first) => all[..first].iter().filter(|l| !is_directive(l)).count(),
        None => kept.len(),
    };
    let mut out = Vec::with_capacity(kept.len() + actual.len());
    out.extend(kept[..at].iter().map(|l| (*l).to_owned()));
    if first.is_none() {
        while out.last().is_some_and(|l: &String| l.trim().is_empty()) {
            out.pop();
        }
    }
    out.extend(actual.iter().cloned());
    out.extend(kept[at..].iter().map(|l| (*l).to_owned()));
    lines(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blessing_replaces_the_lines_where_they_were() {
        let text = "// RUN: x\n// ERROR: 1:1: old\n// ERROR: 2:2: old\nmodule\n";
        let new = ["// ERROR: 4:1: new".to_owned()];
        assert_eq!(
            blessed(text, &new),
            "// RUN: x\n// ERROR: 4:1: new\nmodule\n"
        );
    }

    #[test]
    fn blessing_appends_to_a_file_without_directives() {
        let text = "// RUN: x\nmodule\n\n";
        let new = ["// CHECK: module".to_owned()];
        assert_eq!(blessed(text, &new), "// RUN: x\nmodule\n// CHECK: module\n");
    }

    #[test]
    fn diagnostics_are_one_line_each() {
        let diagnostic = Diagnostic {
            line: 3,
            column: 7,
            message: "two\nlines\n".to_owned(),
        };
        assert_eq!(
            directives(&Outcome::Diagnostics(vec![diagnostic])),
            ["// ERROR: 3:7: two\\nlines"]
        );
    }
}
