//! Printing the error that stopped a command: a miette diagnostic on stderr, or with
//! `--format json` one JSON object on stdout; with `-v`, the call chain of the nodes involved.

use std::error::Error;

use miette::{Diagnostic, Report};
use serde_json::{Value, json};
use tpuc_driver::{DriverError, LowerError, SourceLine};

/// Prints `report` the way the command was asked to print.
pub fn print(report: &Report, json: bool, verbose: bool) {
    if json {
        let diagnostic: &(dyn Diagnostic + 'static) = report.as_ref();
        let value = json!({ "error": to_json(diagnostic, lower_error(diagnostic)) });
        println!(
            "{}",
            serde_json::to_string_pretty(&value).unwrap_or_else(|_| value.to_string())
        );
        return;
    }
    eprintln!("{report:?}");
    if verbose {
        for (node, source) in lower_error(report.as_ref()).map(sites).unwrap_or_default() {
            if source.chain.is_empty() {
                continue;
            }
            eprintln!("call chain of node `{node}` (outermost first):");
            for frame in &source.chain {
                eprintln!("  {frame}");
            }
        }
    }
}

/// `{code, message, node, location, help, causes, related}` of a diagnostic; `lower` is the
/// lowering error it is, if it is one.
fn to_json(diagnostic: &dyn Diagnostic, lower: Option<&LowerError>) -> Value {
    let site = lower.and_then(LowerError::site);
    let location = match site {
        Some((_, source)) => source.map(source_json),
        None => label_location(diagnostic),
    };
    let mut causes = Vec::new();
    let mut cause = diagnostic.source();
    while let Some(error) = cause {
        causes.push(error.to_string());
        cause = error.source();
    }
    let related: Vec<Value> = match lower {
        Some(LowerError::Many { errors }) => errors.iter().map(|e| to_json(e, Some(e))).collect(),
        _ => diagnostic
            .related()
            .map(|related| related.map(|r| to_json(r, None)).collect())
            .unwrap_or_default(),
    };
    let mut value = json!({
        "code": diagnostic.code().map(|code| code.to_string()),
        "message": diagnostic.to_string(),
        "node": site.map(|(node, _)| node),
        "location": location,
        "help": diagnostic.help().map(|help| help.to_string()),
    });
    if let Some(LowerError::UnsupportedOps { target, nodes, .. }) = lower {
        value["target"] = json!(target);
        value["nodes"] = json!(nodes);
        value["count"] = json!(nodes.len());
    }
    if !causes.is_empty() {
        value["causes"] = json!(causes);
    }
    if !related.is_empty() {
        value["related"] = json!(related);
    }
    value
}

fn source_json(source: &SourceLine) -> Value {
    json!({
        "file": source.file,
        "line": source.line,
        "code": source.code,
        "chain": source.chain,
    })
}

/// The file, line and column of a diagnostic's first label (an MLIR parse error's position).
fn label_location(diagnostic: &dyn Diagnostic) -> Option<Value> {
    let source = diagnostic.source_code()?;
    let label = diagnostic.labels()?.next()?;
    let contents = source.read_span(label.inner(), 0, 0).ok()?;
    Some(json!({
        "file": contents.name(),
        "line": contents.line() + 1,
        "column": contents.column() + 1,
    }))
}

/// The lowering error a diagnostic is, directly or through the driver.
fn lower_error<'a>(diagnostic: &'a (dyn Diagnostic + 'static)) -> Option<&'a LowerError> {
    let error: &(dyn Error + 'static) = diagnostic;
    if let Some(lower) = error.downcast_ref::<LowerError>() {
        return Some(lower);
    }
    match error.downcast_ref::<DriverError>()? {
        DriverError::Lower(lower) => Some(lower),
        _ => None,
    }
}

/// Every node a lowering error (and those it groups) is about, with its source.
fn sites(error: &LowerError) -> Vec<(String, &SourceLine)> {
    match error {
        LowerError::Many { errors } => errors.iter().flat_map(sites).collect(),
        _ => match error.site() {
            Some((node, Some(source))) => vec![(node.to_owned(), source)],
            _ => Vec::new(),
        },
    }
}
