//! `canonicalize`: the fold hook and the rewrite patterns, applied greedily; `fold`: the fold
//! hook alone.

mod compare;
mod contraction;
mod convert;
mod elementwise;
mod layout;
mod norm;
mod reduction;
mod select;

use crate::error::PassError;
use crate::pass::{Pass, PassContext};
use crate::rewrite::{Pattern, apply_greedily};
use tpuc_ir::Program;

/// Every canonicalization pattern.
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
    &contraction::DotGeneralOfCollapsedBatch,
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
        for function in &mut module.functions {
            apply_greedily(function, PATTERNS, true);
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
