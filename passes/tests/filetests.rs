//! File tests: each `tests/**/*.mlir` holds a `// RUN: <pipeline>` line, an input module, and
//! the expected output of the pipeline as `// CHECK: ` lines (the whole pretty-printed module,
//! locations stripped, compared exactly). The verifier runs after every pass.
//! `BLESS=1 cargo test -p tpuc-passes --test filetests` rewrites the CHECK lines (see
//! `docs/testing.md`).

use std::path::Path;

use tpuc_expect::filetest::{FileTest, Outcome, run_file_tests};
use tpuc_ir::print::{LocationStyle, PrintOptions};
use tpuc_passes::{PassOptions, RunOptions};

fn run_pipeline(test: &FileTest) -> Result<Outcome, String> {
    let pipeline = test.run_line()?.to_owned();
    let mut module = tpuc_ir::parse::parse_module(&test.source).map_err(|e| format!("{e:?}"))?;
    tpuc_ir::verify(&module).map_err(|e| format!("input does not verify: {e}"))?;
    let options = PassOptions {
        pipeline,
        run: RunOptions {
            verify_each: true,
            ..RunOptions::default()
        },
        kernels: None,
    };
    options.run(&mut module).map_err(|e| format!("{e:?}"))?;
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
