//! File tests: each `tests/**/*.mlir` holds a `// RUN: <pipeline>` line, an input module, and
//! the expected output of the pipeline as `// CHECK: ` lines (the whole pretty-printed module,
//! locations stripped, compared exactly). The verifier runs after every pass.
//! `BLESS=1 cargo test -p tpuc-passes --test filetests` rewrites the CHECK lines (see
//! `docs/testing.md`).

use std::path::Path;

use tpuc_expect::filetest::{FileTest, Outcome, run_file_tests};
use tpuc_ir::print::{LocationStyle, PrintOptions};
use tpuc_passes::{PipelineSpec, RunOptions};

fn run_pipeline(test: &FileTest) -> Result<Outcome, String> {
    let pipeline = test.run_line()?.to_owned();
    let module = tpuc_ir::parse::parse_module(&test.source).map_err(|e| format!("{e:?}"))?;
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
    Ok(Outcome::Output(tpuc_ir::print::pretty(
        &module,
        &PrintOptions::with_locations(LocationStyle::Strip),
    )))
}

#[test]
fn file_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let count = run_file_tests(&root, run_pipeline);
    assert!(count >= 10, "file tests are missing: only {count} found");
}
