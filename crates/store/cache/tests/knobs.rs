//! Every environment variable the workspace's code reads must be classified in the knob
//! registry, hashed or deliberately ignored: an unclassified one is how stale hits begin.

use std::fs;
use std::path::{Path, PathBuf};

use tpuc_cache::knobs;

/// Calls whose first string argument names an environment variable.
const READERS: &[&str] = &[
    "var(",
    "var_os(",
    "env(",
    "non_empty_env(",
    "set_var(",
    "remove_var(",
    "env_remove(",
];
/// Prefixes of variables that reach XLA, libtpu or tpuc however they are read.
const PREFIXES: &[&str] = &["XLA_", "TPU_", "LIBTPU_", "TPUC_"];
/// The registry itself, whose tests name unregistered variables on purpose.
const REGISTRY_FILE: &str = "crates/store/cache/src/knobs.rs";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" && name != "testdata" {
                rust_files(&path, found);
            }
        } else if name.ends_with(".rs") {
            found.push(path);
        }
    }
}

/// `(variable, file:line)` for every variable named in `text`.
fn variables(text: &str, file: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(offset) = text[at..].find('"') {
        let start = at + offset + 1;
        let end = text[start..]
            .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
            .map_or(text.len(), |n| start + n);
        at = start;
        if end == start || bytes.get(end) != Some(&b'"') {
            continue;
        }
        let name = &text[start..end];
        let before = &text[start.saturating_sub(20)..start - 1];
        let read = READERS.iter().any(|call| before.ends_with(call)) && !before.ends_with("env!(");
        let watched = PREFIXES.iter().any(|prefix| name.starts_with(prefix));
        if (read || watched) && !name.ends_with('_') && !name.starts_with("CARGO_") {
            let line = text[..start].matches('\n').count() + 1;
            found.push((name.to_owned(), format!("{file}:{line}")));
        }
        at = end + 1;
    }
    found
}

#[test]
fn every_variable_read_in_the_workspace_is_classified() {
    let root = workspace();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    assert!(
        files.len() > 20,
        "found only {} Rust files under {}",
        files.len(),
        root.display()
    );
    let mut unclassified = Vec::new();
    let mut seen = 0;
    for path in files {
        let relative = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if relative == REGISTRY_FILE {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        for (name, place) in variables(&text, &relative) {
            seen += 1;
            if knobs::find(&name).is_none() {
                unclassified.push(format!("{name} ({place})"));
            }
        }
    }
    assert!(
        seen > 5,
        "the scan found only {seen} variable uses: is it still working?"
    );
    assert!(
        unclassified.is_empty(),
        "classify these in crates/store/cache/src/knobs.rs (hashed, or ignored with a reason):\n  {}",
        unclassified.join("\n  ")
    );
}

#[test]
fn the_scanner_finds_reads_and_watched_names() {
    let text = "let a = env::var(\"XLA_FLAGS\");\nlet b = std::env::var_os(\"HOME\");\n\
                const L: &str = \"LIBTPU_INIT_ARGS\";\nlet c = env!(\"CARGO_PKG_VERSION\");\n\
                let d = \"NOT_AN_ENV\";";
    let names: Vec<String> = variables(text, "x.rs")
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(names, ["XLA_FLAGS", "HOME", "LIBTPU_INIT_ARGS"]);
}
