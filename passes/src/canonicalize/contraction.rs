//! Transposed operands of contractions absorbed into their dimension numbers.

use tpuc_ir::{DotDims, OpId, OpKind};

use crate::rewrite::{Pattern, Rewriter};

/// Operand `index` of `op`, when a transpose produces it: its source and permutation.
fn transposed_operand(
    rw: &Rewriter<'_>,
    op: OpId,
    index: usize,
) -> Option<(tpuc_ir::Value, Vec<i64>)> {
    let (_, producer) = rw.producer(rw.function().op(op).operands[index])?;
    match &producer.kind {
        OpKind::Transpose { permutation } => Some((producer.operands[0], permutation.clone())),
        _ => None,
    }
}

fn through(permutation: &[i64], dims: &[i64]) -> Vec<i64> {
    dims.iter().map(|&d| permutation[d as usize]).collect()
}

/// `dot_general(transpose(x), y)` contracts `x` directly when the result keeps its order.
pub(crate) struct TransposeIntoDotGeneral;

impl Pattern for TransposeIntoDotGeneral {
    fn name(&self) -> &'static str {
        "transpose-into-dot-general"
    }

    fn rewrite(&self, rw: &mut Rewriter<'_>, op: OpId) -> bool {
        let OpKind::DotGeneral { dims, precision } = &rw.function().op(op).kind else {
            return false;
        };
        let (dims, precision) = (dims.clone(), precision.clone());
        for side in 0..2 {
            let Some((source, permutation)) = transposed_operand(rw, op, side) else {
                continue;
            };
            let (batching, contracting) = if side == 0 {
                (&dims.lhs_batching, &dims.lhs_contracting)
            } else {
                (&dims.rhs_batching, &dims.rhs_contracting)
            };
            let free: Vec<i64> = (0..permutation.len() as i64)
                .filter(|d| !batching.contains(d) && !contracting.contains(d))
                .collect();
            // Result dimensions follow the operand's free dimensions in order.
            if !through(&permutation, &free).is_sorted() {
                continue;
            }
            let (batching, contracting) = (
                through(&permutation, batching),
                through(&permutation, contracting),
            );
            let new = if side == 0 {
                DotDims {
                    lhs_batching: batching,
                    lhs_contracting: contracting,
                    ..dims.clone()
                }
            } else {
                DotDims {
                    rhs_batching: batching,
                    rhs_contracting: contracting,
                    ..dims.clone()
                }
            };
            rw.set_kind(
                op,
                OpKind::DotGeneral {
                    dims: new,
                    precision,
                },
            );
            rw.set_operand(op, side, source);
            return true;
        }
        false
    }
}

/// `convolution(transpose(x), w)` reads `x` in place through its dimension numbers.
pub(crate) struct TransposeIntoConvolution;

impl Pattern for TransposeIntoConvolution {
    fn name(&self) -> &'static str {
        "transpose-into-convolution"
    }

    fn rewrite(&self, rw: &mut Rewriter<'_>, op: OpId) -> bool {
        let OpKind::Convolution(attrs) = &rw.function().op(op).kind else {
            return false;
        };
        let mut attrs = attrs.clone();
        for side in 0..2 {
            let Some((source, p)) = transposed_operand(rw, op, side) else {
                continue;
            };
            let d = &mut attrs.dims;
            if side == 0 {
                d.input_batch = p[d.input_batch as usize];
                d.input_feature = p[d.input_feature as usize];
                d.input_spatial = through(&p, &d.input_spatial);
            } else {
                d.kernel_input_feature = p[d.kernel_input_feature as usize];
                d.kernel_output_feature = p[d.kernel_output_feature as usize];
                d.kernel_spatial = through(&p, &d.kernel_spatial);
            }
            rw.set_kind(op, OpKind::Convolution(attrs));
            rw.set_operand(op, side, source);
            return true;
        }
        false
    }
}
