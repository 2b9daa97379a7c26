//! `canonicalize`: the fold hook and the rewrite patterns, applied greedily; `fold`: the fold
//! hook alone; `flatten`: canonicalization plus the layouts libtpu reads fewer bytes for.

mod compare;
mod contraction;
mod convert;
mod elementwise;
mod gather;
mod layout;
mod norm;
mod reduction;
mod select;

use crate::error::PassError;
use crate::pass::{Pass, PassContext};
use crate::rewrite::{Pattern, apply_greedily};
use tpuc_ir::Program;

/// The patterns `canonicalize` and `flatten` share.
const PATTERNS: &[&dyn Pattern] = &[
    &layout::ReshapeOfReshape,
    &layout::TransposeOfTranspose,
    &layout::TransposeAsReshape,
    &layout::BroadcastOfBroadcast,
    &layout::BroadcastOfUnitReshape,
    &layout::ReshapeOfScalarBroadcast,
    &convert::ConvertOfExactConvert,
    &contraction::TransposeIntoDotGeneral,
    &contraction::TransposeIntoConvolution,
    &contraction::DotGeneralOnFlattenedRows,
    &contraction::ScaleAfterDotGeneral,
    &elementwise::MultiplyOfSplatMultiply,
    &select::SelectOfSameValues,
    &compare::CompareOfPositionDifference,
    &elementwise::ElementwiseBeforeLayout,
    &reduction::WindowMaxOfMaxSplat,
    &reduction::NotOfReduceOrOfNot,
    &norm::BatchNormOfBiasAdd,
];

pub(crate) struct Canonicalize;

impl Pass for Canonicalize {
    fn name(&self) -> &'static str {
        "canonicalize"
    }

    fn run(&self, program: &mut Program, _: &mut PassContext) -> Result<(), PassError> {
        let module = &mut program.module;
        let patterns: Vec<&dyn Pattern> =
            UNFLATTEN_PATTERNS.iter().chain(PATTERNS).copied().collect();
        for function in &mut module.functions {
            apply_greedily(function, &patterns, true);
        }
        Ok(())
    }
}

pub(crate) struct Fold;

impl Pass for Fold {
    fn name(&self) -> &'static str {
        "fold"
    }

    fn run(&self, program: &mut Program, _: &mut PassContext) -> Result<(), PassError> {
        let module = &mut program.module;
        for function in &mut module.functions {
            apply_greedily(function, &[], true);
        }
        Ok(())
    }
}

/// What `canonicalize` adds: collapsed batch dimensions split again, the forms fusion and
/// sharding match.
const UNFLATTEN_PATTERNS: &[&dyn Pattern] = &[&contraction::DotGeneralOfCollapsedBatch];

/// What `flatten` adds instead: attention's batch dimensions and embedding lookups on flattened
/// rows. It runs after fusion, and not before sharding.
const FLATTEN_PATTERNS: &[&dyn Pattern] = &[
    &contraction::DotGeneralOnFlattenedBatch,
    &gather::GatherOnFlattenedIndices,
];

pub(crate) struct Flatten;

impl Pass for Flatten {
    fn name(&self) -> &'static str {
        "flatten"
    }

    fn run(&self, program: &mut Program, _: &mut PassContext) -> Result<(), PassError> {
        let patterns: Vec<&dyn Pattern> =
            FLATTEN_PATTERNS.iter().chain(PATTERNS).copied().collect();
        for function in &mut program.module.functions {
            apply_greedily(function, &patterns, true);
        }
        Ok(())
    }
}
