//! `--debug` results: the `[count, value]` index checks the lowering compiled in.

use tpuc_lower::ResultSource;

use crate::error::DriverError;
use crate::tensor::HostTensor;

/// Fails with the node's diagnostic when its check counted an out-of-range index.
pub(crate) fn check(source: &ResultSource, result: &HostTensor<'_>) -> Result<(), DriverError> {
    let ResultSource::IndexCheck {
        node,
        target,
        source_line,
        low,
        high,
    } = source
    else {
        return Ok(());
    };
    let words: Vec<i64> = result
        .bytes
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap_or_default()))
        .collect();
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
        node: node.clone(),
        target: target.clone(),
        at: source_line
            .as_ref()
            .map(|s| format!(" at {s}"))
            .unwrap_or_default(),
        value,
        count,
        low: *low,
        high: *high,
    })
}
