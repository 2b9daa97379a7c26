//! The sharding rule of each op kind tpuc emits, one file per family. Ops without a rule
//! (control flow, composites, custom calls, collectives) are left alone: nothing propagates
//! through them, and XLA decides their shardings.

mod contraction;
mod indexing;
mod layout;
mod pointwise;
mod reduction;

use tpuc_ir::{Function, OpId, OpKind};

use super::rule::{FactorKind, OpRule};

/// The static shapes of an op's operands and results (`None` if one is dynamic or not a
/// tensor).
pub(crate) struct Shapes {
    pub operands: Vec<Vec<u64>>,
    pub results: Vec<Vec<u64>>,
}

impl Shapes {
    fn of(function: &Function, op: OpId) -> Option<Shapes> {
        let shape = |value| {
            function
                .value_type(value)
                .as_tensor()
                .and_then(|t| t.static_shape())
        };
        let data = function.op(op);
        Some(Shapes {
            operands: data
                .operands
                .iter()
                .map(|&v| shape(v))
                .collect::<Option<_>>()?,
            results: data
                .results
                .iter()
                .map(|&v| shape(v))
                .collect::<Option<_>>()?,
        })
    }

    fn operand_ranks(&self) -> Vec<usize> {
        self.operands.iter().map(Vec::len).collect()
    }

    fn result_ranks(&self) -> Vec<usize> {
        self.results.iter().map(Vec::len).collect()
    }

    /// A rule over these tensors with no factors yet.
    fn empty_rule(&self) -> OpRule {
        OpRule::with_ranks(&self.operand_ranks(), &self.result_ranks())
    }

    /// One factor per dimension of `sizes`, needing replication where `replicated(dim)`, on
    /// that dimension of each of `operands` and `results`.
    fn per_dimension(
        &self,
        sizes: &[u64],
        operands: impl Iterator<Item = usize> + Clone,
        results: impl Iterator<Item = usize> + Clone,
        replicated: impl Fn(usize) -> bool,
    ) -> OpRule {
        let mut rule = self.empty_rule();
        for (dim, &size) in sizes.iter().enumerate() {
            let kind = if replicated(dim) {
                FactorKind::NeedReplication
            } else {
                FactorKind::PassThrough
            };
            let factor = rule.factor(size, kind);
            for operand in operands.clone() {
                rule.on_operand(operand, dim, factor);
            }
            for result in results.clone() {
                rule.on_result(result, dim, factor);
            }
        }
        rule
    }
}

/// The sharding rule of `op`, or `None` for an op whose shardings propagation leaves to XLA.
pub fn op_rule(function: &Function, op: OpId) -> Option<OpRule> {
    let shapes = Shapes::of(function, op)?;
    let kind = &function.op(op).kind;
    match kind {
        kind if kind.is_elementwise() => Some(pointwise::elementwise(&shapes)),
        OpKind::BitcastConvert => pointwise::bitcast(&shapes),
        OpKind::Constant(_) | OpKind::Iota { .. } => Some(pointwise::elementwise(&shapes)),
        OpKind::ShardingConstraint(_) | OpKind::OptimizationBarrier => {
            Some(pointwise::pairwise(&shapes))
        }
        OpKind::BroadcastInDim { dims } => Some(pointwise::broadcast(&shapes, dims)),
        OpKind::BatchNormInference { feature_index, .. }
        | OpKind::BatchNormTraining { feature_index, .. } => {
            Some(pointwise::batch_norm(&shapes, *feature_index))
        }
        OpKind::Reshape => Some(layout::reshape(&shapes)),
        OpKind::Transpose { permutation } => Some(layout::transpose(&shapes, permutation)),
        OpKind::Slice { .. } | OpKind::DynamicSlice { .. } | OpKind::Pad { .. } => {
            Some(layout::window_like(&shapes))
        }
        OpKind::DynamicUpdateSlice => Some(layout::update_slice(&shapes)),
        OpKind::Concatenate { dimension } => Some(layout::concatenate(&shapes, *dimension)),
        OpKind::Reverse { dims } => Some(layout::reverse(&shapes, dims)),
        OpKind::DotGeneral { dims, .. } => Some(contraction::dot_general(&shapes, dims)),
        OpKind::Convolution(attrs) => Some(contraction::convolution(&shapes, attrs)),
        OpKind::Reduce { dimensions } => Some(reduction::reduce(&shapes, dimensions)),
        OpKind::ReduceWindow(attrs) => Some(reduction::reduce_window(&shapes, attrs)),
        OpKind::SelectAndScatter { .. } => Some(reduction::select_and_scatter(&shapes)),
        OpKind::Sort { dimension, .. } => Some(reduction::sort(&shapes, *dimension)),
        OpKind::Gather {
            dims, slice_sizes, ..
        } => Some(indexing::gather(&shapes, dims, slice_sizes)),
        OpKind::Scatter { dims, .. } => Some(indexing::scatter(&shapes, dims)),
        _ => None,
    }
}
