//! Removes ops whose results nobody uses (e.g. a `transpose` folded into a `dot_general`).
//! Ops with regions are kept or dropped whole; ops with side effects are always kept.

use std::collections::{HashMap, HashSet};

use tpuc_ir::{BlockId, Function, NewOp, OpId, OpKind, RegionId, Value};

fn has_side_effect(kind: &OpKind) -> bool {
    matches!(
        kind,
        OpKind::Return
            | OpKind::RegionReturn
            | OpKind::CustomCall {
                has_side_effect: true,
                ..
            }
    )
}

/// A copy of `function` without dead ops.
pub(crate) fn prune(function: Function) -> Function {
    let entry = function.entry_block();
    let mut used: HashSet<Value> = HashSet::new();
    let mut live: HashSet<OpId> = HashSet::new();
    for &op in function.block(entry).ops.iter().rev() {
        let operation = function.op(op);
        if has_side_effect(&operation.kind) || operation.results.iter().any(|r| used.contains(r)) {
            mark(&function, op, &mut used, &mut live);
        }
    }
    if live.len() == function.block(entry).ops.len() {
        return function;
    }
    let mut out = Function::new(
        function.name.clone(),
        function.visibility,
        function.arg_types(),
        function.result_types.clone(),
    );
    out.arg_attrs = function.arg_attrs.clone();
    out.result_attrs = function.result_attrs.clone();
    out.attrs = function.attrs.clone();
    out.location = function.location.clone();
    let mut map: HashMap<Value, Value> = function
        .args()
        .iter()
        .copied()
        .zip(out.args().iter().copied())
        .collect();
    let out_entry = out.entry_block();
    for &op in &function.block(entry).ops {
        if live.contains(&op) {
            copy_op(&function, op, &mut out, out_entry, &mut map);
        }
    }
    out
}

/// Marks `op` live with everything it (and its regions) use.
fn mark(f: &Function, op: OpId, used: &mut HashSet<Value>, live: &mut HashSet<OpId>) {
    live.insert(op);
    let operation = f.op(op);
    used.extend(operation.operands.iter().copied());
    for &region in &operation.regions {
        for &block in &f.region(region).blocks {
            for &inner in &f.block(block).ops {
                mark(f, inner, used, live);
            }
        }
    }
}

fn copy_op(
    f: &Function,
    op: OpId,
    out: &mut Function,
    block: BlockId,
    map: &mut HashMap<Value, Value>,
) {
    let operation = f.op(op);
    let regions: Vec<RegionId> = operation
        .regions
        .iter()
        .map(|&region| copy_region(f, region, out, map))
        .collect();
    let new = out.append_op(
        block,
        NewOp {
            kind: operation.kind.clone(),
            operands: operation.operands.iter().map(|v| map[v]).collect(),
            result_types: operation
                .results
                .iter()
                .map(|&r| f.value_type(r).clone())
                .collect(),
            regions,
            attrs: operation.attrs.clone(),
            location: operation.location.clone(),
        },
    );
    let results = out.op(new).results.clone();
    map.extend(operation.results.iter().copied().zip(results));
}

fn copy_region(
    f: &Function,
    region: RegionId,
    out: &mut Function,
    map: &mut HashMap<Value, Value>,
) -> RegionId {
    let new_region = out.add_region();
    for &block in &f.region(region).blocks {
        let new_block = out.add_block(new_region);
        for &arg in &f.block(block).args {
            let new_arg = out.add_block_arg(new_block, f.value_type(arg).clone());
            map.insert(arg, new_arg);
        }
        for &inner in &f.block(block).ops {
            copy_op(f, inner, out, new_block, map);
        }
    }
    new_region
}
