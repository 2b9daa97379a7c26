//! Op families. Each module lists its registry entries in `OPS`; [`FAMILIES`] collects them.

mod attention;
mod cast;
mod collective;
mod control;
mod conv;
mod creation;
mod elementwise;
mod indexing;
mod matmul;
mod noop;
mod norm;
mod pool;
mod reduction;
mod resize;
mod shape;
mod sort;
mod symbolic;
#[cfg(test)]
mod tests;

use crate::env::Val;
use crate::error::OpResult;
use crate::registry::OpDef;

/// Every family's entries.
pub(crate) const FAMILIES: &[&[OpDef]] = &[
    attention::OPS,
    cast::OPS,
    collective::OPS,
    control::OPS,
    conv::OPS,
    creation::OPS,
    elementwise::OPS,
    indexing::OPS,
    matmul::OPS,
    noop::OPS,
    norm::OPS,
    pool::OPS,
    reduction::OPS,
    resize::OPS,
    shape::OPS,
    sort::OPS,
    symbolic::OPS,
];

/// The single tensor result of an op.
pub(crate) fn one(value: tpuc_ir::Value) -> OpResult<Vec<Val>> {
    Ok(vec![Val::Tensor(value)])
}
