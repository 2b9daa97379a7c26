//! Writing propagation's decisions into the function.

use tpuc_ir::{Attribute, Function, OpKind, Type};

use super::state::State;

/// The attribute Shardy reads on arguments, results and ops.
pub const SHARDING: &str = "sdy.sharding";

/// Closed shardings on the arguments and results, open ones on the ops of the body that have
/// a rule.
pub fn write(function: &mut Function, state: &State) {
    let rank = |ty: &Type| ty.as_tensor().map_or(0, |t| t.rank());
    let args = function.args().to_vec();
    for (index, &arg) in args.iter().enumerate() {
        let sharding = state.sharding(arg, rank(function.value_type(arg)), true);
        function.arg_attrs[index].set(SHARDING, Attribute::Sharding(sharding));
    }
    let block = function.entry_block();
    let ops = function.block(block).ops.clone();
    for op in ops {
        let data = function.op(op);
        if let OpKind::Return = data.kind {
            let returned: Vec<_> = data.operands.clone();
            for (index, value) in returned.into_iter().enumerate() {
                if function.result_attrs[index].get(SHARDING).is_none() {
                    let sharding = state.sharding(value, rank(function.value_type(value)), true);
                    function.result_attrs[index].set(SHARDING, Attribute::Sharding(sharding));
                }
            }
            continue;
        }
        // Ops without a rule (control flow, custom calls) are XLA's to decide: a sharding on a
        // `while` even breaks XLA's import of its tuple.
        let ruled = super::rules::op_rule(function, op).is_some();
        if !ruled || matches!(data.kind, OpKind::ShardingConstraint(_)) || data.results.is_empty() {
            continue;
        }
        let tensors = data
            .results
            .iter()
            .all(|&r| function.value_type(r).as_tensor().is_some());
        if !tensors {
            continue;
        }
        let shardings = data
            .results
            .iter()
            .map(|&r| state.sharding(r, rank(function.value_type(r)), false))
            .collect();
        function
            .attrs_mut(op)
            .set(SHARDING, Attribute::ShardingPerValue(shardings));
    }
}
