//! Op and attribute names are written once in `dialects/src` (in the op table and
//! `op/attr_name.rs`); everything else refers to them. This test reads the string literals of
//! every source file and fails on a name written twice.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A string literal's text and where it starts (`file:line`).
struct Literal {
    text: String,
    at: String,
}

/// The string literals of Rust source `src`, outside comments. Escapes are kept as written,
/// which is enough for comparing against plain names.
fn string_literals(src: &str, file: &str) -> Vec<Literal> {
    let bytes = src.as_bytes();
    let mut literals = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let count_lines =
        |from: usize, to: usize| bytes[from..to].iter().filter(|&&b| b == b'\n').count();
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                line += 1;
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                let start = i;
                while i < bytes.len() {
                    if bytes[i..].starts_with(b"/*") {
                        depth += 1;
                        i += 2;
                    } else if bytes[i..].starts_with(b"*/") {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                line += count_lines(start, i);
            }
            b'r' if matches!(bytes.get(i + 1), Some(b'"' | b'#'))
                && (i == 0 || !is_ident_byte(bytes[i - 1])) =>
            {
                let hashes = bytes[i + 1..].iter().take_while(|&&b| b == b'#').count();
                let open = i + 1 + hashes;
                if bytes.get(open) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                let body = open + 1;
                let end = (body..bytes.len())
                    .find(|&j| bytes[j..].starts_with(&close))
                    .unwrap_or(bytes.len());
                literals.push(Literal {
                    text: src[body..end].to_string(),
                    at: format!("{file}:{line}"),
                });
                line += count_lines(i, end);
                i = end + close.len();
            }
            b'"' => {
                let body = i + 1;
                let mut j = body;
                while j < bytes.len() && bytes[j] != b'"' {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                literals.push(Literal {
                    text: src[body..j.min(bytes.len())].to_string(),
                    at: format!("{file}:{line}"),
                });
                line += count_lines(i, j.min(bytes.len()));
                i = j + 1;
            }
            b'\'' => {
                // A char literal (`'"'`, `'\''`) or a lifetime (`'a`).
                if bytes.get(i + 1) == Some(&b'\\') {
                    i += 2;
                    while i < bytes.len() && bytes[i] != b'\'' {
                        i += 1;
                    }
                    i += 1;
                } else if bytes.get(i + 2) == Some(&b'\'') {
                    i += 3;
                } else {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    literals
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("dialects/src is readable")
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

fn source_literals() -> Vec<Literal> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    files
        .iter()
        .flat_map(|path| {
            let src = std::fs::read_to_string(path).expect("a source file is UTF-8");
            let name = path
                .strip_prefix(root)
                .unwrap_or(path)
                .display()
                .to_string();
            string_literals(&src, &name)
        })
        .collect()
}

fn is_op_name(text: &str) -> bool {
    let Some((dialect, op)) = text.split_once('.') else {
        return false;
    };
    matches!(dialect, "stablehlo" | "chlo" | "func" | "sdy")
        && !op.is_empty()
        && op
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// Where each literal that `is_name` picks appears.
fn occurrences(is_name: impl Fn(&str) -> bool) -> BTreeMap<String, Vec<String>> {
    let mut found: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for literal in source_literals() {
        if is_name(&literal.text) {
            found.entry(literal.text).or_default().push(literal.at);
        }
    }
    found
}

fn repeated(found: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    found
        .iter()
        .filter(|(_, places)| places.len() > 1)
        .map(|(name, places)| format!("\"{name}\" at {}", places.join(", ")))
        .collect()
}

#[test]
fn every_op_name_is_written_once() {
    let found = occurrences(is_op_name);
    let repeated = repeated(&found);
    assert!(
        repeated.is_empty(),
        "op names written more than once:\n{}",
        repeated.join("\n")
    );
    let unwritten: Vec<&str> = tpuc_ir::OpKind::names()
        .filter(|name| !found.contains_key(*name))
        .collect();
    assert!(
        unwritten.is_empty(),
        "op names the scan did not find: {unwritten:?}"
    );
}

#[test]
fn every_attribute_name_is_written_once() {
    let mut found = occurrences(|text| tpuc_ir::attr_name::ALL.contains(&text));
    // `index` is also MLIR's builtin type, named once in the parser (`INDEX_TYPE`).
    if let Some(places) = found.get_mut("index") {
        places.retain(|at| !at.starts_with("src/parse/types.rs"));
    }
    let repeated = repeated(&found);
    assert!(
        repeated.is_empty(),
        "attribute names written more than once:\n{}",
        repeated.join("\n")
    );
    assert_eq!(found.len(), tpuc_ir::attr_name::ALL.len());
}

#[test]
fn the_scan_reads_literals_and_skips_comments() {
    let src = r####"
        // "stablehlo.add" in a comment
        /* "stablehlo.add" /* nested */ "stablehlo.add" */
        let quote = '"';
        let escaped = "a \"stablehlo.add\" b";
        let raw = r#"stablehlo.add"#;
        fn f<'a>(x: &'a str) -> &'a str { "stablehlo.add" }
    "####;
    let texts: Vec<(String, String)> = string_literals(src, "x.rs")
        .into_iter()
        .map(|l| (l.text, l.at))
        .collect();
    let expected = [
        (r#"a \"stablehlo.add\" b"#, "x.rs:5"),
        ("stablehlo.add", "x.rs:6"),
        ("stablehlo.add", "x.rs:7"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(t, at)| (t.to_string(), at.to_string()))
        .collect();
    assert_eq!(texts, expected);
}
