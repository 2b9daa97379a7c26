//! File tests: each `tests/**/*.mlir` holds a `// RUN: <pipeline>` line, an input module, and
//! the expected output of the pipeline as `// CHECK: ` lines (the whole pretty-printed module,
//! locations stripped, compared exactly). The verifier runs after every pass.
//! `BLESS=1 cargo test -p tpuc-passes --test filetests` rewrites the CHECK lines.

use std::path::{Path, PathBuf};

use tpuc_ir::print::{LocationStyle, PrintOptions};
use tpuc_passes::{PipelineSpec, RunOptions};

const RUN: &str = "// RUN: ";
const CHECK: &str = "// CHECK:";

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("test directory")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "mlir") {
            out.push(path);
        }
    }
}

fn run_file(path: &Path, bless: bool) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let pipeline = text
        .lines()
        .find_map(|l| l.strip_prefix(RUN))
        .ok_or("no `// RUN: <pipeline>` line")?
        .trim()
        .to_owned();
    let input: String = text
        .lines()
        .filter(|l| !l.starts_with(CHECK))
        .map(|l| format!("{l}\n"))
        .collect();
    let module = tpuc_ir::parse::parse_module(&input).map_err(|e| format!("{e:?}"))?;
    tpuc_ir::verify(&module).map_err(|e| format!("input does not verify: {e}"))?;
    let mut program = tpuc_ir::Program::from_module(module).map_err(|e| e.to_string())?;
    let options = RunOptions {
        verify_each: true,
        ..RunOptions::default()
    };
    PipelineSpec::parse(&pipeline)
        .and_then(|spec| spec.run(&mut program, &options))
        .map_err(|e| format!("{e:?}"))?;
    let module = program.module;
    let printed =
        tpuc_ir::print::pretty(&module, &PrintOptions::with_locations(LocationStyle::Strip));
    let expected: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix(CHECK))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect();
    let actual: Vec<&str> = printed.lines().collect();
    if actual == expected {
        return Ok(());
    }
    if bless {
        let mut blessed = input.trim_end().to_owned();
        blessed.push('\n');
        for line in &actual {
            blessed.push_str(format!("{CHECK} {line}").trim_end());
            blessed.push('\n');
        }
        std::fs::write(path, blessed).map_err(|e| e.to_string())?;
        return Ok(());
    }
    Err(format!(
        "output differs (BLESS=1 to accept)\n--- expected\n{}\n--- actual\n{printed}",
        expected.join("\n")
    ))
}

#[test]
fn file_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut paths = Vec::new();
    files(&root, &mut paths);
    assert!(paths.len() >= 10, "file tests are missing: {paths:?}");
    let bless = std::env::var_os("BLESS").is_some();
    let failures: Vec<String> = paths
        .iter()
        .filter_map(|p| {
            run_file(p, bless)
                .err()
                .map(|e| format!("{}: {e}", p.strip_prefix(&root).unwrap_or(p).display()))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
