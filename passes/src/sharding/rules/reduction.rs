//! Reductions and ops along a dimension: `reduce`, `reduce_window`, `select_and_scatter`,
//! `sort`, `fft`.

use tpuc_ir::WindowAttrs;

use super::Shapes;
use crate::sharding::rule::{FactorKind, OpRule};

/// `reduce(inputs..., inits...)` over `dimensions`: `([i, j, k], []) -> ([i, k])` with `j` a
/// reduction factor shared by every input.
pub fn reduce(shapes: &Shapes, dimensions: &[i64]) -> OpRule {
    let mut rule = shapes.empty_rule();
    let inputs = shapes.results.len();
    let mut result_dim = 0;
    for (dim, &size) in shapes.operands[0].iter().enumerate() {
        let reduced = dimensions.contains(&(dim as i64));
        let kind = if reduced {
            FactorKind::Reduction
        } else {
            FactorKind::PassThrough
        };
        let factor = rule.factor(size, kind);
        for input in 0..inputs {
            rule.on_operand(input, dim, factor);
        }
        if !reduced {
            for result in 0..inputs {
                rule.on_result(result, result_dim, factor);
            }
            result_dim += 1;
        }
    }
    rule
}

/// Dimensions with a window (or stride, dilation, padding) need replication; the others pass
/// through every input and result.
pub fn reduce_window(shapes: &Shapes, attrs: &WindowAttrs) -> OpRule {
    let windowed = |dim: usize| {
        let at = |values: &[i64]| values.get(dim).copied().unwrap_or(1);
        at(&attrs.window_dimensions) != 1
            || at(&attrs.window_strides) != 1
            || at(&attrs.base_dilations) != 1
            || at(&attrs.window_dilations) != 1
            || attrs.padding.get(dim).is_some_and(|&p| p != (0, 0))
    };
    let mut rule = shapes.empty_rule();
    let inputs = shapes.results.len();
    for (dim, &size) in shapes.results[0].iter().enumerate() {
        let kind = if windowed(dim) {
            FactorKind::NeedReplication
        } else {
            FactorKind::PassThrough
        };
        let factor = rule.factor(size, kind);
        for index in 0..inputs {
            if kind == FactorKind::PassThrough {
                rule.on_operand(index, dim, factor);
            }
            rule.on_result(index, dim, factor);
        }
    }
    rule
}

/// Operand, source and result: dimensions of equal size in all three pass through; the
/// windowed ones need replication.
pub fn select_and_scatter(shapes: &Shapes) -> OpRule {
    let mut rule = shapes.empty_rule();
    let (operand, source) = (&shapes.operands[0], &shapes.operands[1]);
    for (dim, &size) in operand.iter().enumerate() {
        let kind = if source[dim] == size {
            FactorKind::PassThrough
        } else {
            FactorKind::NeedReplication
        };
        let factor = rule.factor(size, kind);
        rule.on_operand(0, dim, factor);
        if kind == FactorKind::PassThrough {
            rule.on_operand(1, dim, factor);
        }
        rule.on_result(0, dim, factor);
    }
    rule
}

/// The sorted dimension needs replication; the others pass through every operand and result.
pub fn sort(shapes: &Shapes, dimension: i64) -> OpRule {
    let rank = shapes.operands[0].len() as i64;
    let sorted = if dimension < 0 {
        dimension + rank
    } else {
        dimension
    };
    let (operands, results) = (0..shapes.operands.len(), 0..shapes.results.len());
    shapes.per_dimension(&shapes.operands[0], operands, results, |dim| {
        dim as i64 == sorted
    })
}

/// `fft` of the last `transformed` dimensions: each of them needs the whole dimension on every
/// device (the operand's and the result's apart, since RFFT and IRFFT change the last one's
/// size); the leading (batch) dimensions pass through.
pub fn fft(shapes: &Shapes, transformed: usize) -> OpRule {
    let mut rule = shapes.empty_rule();
    let (operand, result) = (&shapes.operands[0], &shapes.results[0]);
    let batch = operand.len().saturating_sub(transformed);
    for (dim, &size) in operand.iter().enumerate() {
        if dim < batch {
            let factor = rule.factor(size, FactorKind::PassThrough);
            rule.on_operand(0, dim, factor);
            rule.on_result(0, dim, factor);
        } else {
            let factor = rule.factor(size, FactorKind::NeedReplication);
            rule.on_operand(0, dim, factor);
            let factor = if result[dim] == size {
                factor
            } else {
                rule.factor(result[dim], FactorKind::NeedReplication)
            };
            rule.on_result(0, dim, factor);
        }
    }
    rule
}
