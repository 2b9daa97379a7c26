//! Propagation to a fixed point: each op's operand and result shardings are projected onto
//! its factors, each factor takes the strongest compatible sharding (fixed ones first, then the
//! longest of those that agree, else what they share), and the factors are projected back onto
//! every dimension not fixed. Dimensions only ever gain axes, so the sweeps (forward, then
//! backward) end. Pass-through ops run to a fixed point before contractions and reductions
//! join in, so a matrix product never overrides what an elementwise chain agrees on.

use tpuc_ir::{Function, OpId};

use super::rule::{FactorKind, OpRule};
use super::state::{DimState, State};

/// The ops of a block with their rules, in program order.
pub struct RuledOps {
    pub ops: Vec<(OpId, OpRule)>,
}

/// Propagates over `ops` until nothing changes.
pub fn run(function: &Function, ops: &RuledOps, state: &mut State) {
    let pass_through: Vec<&(OpId, OpRule)> =
        ops.ops.iter().filter(|(_, r)| is_pass_through(r)).collect();
    let all: Vec<&(OpId, OpRule)> = ops.ops.iter().collect();
    for phase in [&pass_through, &all] {
        while sweep(function, phase, state) {}
    }
    // A contraction's sharding may unlock pass-through ops again.
    while sweep(function, &all, state) {}
}

/// An op without reduction factors: elementwise, layout and indexing ops.
fn is_pass_through(rule: &OpRule) -> bool {
    rule.factors.iter().all(|f| f.kind != FactorKind::Reduction)
}

/// One forward and one backward pass; whether anything changed.
fn sweep(function: &Function, ops: &[&(OpId, OpRule)], state: &mut State) -> bool {
    let mut changed = false;
    for (op, rule) in ops.iter().map(|entry| (&entry.0, &entry.1)) {
        changed |= step(function, *op, rule, state);
    }
    for (op, rule) in ops.iter().rev().map(|entry| (&entry.0, &entry.1)) {
        changed |= step(function, *op, rule, state);
    }
    changed
}

/// Propagates through one op; whether a sharding changed.
pub fn step(function: &Function, op: OpId, rule: &OpRule, state: &mut State) -> bool {
    let data = function.op(op);
    let tensors: Vec<_> = data.operands.iter().chain(&data.results).copied().collect();
    let current: Vec<Vec<DimState>> = tensors
        .iter()
        .zip(rule.tensors())
        .map(|(&value, factors)| state.get(value, factors.len()))
        .collect();
    let chosen = choose_factors(rule, &current, state);
    let mut changed = false;
    for ((&value, factors), mut dims) in tensors.iter().zip(rule.tensors()).zip(current) {
        let mut value_changed = false;
        for dim in 0..dims.len() {
            if dims[dim].fixed {
                continue;
            }
            let axes = project(rule, &factors[dim], &chosen, state);
            let extends = axes.len() > dims[dim].axes.len() && axes.starts_with(&dims[dim].axes);
            let clashes = axes.iter().any(|axis| {
                dims.iter()
                    .enumerate()
                    .any(|(d, s)| d != dim && s.axes.contains(axis))
            });
            if extends && !clashes {
                dims[dim].axes = axes;
                value_changed = true;
            }
        }
        if value_changed {
            state.set(value, dims);
            changed = true;
        }
    }
    changed
}

/// The axes of each factor: from every dimension carrying it, fixed shardings first (a
/// replicated dimension proposes nothing); an axis is used by one factor only (pass-through
/// factors claim theirs first).
fn choose_factors(rule: &OpRule, current: &[Vec<DimState>], state: &State) -> Vec<Vec<String>> {
    let mut fixed: Vec<Vec<Vec<String>>> = vec![Vec::new(); rule.factors.len()];
    let mut open: Vec<Vec<Vec<String>>> = vec![Vec::new(); rule.factors.len()];
    for (factors, dims) in rule.tensors().zip(current) {
        for (dim_factors, dim) in factors.iter().zip(dims) {
            let sizes: Vec<u64> = dim_factors.iter().map(|&f| rule.factors[f].size).collect();
            for (k, axes) in distribute(&dim.axes, &sizes, state).into_iter().enumerate() {
                // A replicated dimension asks nothing of the others: its tensor can be sliced.
                if axes.is_empty() {
                    continue;
                }
                let into = if dim.fixed { &mut fixed } else { &mut open };
                into[dim_factors[k]].push(axes);
            }
        }
    }
    let mut chosen: Vec<Vec<String>> = (0..rule.factors.len())
        .map(|f| {
            if rule.factors[f].kind == FactorKind::NeedReplication {
                Vec::new()
            } else if !fixed[f].is_empty() {
                strongest(&fixed[f])
            } else {
                strongest(&open[f])
            }
        })
        .collect();
    let mut order: Vec<usize> = (0..rule.factors.len()).collect();
    order.sort_by_key(|&f| rule.factors[f].kind != FactorKind::PassThrough);
    let mut used: Vec<String> = Vec::new();
    for f in order {
        if let Some(clash) = chosen[f].iter().position(|axis| used.contains(axis)) {
            chosen[f].truncate(clash);
        }
        used.extend(chosen[f].iter().cloned());
    }
    chosen
}

/// The longest candidate if every candidate is a prefix of it, else their common prefix.
fn strongest(candidates: &[Vec<String>]) -> Vec<String> {
    let Some(longest) = candidates.iter().max_by_key(|c| c.len()) else {
        return Vec::new();
    };
    if candidates.iter().all(|c| longest.starts_with(c)) {
        return longest.clone();
    }
    let mut common = longest.clone();
    for candidate in candidates {
        let shared = common
            .iter()
            .zip(candidate)
            .take_while(|(a, b)| a == b)
            .count();
        common.truncate(shared);
    }
    common
}

/// Splits a dimension's axes over its factors (sizes major to minor): each axis goes to the
/// current factor if it divides what is left of it; the walk stops at an axis that does not
/// fit (expressing it would need a sub-axis), so heads of a `[heads * dim]` dimension split
/// whole or not at all.
pub fn distribute(axes: &[String], sizes: &[u64], state: &State) -> Vec<Vec<String>> {
    let mut out = vec![Vec::new(); sizes.len()];
    let mut k = 0;
    let mut left = sizes.first().copied().unwrap_or(1);
    for axis in axes {
        while left == 1 && k + 1 < sizes.len() {
            k += 1;
            left = sizes[k];
        }
        let size = state.axis_size(axis);
        if k >= sizes.len() || left % size != 0 || left == 1 {
            break;
        }
        out[k].push(axis.clone());
        left /= size;
    }
    out
}

/// A dimension's axes from its factors' axes: a minor factor's axes count only once every
/// more major factor of the dimension is fully sharded.
fn project(rule: &OpRule, factors: &[usize], chosen: &[Vec<String>], state: &State) -> Vec<String> {
    let mut axes = Vec::new();
    for &f in factors {
        axes.extend(chosen[f].iter().cloned());
        if state.axes_size(&chosen[f]) != rule.factors[f].size {
            break;
        }
    }
    axes
}
