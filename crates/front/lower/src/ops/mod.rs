//! Op families. Each module lists its registry entries in `OPS`; [`FAMILIES`] collects them.

mod adaptive;
mod affine;
mod attention;
mod backward;
mod batch_stats;
mod cast;
mod collective;
mod complex;
mod control;
mod conv;
mod creation;
mod distance;
mod einsum;
mod elementwise;
mod embedding_bag;
mod fft;
mod fft_functions;
mod grid;
mod grouped;
mod indexing;
mod inplace;
mod inverse_trig;
mod loss;
mod masked_scatter;
mod matmul;
mod nonzero;
mod noop;
mod norm;
mod norm_backward;
mod pad;
mod pool;
mod quantized;
mod reduction;
mod resize;
mod rnn;
mod roi_align;
mod scatter_reduce;
mod search;
mod sequences;
mod shape;
mod sort;
mod subclass;
mod symbolic;
mod ternary;
#[cfg(test)]
mod tests;
mod vector_norm;
mod views;
mod windows;

use crate::env::Val;
use crate::error::OpResult;
use crate::op_def::OpDef;

pub(crate) use inplace::{lower_in_place, write_back};

/// Every family's entries.
pub(crate) const FAMILIES: &[&[OpDef]] = &[
    adaptive::OPS,
    affine::OPS,
    attention::OPS,
    backward::OPS,
    batch_stats::OPS,
    cast::OPS,
    collective::OPS,
    complex::OPS,
    control::OPS,
    conv::OPS,
    creation::OPS,
    distance::OPS,
    einsum::OPS,
    embedding_bag::OPS,
    elementwise::OPS,
    fft::OPS,
    fft_functions::OPS,
    grid::OPS,
    grouped::OPS,
    indexing::OPS,
    inverse_trig::OPS,
    loss::OPS,
    masked_scatter::OPS,
    matmul::OPS,
    nonzero::OPS,
    noop::OPS,
    norm::OPS,
    norm_backward::OPS,
    pad::OPS,
    pool::OPS,
    quantized::OPS,
    reduction::OPS,
    resize::OPS,
    rnn::OPS,
    roi_align::OPS,
    scatter_reduce::OPS,
    search::OPS,
    sequences::OPS,
    shape::OPS,
    sort::OPS,
    subclass::OPS,
    symbolic::OPS,
    ternary::OPS,
    vector_norm::OPS,
    views::OPS,
    windows::OPS,
];

/// The single tensor result of an op.
pub(crate) fn one(value: tpuc_ir::Value) -> OpResult<Vec<Val>> {
    Ok(vec![Val::Tensor(value)])
}
