//! Megatron-style tensor parallelism found from the graph, not from names. A *linear* is a
//! `dot_general` of an activation with a rank-2 weight (an argument, maybe converted or
//! transposed) contracting one dimension. Walking the program in order with a marker for
//! "split over the model axis":
//! - a linear whose activation arrives split on its contracting dimension is *row*-split (its
//!   weight split on the contracting dimension; XLA all-reduces its output);
//! - any other linear is *column*-split (its weight split on the output features), and marks
//!   its output's feature dimension;
//! - markers flow through each op's sharding rule onto the major factor of a dimension only
//!   (so a `[heads * head_dim]` dimension splits between heads, never inside one).
//!
//! A column split whose marker is lost on the way (a reshape that would split a head, a
//! reduction over the split dimension, an op without a rule) is undone and the walk repeats,
//! so attention keeps whole heads: q/k/v column-split, the output projection row-split; the
//! MLP's up/gate column-split and down row-split. Embedding tables (gathered weights) split
//! on the vocabulary or the hidden dimension, whichever fills TPU tiles better (vocabulary on
//! ties).

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::sharding::{FactorKind, op_rule};
use tpuc_ir::{Function, OpId, OpKind, Value};

/// Per weight argument, the dimension to split over the model axis.
pub type Splits = HashMap<usize, usize>;

/// A weight seen through converts and transposes: its argument and, per dimension of the
/// value, the argument's dimension.
#[derive(Clone, Debug)]
struct WeightView {
    arg: usize,
    dims: Vec<usize>,
}

#[derive(Clone, Debug)]
struct Linear {
    op: OpId,
    /// Which operand is the activation.
    activation: usize,
    activation_contracting: usize,
    weight: WeightView,
    /// The weight value's contracting and free dimensions.
    weight_contracting: usize,
    weight_free: usize,
    /// The result dimension of the weight's free dimension.
    result_free: usize,
}

type Markers = HashMap<Value, Vec<BTreeSet<usize>>>;

/// The splits of `function`'s weights (`is_weight[i]` for argument `i`) over a model axis of
/// `size` devices.
pub fn find(function: &Function, is_weight: &[bool], size: u64) -> Splits {
    let block = function.entry_block();
    let ops = function.block(block).ops.clone();
    let views = weight_views(function, &ops, is_weight);
    let linears: Vec<Linear> = ops
        .iter()
        .filter_map(|&op| linear(function, op, &views))
        .collect();
    let mut undone: HashSet<usize> = HashSet::new();
    let (columns, rows) = loop {
        let walk = walk(function, &ops, &linears, &undone, size);
        if walk.lost.is_subset(&undone) {
            break (walk.columns, walk.rows);
        }
        undone.extend(walk.lost);
    };
    let mut splits = Splits::new();
    let mut conflicting = HashSet::new();
    let mut claim = |arg: usize, dim: usize| match splits.insert(arg, dim) {
        Some(previous) if previous != dim => {
            conflicting.insert(arg);
        }
        _ => {}
    };
    for &l in &columns {
        let linear = &linears[l];
        claim(linear.weight.arg, linear.weight.dims[linear.weight_free]);
    }
    for &l in &rows {
        let linear = &linears[l];
        claim(
            linear.weight.arg,
            linear.weight.dims[linear.weight_contracting],
        );
    }
    for arg in conflicting {
        splits.remove(&arg);
    }
    for (arg, dims) in embeddings(function, &ops, &views) {
        if splits.contains_key(&arg) {
            continue;
        }
        let shape = shape(function, function.args()[arg]);
        let divisible = dims
            .iter()
            .copied()
            .filter(|&d| shape[d].is_multiple_of(size));
        if let Some(dim) = divisible.min_by_key(|&d| super::tiles::tiled_elements(&shape, d, size))
        {
            splits.insert(arg, dim);
        }
    }
    splits
}

/// The static shape of `value` (empty if it has none).
fn shape(function: &Function, value: Value) -> Vec<u64> {
    super::spec::static_shape(function.value_type(value))
}

/// Values that are weights seen through `convert` and `transpose`.
fn weight_views(
    function: &Function,
    ops: &[OpId],
    is_weight: &[bool],
) -> HashMap<Value, WeightView> {
    let mut views = HashMap::new();
    for (index, &arg) in function.args().iter().enumerate() {
        if is_weight.get(index).copied().unwrap_or(false) {
            let rank = function.value_type(arg).as_tensor().map_or(0, |t| t.rank());
            views.insert(
                arg,
                WeightView {
                    arg: index,
                    dims: (0..rank).collect(),
                },
            );
        }
    }
    for &op in ops {
        let data = function.op(op);
        let Some(view) = data.operands.first().and_then(|v| views.get(v)).cloned() else {
            continue;
        };
        let derived = match &data.kind {
            OpKind::Convert => Some(view),
            OpKind::Transpose { permutation } => Some(WeightView {
                arg: view.arg,
                dims: permutation.iter().map(|&p| view.dims[p as usize]).collect(),
            }),
            _ => None,
        };
        if let Some(derived) = derived {
            views.insert(data.results[0], derived);
        }
    }
    views
}

fn linear(function: &Function, op: OpId, views: &HashMap<Value, WeightView>) -> Option<Linear> {
    let data = function.op(op);
    let OpKind::DotGeneral { dims, .. } = &data.kind else {
        return None;
    };
    if dims.lhs_contracting.len() != 1 || !dims.lhs_batching.is_empty() {
        return None;
    }
    let weight_side = match (views.get(&data.operands[0]), views.get(&data.operands[1])) {
        (None, Some(_)) => 1,
        (Some(_), None) => 0,
        _ => return None,
    };
    let weight = views[&data.operands[weight_side]].clone();
    if weight.dims.len() != 2 {
        return None;
    }
    let contracting = [
        dims.lhs_contracting[0] as usize,
        dims.rhs_contracting[0] as usize,
    ];
    let weight_contracting = contracting[weight_side];
    let weight_free = 1 - weight_contracting;
    let activation = 1 - weight_side;
    let activation_rank = function
        .value_type(data.operands[activation])
        .as_tensor()?
        .rank();
    // Result: the lhs free dimensions, then the rhs free dimensions.
    let result_free = if weight_side == 1 {
        activation_rank - 1
    } else {
        0
    };
    Some(Linear {
        op,
        activation,
        activation_contracting: contracting[activation],
        weight,
        weight_contracting,
        weight_free,
        result_free,
    })
}

/// Gathered weights (embedding tables): per argument, its indexed dimensions, then the others.
fn embeddings(
    function: &Function,
    ops: &[OpId],
    views: &HashMap<Value, WeightView>,
) -> Vec<(usize, Vec<usize>)> {
    let mut found = Vec::new();
    for &op in ops {
        let data = function.op(op);
        let OpKind::Gather { dims, .. } = &data.kind else {
            continue;
        };
        let Some(view) = views.get(&data.operands[0]) else {
            continue;
        };
        let mut order: Vec<usize> = dims
            .start_index_map
            .iter()
            .map(|&d| view.dims[d as usize])
            .collect();
        let rest: Vec<usize> = (0..view.dims.len())
            .filter(|d| !order.contains(d))
            .collect();
        order.extend(rest);
        found.push((view.arg, order));
    }
    found
}

struct Walk {
    columns: Vec<usize>,
    rows: Vec<usize>,
    /// Column linears whose split did not survive to a row linear or an output.
    lost: HashSet<usize>,
}

fn walk(
    function: &Function,
    ops: &[OpId],
    linears: &[Linear],
    undone: &HashSet<usize>,
    size: u64,
) -> Walk {
    let by_op: HashMap<OpId, usize> = linears.iter().enumerate().map(|(i, l)| (l.op, i)).collect();
    let mut markers: Markers = HashMap::new();
    let mut walk = Walk {
        columns: Vec::new(),
        rows: Vec::new(),
        lost: HashSet::new(),
    };
    let marks = |markers: &Markers, value: Value| -> Vec<BTreeSet<usize>> {
        markers.get(&value).cloned().unwrap_or_else(|| {
            let rank = function
                .value_type(value)
                .as_tensor()
                .map_or(0, |t| t.rank());
            vec![BTreeSet::new(); rank]
        })
    };
    for &op in ops {
        let data = function.op(op);
        if let Some(&l) = by_op.get(&op) {
            let linear = &linears[l];
            let activation = marks(&markers, data.operands[linear.activation]);
            let incoming = &activation[linear.activation_contracting];
            let others_marked = activation
                .iter()
                .enumerate()
                .any(|(d, m)| d != linear.activation_contracting && !m.is_empty());
            if !incoming.is_empty() {
                walk.rows.push(l);
                continue;
            }
            let weight = data.operands[1 - linear.activation];
            let free_size = shape(function, weight)
                .get(linear.weight_free)
                .copied()
                .unwrap_or(0);
            if !others_marked && !undone.contains(&l) && free_size % size == 0 {
                walk.columns.push(l);
                let mut out = marks(&markers, data.results[0]);
                out[linear.result_free].insert(l);
                markers.insert(data.results[0], out);
                continue;
            }
        }
        if matches!(data.kind, OpKind::Return) {
            continue;
        }
        let operand_marks: Vec<_> = data.operands.iter().map(|&v| marks(&markers, v)).collect();
        if operand_marks
            .iter()
            .all(|m| m.iter().all(BTreeSet::is_empty))
        {
            continue;
        }
        let Some(rule) = op_rule(function, op) else {
            operand_marks
                .iter()
                .flatten()
                .for_each(|m| walk.lost.extend(m));
            continue;
        };
        let mut factor_marks: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); rule.factors.len()];
        for (factors, dims) in rule.operands.iter().zip(&operand_marks) {
            for (dim_factors, mark) in factors.iter().zip(dims) {
                if mark.is_empty() {
                    continue;
                }
                match dim_factors.first() {
                    Some(&f)
                        if rule.factors[f].kind == FactorKind::PassThrough
                            && rule.factors[f].size % size == 0 =>
                    {
                        factor_marks[f].extend(mark);
                    }
                    _ => walk.lost.extend(mark),
                }
            }
        }
        let mut carried: BTreeSet<usize> = BTreeSet::new();
        for (result, factors) in data.results.iter().zip(&rule.results) {
            let mut out: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); factors.len()];
            for (dim, dim_factors) in factors.iter().enumerate() {
                if let Some(&f) = dim_factors.first() {
                    out[dim].extend(&factor_marks[f]);
                }
            }
            let marked = out.iter().filter(|m| !m.is_empty()).count();
            if marked > 1 {
                out.iter().for_each(|m| walk.lost.extend(m));
                continue;
            }
            out.iter().for_each(|m| carried.extend(m));
            if marked == 1 {
                markers.insert(*result, out);
            }
        }
        for mark in &factor_marks {
            walk.lost.extend(mark.difference(&carried));
        }
    }
    walk
}
