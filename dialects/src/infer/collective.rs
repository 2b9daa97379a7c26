//! Collectives: all_reduce, all_gather, reduce_scatter, all_to_all, collective_permute,
//! collective_broadcast.

use std::collections::HashSet;

use super::{InferResult, RegionSig, check_dims, checked_product, list, map_dim, scalar, tensor};
use crate::attr::CollectiveAttrs;
use crate::op::attr_name;
use crate::types::{TensorType, Type};

/// Replica (or device) ids: none negative, none twice, and together every id from 0 to their
/// count; groups of one size unless `padding` (`all_reduce`'s may differ, the parser drops the
/// `-1` that pads them); with global device ids there must be groups.
fn check_groups(groups: &[Vec<i64>], padding: bool, global_ids: bool) -> InferResult<()> {
    if global_ids && groups.iter().all(Vec::is_empty) {
        return Err("replica_groups cannot be empty with use_global_device_ids".to_string());
    }
    if !padding
        && let Some(first) = groups.first()
        && let Some(other) = groups.iter().find(|g| g.len() != first.len())
    {
        return Err(format!(
            "replica groups must have one size, got {} and {} (no -1 padding here)",
            first.len(),
            other.len()
        ));
    }
    let mut seen = HashSet::new();
    for &id in groups.iter().flatten() {
        if id == -1 && padding {
            continue;
        }
        if id < 0 {
            return Err(format!("replica id {id} is negative"));
        }
        if !seen.insert(id) {
            return Err(format!("replica id {id} appears twice in replica_groups"));
        }
    }
    if let Some(missing) = (0..seen.len() as i64).find(|id| !seen.contains(id)) {
        return Err(format!(
            "replica id {missing} is missing: replica_groups must hold every id from 0 to {}",
            seen.len() - 1
        ));
    }
    Ok(())
}

/// all_reduce's, all_gather's and reduce_scatter's C4 (C5 for reduce_scatter): with global
/// device ids, a positive channel id.
fn check_channel(collective: &CollectiveAttrs) -> InferResult<()> {
    let id = collective.channel.map_or(0, |c| c.handle);
    if collective.use_global_device_ids && id <= 0 {
        return Err(format!(
            "C4: use_global_device_ids needs a positive channel id, got {id}"
        ));
    }
    Ok(())
}

fn group_size(collective: &CollectiveAttrs) -> InferResult<Option<u64>> {
    check_channel(collective)?;
    check_groups(
        &collective.replica_groups,
        false,
        collective.use_global_device_ids,
    )?;
    Ok(collective.replica_groups.first().map(|g| g.len() as u64))
}

pub(super) fn all_reduce(
    collective: &CollectiveAttrs,
    operands: &[Type],
    regions: &[RegionSig],
) -> InferResult<Vec<Type>> {
    check_channel(collective)?;
    check_groups(
        &collective.replica_groups,
        true,
        collective.use_global_device_ids,
    )?;
    let first = tensor(
        operands.first().ok_or("expects at least one operand")?,
        "operand",
    )?;
    for ty in operands {
        if tensor(ty, "operand")?.element != first.element {
            return Err(format!("operands mix element types: {}", list(operands)));
        }
    }
    // The computation's element type: the operands', or a wider one they promote to (C5).
    let element = super::reduce::body_elements(&[first.element], &regions[0])[0];
    let returns = [scalar(element)];
    if regions[0].returns != returns {
        return Err(format!(
            "computation must return ({}), returns ({})",
            list(&returns),
            list(&regions[0].returns)
        ));
    }
    operands
        .iter()
        .map(|ty| Ok(Type::Tensor(tensor(ty, "operand")?.with_element(element))))
        .collect()
}

pub(super) fn all_gather(
    dimension: i64,
    collective: &CollectiveAttrs,
    operands: &[Type],
    declared: Option<&[Type]>,
) -> InferResult<Vec<Type>> {
    let size = group_size(collective)?;
    let mut results = Vec::with_capacity(operands.len());
    for ty in operands {
        let operand = tensor(ty, "operand")?;
        check_dims(&[dimension], operand.rank(), attr_name::ALL_GATHER_DIM)?;
        let mut shape = operand.shape.clone();
        let d = dimension as usize;
        shape[d] = match size {
            Some(size) => map_dim(shape[d], |s| checked_product(s, size))?,
            None => declared
                .and_then(|types| types.get(results.len()))
                .and_then(Type::as_tensor)
                .map(|t| t.shape[d])
                .unwrap_or(crate::types::Dim::Dynamic),
        };
        results.push(Type::Tensor(TensorType::new(shape, operand.element)));
    }
    Ok(results)
}

pub(super) fn reduce_scatter(
    dimension: i64,
    collective: &CollectiveAttrs,
    operands: &[Type],
    regions: &[RegionSig],
    declared: Option<&[Type]>,
) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    check_dims(&[dimension], operand.rank(), attr_name::SCATTER_DIMENSION)?;
    let reduced = all_reduce(collective, operands, regions)?;
    let element = tensor(&reduced[0], "result")?.element;
    let d = dimension as usize;
    let mut shape = operand.shape.clone();
    shape[d] = match group_size(collective)? {
        Some(size) => map_dim(shape[d], |s| {
            if size == 0 || s % size != 0 {
                Err(format!(
                    "dimension size {s} is not divisible by the group size {size}"
                ))
            } else {
                Ok(s / size)
            }
        })?,
        None => declared
            .and_then(|types| types.first())
            .and_then(Type::as_tensor)
            .map(|t| t.shape[d])
            .unwrap_or(crate::types::Dim::Dynamic),
    };
    Ok(vec![Type::Tensor(TensorType::new(shape, element))])
}

pub(super) fn all_to_all(
    split_dimension: i64,
    concat_dimension: i64,
    split_count: i64,
    replica_groups: &[Vec<i64>],
    operands: &[Type],
) -> InferResult<Vec<Type>> {
    check_groups(replica_groups, false, false)?;
    if split_count <= 0 {
        return Err(format!("split_count must be positive, got {split_count}"));
    }
    let count = split_count as u64;
    operands
        .iter()
        .map(|ty| {
            let operand = tensor(ty, "operand")?;
            check_dims(
                &[split_dimension],
                operand.rank(),
                attr_name::SPLIT_DIMENSION,
            )?;
            check_dims(
                &[concat_dimension],
                operand.rank(),
                attr_name::CONCAT_DIMENSION,
            )?;
            let mut shape = operand.shape.clone();
            let split = split_dimension as usize;
            shape[split] = map_dim(shape[split], |s| {
                if s % count != 0 {
                    Err(format!(
                        "split dimension size {s} is not divisible by {count}"
                    ))
                } else {
                    Ok(s / count)
                }
            })?;
            let concat = concat_dimension as usize;
            shape[concat] = map_dim(shape[concat], |s| checked_product(s, count))?;
            Ok(Type::Tensor(TensorType::new(shape, operand.element)))
        })
        .collect()
}

pub(super) fn collective_permute(
    pairs: &[(i64, i64)],
    operands: &[Type],
) -> InferResult<Vec<Type>> {
    tensor(&operands[0], "operand")?;
    let (mut sources, mut targets) = (HashSet::new(), HashSet::new());
    for &(source, target) in pairs {
        if source < 0 || target < 0 {
            return Err(format!("pair ({source}, {target}) has a negative id"));
        }
        if !sources.insert(source) {
            return Err(format!("source {source} appears twice"));
        }
        if !targets.insert(target) {
            return Err(format!("target {target} appears twice"));
        }
    }
    Ok(operands.to_vec())
}

/// `collective_broadcast`: each operand comes back with its type (C3); replica ids are unique
/// (C1); with `has_dynamic_root`, the last operand is a rank-1 i32 tensor, one root per
/// operand.
pub(super) fn collective_broadcast(
    replica_groups: &[Vec<i64>],
    has_dynamic_root: bool,
    operands: &[Type],
) -> InferResult<Vec<Type>> {
    check_groups(replica_groups, false, false).map_err(|e| format!("C1: {e}"))?;
    if !has_dynamic_root {
        return Ok(operands.to_vec());
    }
    let (root, data) = operands
        .split_last()
        .ok_or("has_dynamic_root needs a root operand")?;
    let root = tensor(root, "root")?;
    let count = data.len() as u64;
    if root.element != crate::types::ElementType::I32
        || root.rank() != 1
        || root.shape[0] != count.into()
    {
        return Err(format!(
            "the root must be a tensor<{count}xi32> (one per operand), got {root}"
        ));
    }
    Ok(data.to_vec())
}
