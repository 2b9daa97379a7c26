//! `--debug` results: the `[count, value]` index checks and (`--debug=nan`) the
//! `[NaNs, +infs, -infs, first]` NaN/Inf checks the lowering compiled in.

use tpuc_ir::{CheckKind, ResultRole};

use crate::error::{DriverError, NonFinite};
use crate::tensor::HostTensor;

/// The multi-index of row-major position `flat` in `shape`.
fn position(flat: i64, shape: &[i64]) -> Vec<usize> {
    let shape: Vec<usize> = shape.iter().map(|&d| d.max(0) as usize).collect();
    crate::compare::position(flat.max(0) as usize, &shape)
}

/// Fails with the node's diagnostic when its check counted an out-of-range index or a
/// non-finite value.
pub(crate) fn check(role: &ResultRole, result: &HostTensor<'_>) -> Result<(), DriverError> {
    let words: Vec<i64> = result
        .bytes
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap_or_default()))
        .collect();
    let ResultRole::Check {
        kind,
        node,
        target,
        source_line,
    } = role
    else {
        return Ok(());
    };
    match kind {
        CheckKind::Index { low, high } => index(node, target, source_line, (*low, *high), &words),
        CheckKind::NonFinite { output, shape } => {
            non_finite(node, target, source_line, *output, shape, &words)
        }
    }
}

fn at(source_line: &Option<String>) -> String {
    source_line
        .as_ref()
        .map(|s| format!(" at {s}"))
        .unwrap_or_default()
}

fn index(
    node: &str,
    target: &str,
    source_line: &Option<String>,
    (low, high): (i64, i64),
    words: &[i64],
) -> Result<(), DriverError> {
    let [count, value] = words[..] else {
        return Err(DriverError::Unsupported(format!(
            "the index check of node `{node}` returned {} values, not 2",
            words.len()
        )));
    };
    if count == 0 {
        return Ok(());
    }
    Err(DriverError::IndexOutOfRange {
        node: node.to_owned(),
        target: target.to_owned(),
        at: at(source_line),
        value,
        count,
        low,
        high,
    })
}

fn non_finite(
    node: &str,
    target: &str,
    source_line: &Option<String>,
    output: usize,
    shape: &[i64],
    words: &[i64],
) -> Result<(), DriverError> {
    let [nans, pos, neg, first] = words[..] else {
        return Err(DriverError::Unsupported(format!(
            "the NaN check of node `{node}` returned {} values, not 4",
            words.len()
        )));
    };
    if nans + pos + neg == 0 {
        return Ok(());
    }
    let value = if nans > 0 {
        "NaN"
    } else if pos > 0 {
        "inf"
    } else {
        "-inf"
    };
    Err(DriverError::NonFinite(Box::new(NonFinite {
        node: node.to_owned(),
        target: target.to_owned(),
        at: at(source_line),
        value,
        output,
        position: format!("{:?}", position(first, shape)),
        shape: format!("{shape:?}"),
        nans,
        pos,
        neg,
    })))
}
