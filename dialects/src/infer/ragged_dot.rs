//! `chlo.ragged_dot`: a dot_general whose lhs ragged dimension is split into groups of
//! `group_sizes` rows. By where that dimension sits, three modes (the CHLO spec):
//! - non-contracting: `rhs` has a group dimension; each group of lhs rows meets its own rhs
//!   slice, the result is the dot_general's without the group dimension;
//! - contracting: each group sums its own part of the contraction, the result gains a leading
//!   group dimension;
//! - batch: each group of batches meets the same rhs; the result is the dot_general's.

use super::{InferResult, check_dims, check_len, tensor};
use crate::attr::{DotDims, Precision, RaggedDotDims, RaggedMode};
use crate::types::{Dim, TensorType, Type};

pub(super) fn ragged_dot(
    dims: &RaggedDotDims,
    precision: &[Precision],
    operands: &[Type],
    declared: Option<&[Type]>,
) -> InferResult<Vec<Type>> {
    let lhs = tensor(&operands[0], "lhs")?;
    let rhs = tensor(&operands[1], "rhs")?;
    let group_sizes = tensor(&operands[2], "group_sizes")?;
    if !group_sizes.element.is_integer() {
        return Err(format!(
            "group_sizes must be integers, got {}",
            group_sizes.element
        ));
    }
    let Some(&groups) = group_sizes.shape.last() else {
        return Err("group_sizes must have rank 1 or more".to_string());
    };
    let mode = dims.mode()?;
    check_dims(&dims.lhs_ragged, lhs.rank(), "lhs ragged dimension")?;
    check_dims(&dims.rhs_group, rhs.rank(), "rhs group dimension")?;
    let expected_group_dims = usize::from(mode == RaggedMode::NonContracting);
    check_len(&dims.rhs_group, expected_group_dims, "rhs group dimensions")?;
    let (rhs, dot) = match dims.rhs_group.first() {
        Some(&group) => {
            if dims.dot.rhs_batching.contains(&group) || dims.dot.rhs_contracting.contains(&group) {
                return Err(format!(
                    "rhs group dimension {group} is also a batching or contracting dimension"
                ));
            }
            let size = rhs.shape[group as usize];
            if !size.is_compatible(groups) {
                return Err(format!(
                    "rhs group dimension {group} has size {size}, group_sizes has {groups} groups"
                ));
            }
            without_dim(rhs, &dims.dot, group)
        }
        None => (rhs.clone(), dims.dot.clone()),
    };
    let shapes = [operands[0].clone(), Type::Tensor(rhs)];
    let mut result = super::contract::dot_general(&dot, precision, &shapes, declared)?;
    if mode == RaggedMode::Contracting
        && let Some(Type::Tensor(t)) = result.first_mut()
    {
        t.shape.insert(0, groups);
    }
    Ok(result)
}

/// `rhs` without dimension `group`, and `dims` renumbered to match.
fn without_dim(rhs: &TensorType, dims: &DotDims, group: i64) -> (TensorType, DotDims) {
    let mut shape: Vec<Dim> = rhs.shape.clone();
    shape.remove(group as usize);
    let renumber = |list: &[i64]| -> Vec<i64> {
        list.iter()
            .map(|&d| if d > group { d - 1 } else { d })
            .collect()
    };
    let dims = DotDims {
        lhs_batching: dims.lhs_batching.clone(),
        rhs_batching: renumber(&dims.rhs_batching),
        lhs_contracting: dims.lhs_contracting.clone(),
        rhs_contracting: renumber(&dims.rhs_contracting),
    };
    (TensorType::new(shape, rhs.element), dims)
}
