//! Parser and verifier diagnostics as `.mlir` file tests (`tests/filetests/**`): each file is a
//! module and its expected `// ERROR: line:col: message` lines, or, for a valid module, its
//! pretty-printed form as `// CHECK:` lines. `// RUN: parse` stops after the parser;
//! `// RUN: verify` also verifies; `// RUN: legalize` verifies, applies the rewrites for XLA
//! (`tpuc_ir::legalize`) and verifies again. `BLESS=1 cargo test -p tpuc-ir --test filetests` rewrites
//! the expected lines (see `docs/testing.md`).
//!
//! A parse error is at its own line and column; a verifier error at the start of its op's text
//! (`0:0` when it is at no op: a signature, a module rule).

use std::path::Path;

use tpuc_expect::filetest::{Diagnostic, FileTest, Outcome, run_file_tests};
use tpuc_ir::parse::{OpSpans, parse_module_with_spans};
use tpuc_ir::print::{LocationStyle, PrintOptions};
use tpuc_ir::verify::Site;
use tpuc_ir::{IrError, VerifyError};

fn run(test: &FileTest) -> Result<Outcome, String> {
    let (verify, legalize) = match test.run_line()? {
        "parse" => (false, false),
        "verify" => (true, false),
        "legalize" => (true, true),
        other => {
            return Err(format!(
                "unknown RUN `{other}`: use `parse`, `verify` or `legalize`"
            ));
        }
    };
    let (mut module, spans) = match parse_module_with_spans(&test.source) {
        Ok(parsed) => parsed,
        Err(error) => {
            return Ok(Outcome::Diagnostics(vec![Diagnostic {
                line: error.line,
                column: error.column,
                message: error.message,
            }]));
        }
    };
    if verify {
        match tpuc_ir::verify(&module) {
            Ok(()) => {}
            Err(IrError::Verify(errors)) => {
                let diagnostics = errors
                    .errors()
                    .iter()
                    .map(|error| diagnostic(error, &spans, &test.source))
                    .collect();
                return Ok(Outcome::Diagnostics(diagnostics));
            }
            Err(other) => return Err(format!("the verifier failed otherwise: {other}")),
        }
    }
    if legalize {
        tpuc_ir::legalize::for_xla(&mut module).map_err(|e| format!("legalize: {e}"))?;
        tpuc_ir::verify(&module).map_err(|e| format!("the legalized module: {e}"))?;
    }
    let options = PrintOptions::with_locations(LocationStyle::Strip);
    Ok(Outcome::Output(tpuc_ir::print::pretty(&module, &options)))
}

/// A verifier error at the line and column where its op's text starts.
fn diagnostic(error: &VerifyError, spans: &OpSpans, source: &str) -> Diagnostic {
    let offset = match (&error.function, &error.site) {
        (Some(function), Site::Op(op)) => spans.get(function, op.id).map(|span| span.offset()),
        _ => None,
    };
    let (line, column) = offset.map_or((0, 0), |offset| line_and_column(source, offset));
    let message = match &error.site {
        Site::Part(part) => format!("{part}: {}", error.message),
        Site::Module | Site::Op(_) => error.message.clone(),
    };
    Diagnostic {
        line,
        column,
        message,
    }
}

/// 1-based line and column (in characters) of byte `offset`.
fn line_and_column(source: &str, offset: usize) -> (usize, usize) {
    let before = &source[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

#[test]
fn parser_and_verifier_file_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
    let count = run_file_tests(&root, run);
    assert!(count >= 20, "only {count} file tests found");
}
