//! Ops that map each result element to the same position of their operands: elementwise ops,
//! broadcasts, batch normalisation.

use super::Shapes;
use crate::sharding::rule::{FactorKind, OpRule};

/// `([i, j], [i, j]) -> ([i, j])`; rank-0 operands (a scalar `clamp` bound) carry nothing.
pub fn elementwise(shapes: &Shapes) -> OpRule {
    let mut rule = shapes.empty_rule();
    let Some(shape) = shapes.results.first().or(shapes.operands.first()) else {
        return rule;
    };
    for (dim, &size) in shape.iter().enumerate() {
        let factor = rule.factor(size, FactorKind::PassThrough);
        for (operand, operand_shape) in shapes.operands.iter().enumerate() {
            if operand_shape.len() == shape.len() {
                rule.on_operand(operand, dim, factor);
            }
        }
        for (result, result_shape) in shapes.results.iter().enumerate() {
            if result_shape.len() == shape.len() {
                rule.on_result(result, dim, factor);
            }
        }
    }
    rule
}

/// A bitcast between element types of one width is elementwise; otherwise the shapes differ
/// and there is no rule.
pub fn bitcast(shapes: &Shapes) -> Option<OpRule> {
    (shapes.operands.first() == shapes.results.first()).then(|| elementwise(shapes))
}

/// Operand `i` and result `i` share factors (`sharding_constraint`, `optimization_barrier`).
pub fn pairwise(shapes: &Shapes) -> OpRule {
    let mut rule = shapes.empty_rule();
    for (index, shape) in shapes.results.iter().enumerate() {
        for (dim, &size) in shape.iter().enumerate() {
            let factor = rule.factor(size, FactorKind::PassThrough);
            rule.on_operand(index, dim, factor);
            rule.on_result(index, dim, factor);
        }
    }
    rule
}

/// Every result dimension is a factor; operand dimension `i` carries the factor of result
/// dimension `dims[i]` unless it is a size-1 dimension being expanded.
pub fn broadcast(shapes: &Shapes, dims: &[i64]) -> OpRule {
    let mut rule = shapes.empty_rule();
    let factors: Vec<usize> = shapes.results[0]
        .iter()
        .enumerate()
        .map(|(dim, &size)| {
            let factor = rule.factor(size, FactorKind::PassThrough);
            rule.on_result(0, dim, factor);
            factor
        })
        .collect();
    for (operand_dim, &result_dim) in dims.iter().enumerate() {
        let result_dim = result_dim as usize;
        if shapes.operands[0][operand_dim] == shapes.results[0][result_dim] {
            rule.on_operand(0, operand_dim, factors[result_dim]);
        }
    }
    rule
}

/// The operand and the outputs of its shape share every factor; the per-feature operands
/// (scale, offset, mean, variance) and outputs carry the feature factor.
pub fn batch_norm(shapes: &Shapes, feature_index: i64) -> OpRule {
    let mut rule = shapes.empty_rule();
    let shape = &shapes.operands[0];
    let feature = feature_index as usize;
    for (dim, &size) in shape.iter().enumerate() {
        let factor = rule.factor(size, FactorKind::PassThrough);
        for (index, operand) in shapes.operands.iter().enumerate() {
            if operand.len() == shape.len() {
                rule.on_operand(index, dim, factor);
            } else if dim == feature && operand.len() == 1 {
                rule.on_operand(index, 0, factor);
            }
        }
        for (index, result) in shapes.results.iter().enumerate() {
            if result.len() == shape.len() {
                rule.on_result(index, dim, factor);
            } else if dim == feature && result.len() == 1 {
                rule.on_result(index, 0, factor);
            }
        }
    }
    rule
}
