//! The sharding rule of each op kind tpuc emits, one file per family; the op table declares
//! which rule each op follows. Ops declared without a rule (control flow, composites, custom
//! calls, collectives) are left alone: nothing propagates through them, and XLA decides their
//! shardings.

mod contraction;
#[cfg(test)]
mod declared_tests;
mod indexing;
mod layout;
mod pointwise;
mod reduction;

use tpuc_ir::{Function, OpId, OpKind, ShardingRuleKind};

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
/// Which rule applies is the op table's [`ShardingRuleKind`]; the attributes a rule needs come
/// from the op.
pub fn op_rule(function: &Function, op: OpId) -> Option<OpRule> {
    let shapes = Shapes::of(function, op)?;
    let kind = &function.op(op).kind;
    match kind.opcode().sharding_rule() {
        ShardingRuleKind::None => None,
        ShardingRuleKind::Elementwise => Some(pointwise::elementwise(&shapes)),
        ShardingRuleKind::Bitcast => pointwise::bitcast(&shapes),
        ShardingRuleKind::Pairwise => Some(pointwise::pairwise(&shapes)),
        ShardingRuleKind::BroadcastInDim => {
            let OpKind::BroadcastInDim { dims } = kind else {
                return None;
            };
            Some(pointwise::broadcast(&shapes, dims))
        }
        ShardingRuleKind::BatchNorm => {
            let (OpKind::BatchNormInference { feature_index, .. }
            | OpKind::BatchNormTraining { feature_index, .. }) = kind
            else {
                return None;
            };
            Some(pointwise::batch_norm(&shapes, *feature_index))
        }
        ShardingRuleKind::Reshape => Some(layout::reshape(&shapes)),
        ShardingRuleKind::Transpose => {
            let OpKind::Transpose { permutation } = kind else {
                return None;
            };
            Some(layout::transpose(&shapes, permutation))
        }
        ShardingRuleKind::Window => Some(layout::window_like(&shapes)),
        ShardingRuleKind::UpdateSlice => Some(layout::update_slice(&shapes)),
        ShardingRuleKind::Concatenate => {
            let OpKind::Concatenate { dimension } = kind else {
                return None;
            };
            Some(layout::concatenate(&shapes, *dimension))
        }
        ShardingRuleKind::Reverse => {
            let OpKind::Reverse { dims } = kind else {
                return None;
            };
            Some(layout::reverse(&shapes, dims))
        }
        ShardingRuleKind::DotGeneral => {
            let OpKind::DotGeneral { dims, .. } = kind else {
                return None;
            };
            Some(contraction::dot_general(&shapes, dims))
        }
        ShardingRuleKind::Convolution => {
            let OpKind::Convolution(attrs) = kind else {
                return None;
            };
            Some(contraction::convolution(&shapes, attrs))
        }
        ShardingRuleKind::Reduce => {
            let OpKind::Reduce { dimensions } = kind else {
                return None;
            };
            Some(reduction::reduce(&shapes, dimensions))
        }
        ShardingRuleKind::ReduceWindow => {
            let OpKind::ReduceWindow(attrs) = kind else {
                return None;
            };
            Some(reduction::reduce_window(&shapes, attrs))
        }
        ShardingRuleKind::SelectAndScatter => Some(reduction::select_and_scatter(&shapes)),
        ShardingRuleKind::Sort => {
            let OpKind::Sort { dimension, .. } = kind else {
                return None;
            };
            Some(reduction::sort(&shapes, *dimension))
        }
        ShardingRuleKind::Fft => {
            let OpKind::Fft { fft_length, .. } = kind else {
                return None;
            };
            Some(reduction::fft(&shapes, fft_length.len()))
        }
        ShardingRuleKind::Gather => {
            let OpKind::Gather {
                dims, slice_sizes, ..
            } = kind
            else {
                return None;
            };
            Some(indexing::gather(&shapes, dims, slice_sizes))
        }
        ShardingRuleKind::Scatter => {
            let OpKind::Scatter { dims, .. } = kind else {
                return None;
            };
            Some(indexing::scatter(&shapes, dims))
        }
    }
}
