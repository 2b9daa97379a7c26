//! What passes may assume about an op: effects, purity, elementwise and commutative forms.

use crate::attr::ComparisonDirection;
use crate::op::OpKind;

impl OpKind {
    /// Ops that must stay even when nothing uses their results: terminators, side-effecting
    /// custom calls, calls (the callee may have effects) and collectives (they synchronise
    /// devices).
    pub fn has_side_effect(&self) -> bool {
        matches!(
            self,
            Self::Return
                | Self::RegionReturn
                | Self::Call { .. }
                | Self::CustomCall {
                    has_side_effect: true,
                    ..
                }
                | Self::AllReduce(_)
                | Self::AllGather { .. }
                | Self::ReduceScatter { .. }
                | Self::AllToAll { .. }
                | Self::CollectivePermute { .. }
                | Self::ReplicaId
                | Self::PartitionId
        )
    }

    /// The result depends only on the operands and attributes (and regions, which the op
    /// carries): two such ops with equal operands compute equal results.
    pub fn is_pure(&self) -> bool {
        !self.has_side_effect() && !matches!(self, Self::CustomCall { .. })
    }

    /// Applies one scalar function to corresponding elements of same-shaped operands.
    pub fn is_elementwise(&self) -> bool {
        matches!(
            self,
            Self::Unary(_)
                | Self::Binary(_)
                | Self::Compare { .. }
                | Self::Select
                | Self::Clamp
                | Self::Convert
        )
    }

    /// A binary op whose operands may be swapped.
    pub fn is_commutative(&self) -> bool {
        match self {
            Self::Binary(op) => op.is_commutative(),
            Self::Compare { direction, .. } => {
                matches!(direction, ComparisonDirection::Eq | ComparisonDirection::Ne)
            }
            _ => false,
        }
    }
}
