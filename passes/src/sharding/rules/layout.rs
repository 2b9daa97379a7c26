//! Ops that move elements: reshape (compound factors), transpose, slices, padding,
//! concatenation, reversal.

use super::Shapes;
use crate::sharding::rule::{FactorKind, OpRule};

/// Factors common to both shapes, found by walking them major to minor: `[6] -> [2, 3]` has
/// factors 2 and 3, the operand dimension carrying both. A group of dimensions whose sizes
/// share no factor (`[3, 2] -> [2, 3]` after its common prefix) ends the walk: the rest have no
/// factors, so no sharding flows through them.
pub fn reshape(shapes: &Shapes) -> OpRule {
    let mut rule = shapes.empty_rule();
    let (from, to) = (&shapes.operands[0], &shapes.results[0]);
    let (mut i, mut j) = (0, 0);
    let (mut left, mut right) = (from.first().copied(), to.first().copied());
    while let (Some(a), Some(b)) = (left, right) {
        if a == 1 {
            i += 1;
            left = from.get(i).copied();
            continue;
        }
        if b == 1 {
            j += 1;
            right = to.get(j).copied();
            continue;
        }
        let common = gcd(a, b);
        if common == 1 {
            break;
        }
        let factor = rule.factor(common, FactorKind::PassThrough);
        rule.on_operand(0, i, factor);
        rule.on_result(0, j, factor);
        left = Some(a / common);
        right = Some(b / common);
        if a / common == 1 {
            i += 1;
            left = from.get(i).copied();
        }
        if b / common == 1 {
            j += 1;
            right = to.get(j).copied();
        }
    }
    rule
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Result dimension `i` is operand dimension `permutation[i]`.
pub fn transpose(shapes: &Shapes, permutation: &[i64]) -> OpRule {
    let mut rule = shapes.empty_rule();
    for (result_dim, &operand_dim) in permutation.iter().enumerate() {
        let factor = rule.factor(shapes.results[0][result_dim], FactorKind::PassThrough);
        rule.on_operand(0, operand_dim as usize, factor);
        rule.on_result(0, result_dim, factor);
    }
    rule
}

/// `slice`, `dynamic_slice`, `pad`: a dimension whose size changes needs replication, the
/// others pass through. Scalar operands (indices, the padding value) carry nothing.
pub fn window_like(shapes: &Shapes) -> OpRule {
    let (before, after) = (&shapes.operands[0], &shapes.results[0]);
    shapes.per_dimension(after, 0..1, 0..1, |dim| before[dim] != after[dim])
}

/// `dynamic_update_slice(operand, update, indices...)`: dimensions the update covers whole
/// pass through all three tensors; the others need replication.
pub fn update_slice(shapes: &Shapes) -> OpRule {
    let (full, update) = (&shapes.operands[0], &shapes.operands[1]);
    shapes.per_dimension(full, 0..2, 0..1, |dim| full[dim] != update[dim])
}

/// The concatenated dimension needs replication; the others pass through every operand.
pub fn concatenate(shapes: &Shapes, dimension: i64) -> OpRule {
    let operands = 0..shapes.operands.len();
    shapes.per_dimension(&shapes.results[0], operands, 0..1, |dim| {
        dim as i64 == dimension
    })
}

/// Reversed dimensions need replication; the others pass through.
pub fn reverse(shapes: &Shapes, dims: &[i64]) -> OpRule {
    shapes.per_dimension(&shapes.results[0], 0..1, 0..1, |dim| {
        dims.contains(&(dim as i64))
    })
}
