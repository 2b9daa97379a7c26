//! Indexed reads and writes: `gather` and `scatter`. The index batch dimensions pass through
//! between the indices and the result (or the updates); an operand dimension taken whole
//! passes through to its window dimension; indexed operand dimensions need replication.

use tpuc_ir::{GatherDims, ScatterDims};

use super::Shapes;
use crate::sharding::rule::{FactorKind, OpRule};

/// `gather(operand, start_indices)`: an embedding lookup `[V, H]` by `[B, S]` indices gives
/// `[B, S, H]`: `B`, `S` shared with the indices, `H` with the operand, `V` replicated.
pub fn gather(shapes: &Shapes, dims: &GatherDims, slice_sizes: &[i64]) -> OpRule {
    let mut rule = shapes.empty_rule();
    let (operand, indices, result) = (&shapes.operands[0], &shapes.operands[1], &shapes.results[0]);
    let index_vector_dim = dims.index_vector_dim as usize;
    let batch_dims: Vec<usize> = (0..indices.len())
        .filter(|&d| d != index_vector_dim)
        .collect();
    let result_batch: Vec<usize> = (0..result.len())
        .filter(|d| !dims.offset_dims.contains(&(*d as i64)))
        .collect();
    for (&index_dim, &result_dim) in batch_dims.iter().zip(&result_batch) {
        let factor = rule.factor(result[result_dim], FactorKind::PassThrough);
        rule.on_operand(1, index_dim, factor);
        rule.on_result(0, result_dim, factor);
    }
    let window_dims = (0..operand.len()).filter(|d| {
        let d = *d as i64;
        !dims.collapsed_slice_dims.contains(&d) && !dims.operand_batching_dims.contains(&d)
    });
    for (operand_dim, &result_dim) in window_dims.zip(&dims.offset_dims) {
        let whole = slice_sizes[operand_dim] as u64 == operand[operand_dim];
        let kind = if whole && !dims.start_index_map.contains(&(operand_dim as i64)) {
            FactorKind::PassThrough
        } else {
            FactorKind::NeedReplication
        };
        let factor = rule.factor(result[result_dim as usize], kind);
        if kind == FactorKind::PassThrough {
            rule.on_operand(0, operand_dim, factor);
        }
        rule.on_result(0, result_dim as usize, factor);
    }
    rule
}

/// `scatter(inputs..., indices, updates...)`: results are shaped like the inputs; update
/// window dimensions covering an input dimension whole pass through to it; the update scatter
/// dimensions pass through to the index batch dimensions.
pub fn scatter(shapes: &Shapes, dims: &ScatterDims) -> OpRule {
    let mut rule = shapes.empty_rule();
    let count = shapes.results.len();
    let (input, indices, update) = (
        &shapes.operands[0],
        &shapes.operands[count],
        &shapes.operands[count + 1],
    );
    let index_vector_dim = dims.index_vector_dim as usize;
    let index_batch: Vec<usize> = (0..indices.len())
        .filter(|&d| d != index_vector_dim)
        .collect();
    let update_scatter: Vec<usize> = (0..update.len())
        .filter(|d| !dims.update_window_dims.contains(&(*d as i64)))
        .collect();
    for (&index_dim, &update_dim) in index_batch.iter().zip(&update_scatter) {
        let factor = rule.factor(update[update_dim], FactorKind::PassThrough);
        rule.on_operand(count, index_dim, factor);
        for u in 0..count {
            rule.on_operand(count + 1 + u, update_dim, factor);
        }
    }
    let window_dims = (0..input.len()).filter(|d| {
        let d = *d as i64;
        !dims.inserted_window_dims.contains(&d) && !dims.input_batching_dims.contains(&d)
    });
    for (input_dim, &update_dim) in window_dims.zip(&dims.update_window_dims) {
        let update_dim = update_dim as usize;
        let whole = update[update_dim] == input[input_dim]
            && !dims
                .scatter_dims_to_operand_dims
                .contains(&(input_dim as i64));
        let kind = if whole {
            FactorKind::PassThrough
        } else {
            FactorKind::NeedReplication
        };
        let factor = rule.factor(input[input_dim], kind);
        for i in 0..count {
            rule.on_operand(i, input_dim, factor);
            rule.on_result(i, input_dim, factor);
            if whole {
                rule.on_operand(count + 1 + i, update_dim, factor);
            }
        }
    }
    rule
}
