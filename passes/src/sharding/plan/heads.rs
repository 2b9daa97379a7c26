//! State split by attention head. A decode step's KV cache is state (an argument updated in
//! place) that tensor parallelism should split by head, so each device holds and attends over
//! its heads only. When the projections split by head (separate q/k/v), propagation carries
//! their split onto the cache; when they cannot (a fused QKV projection, whose q, k and v are
//! slices of one output), the cache is split on its own: on the dimension that reaches
//! attention's `dot_general`s as a batch dimension, found from the graph, not from names.

use std::collections::HashMap;

use tpuc_ir::{Function, OpKind, Value};

use crate::sharding::{FactorKind, op_rule};

/// The dimension of argument `argument` to split over `size` devices so that attention's
/// products stay per device: one whose elements flow, slice by slice, into a `dot_general` as
/// a batch dimension. `None` when no dimension does.
pub fn batch_dimension(function: &Function, argument: usize, size: u64) -> Option<usize> {
    let value = *function.args().get(argument)?;
    let shape = function.value_type(value).as_tensor()?.static_shape()?;
    (0..shape.len())
        .filter(|&dim| shape[dim] > 1 && shape[dim].is_multiple_of(size))
        .find(|&dim| reaches_batch(function, value, dim, size))
}

/// Whether dimension `dim` of `value` reaches a `dot_general` as a batch dimension, carried
/// as the major factor of each dimension on the way (a merged `[heads * head_dim]` splits
/// between heads).
fn reaches_batch(function: &Function, value: Value, dim: usize, size: u64) -> bool {
    let mut marked: HashMap<Value, usize> = HashMap::from([(value, dim)]);
    for &op in &function.block(function.entry_block()).ops {
        let data = function.op(op);
        let Some((operand, &dim)) = data
            .operands
            .iter()
            .enumerate()
            .find_map(|(i, v)| marked.get(v).map(|d| (i, d)))
        else {
            continue;
        };
        let Some(rule) = op_rule(function, op) else {
            continue;
        };
        let Some(&factor) = rule.operands[operand].get(dim).and_then(|f| f.first()) else {
            continue;
        };
        let carried = rule.factors[factor];
        if carried.kind != FactorKind::PassThrough || !carried.size.is_multiple_of(size) {
            continue;
        }
        let is_dot = matches!(data.kind, OpKind::DotGeneral { .. });
        for (result, factors) in data.results.iter().zip(&rule.results) {
            let Some(out) = factors.iter().position(|f| f.first() == Some(&factor)) else {
                continue;
            };
            // A dot's factor shared by both operands and the result is a batch dimension.
            if is_dot
                && rule
                    .operands
                    .iter()
                    .all(|o| o.iter().flatten().any(|&f| f == factor))
            {
                return true;
            }
            marked.insert(*result, out);
        }
    }
    false
}
