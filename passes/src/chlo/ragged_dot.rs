//! `chlo.ragged_dot` in all three modes, for static shapes and one list of group sizes
//! (`group_sizes` of rank 1). Group `i` holds the rows `[start_i, end_i)` of the ragged
//! dimension, `end = cumsum(group_sizes)`.
//! - non-contracting: the lhs is broadcast over a new leading group dimension, zeroed outside
//!   each group's rows, and that dimension is contracted with the rhs group dimension (rows
//!   past the last group give zeros);
//! - contracting: the same masked lhs, its group dimension kept as the leading result one;
//! - batch: every group of batches meets the same rhs, so it is the plain dot_general, as
//!   JAX computes it (batches past the last group included).

use tpuc_ir::{
    ComparisonDirection, DotDims, ElementType, IrError, OpBuilder, Precision, RaggedDotDims,
    RaggedMode, TensorType, Value,
};

use super::Built;

pub(super) fn ragged_dot(
    b: &mut OpBuilder<'_>,
    dims: &RaggedDotDims,
    precision: &[Precision],
    operands: &[Value],
    result: ElementType,
) -> Built {
    let (lhs, rhs, sizes) = (operands[0], operands[1], operands[2]);
    let lhs_ty = b.tensor_type(lhs)?.clone();
    let sizes_ty = b.tensor_type(sizes)?.clone();
    let (Some(lhs_shape), Some(sizes_shape), Ok(mode)) =
        (lhs_ty.static_shape(), sizes_ty.static_shape(), dims.mode())
    else {
        return Ok(None);
    };
    if !b.tensor_type(rhs)?.is_static() || sizes_shape.len() != 1 {
        return Ok(None);
    }
    let ragged = dims.lhs_ragged[0];
    let groups = sizes_shape[0];
    let extent = lhs_shape[ragged as usize];
    let precision = precision.to_vec();
    match mode {
        RaggedMode::Batch => Ok(Some(vec![b.dot_general_to(
            lhs,
            rhs,
            dims.dot.clone(),
            precision,
            result,
        )?])),
        RaggedMode::NonContracting | RaggedMode::Contracting => {
            let mask = group_mask(b, sizes, groups, extent)?;
            let mut shape = vec![groups];
            shape.extend(&lhs_shape);
            let rank = lhs_shape.len() as i64;
            let all: Vec<i64> = (1..=rank).collect();
            let spread = b.broadcast_in_dim(lhs, &all, shape.clone())?;
            let mask = b.broadcast_in_dim(mask, &[0, ragged + 1], shape.clone())?;
            let zero = b.splat(lhs_ty.element, shape, 0.0)?;
            let masked = b.select(mask, spread, zero)?;
            let shifted = |list: &[i64]| list.iter().map(|d| d + 1).collect::<Vec<_>>();
            let d = &dims.dot;
            let contracted = if mode == RaggedMode::NonContracting {
                DotDims {
                    lhs_batching: shifted(&d.lhs_batching),
                    rhs_batching: d.rhs_batching.clone(),
                    lhs_contracting: [vec![0], shifted(&d.lhs_contracting)].concat(),
                    rhs_contracting: [dims.rhs_group.clone(), d.rhs_contracting.clone()].concat(),
                }
            } else {
                DotDims {
                    lhs_batching: shifted(&d.lhs_batching),
                    rhs_batching: d.rhs_batching.clone(),
                    lhs_contracting: shifted(&d.lhs_contracting),
                    rhs_contracting: d.rhs_contracting.clone(),
                }
            };
            let product = b.dot_general_to(masked, rhs, contracted, precision, result)?;
            let batch = d.lhs_batching.len() as i64;
            if mode == RaggedMode::NonContracting || batch == 0 {
                return Ok(Some(vec![product]));
            }
            // The group dimension follows the batch dimensions; the result wants it first.
            let result_rank = b.tensor_type(product)?.rank() as i64;
            let permutation: Vec<i64> = std::iter::once(batch)
                .chain((0..result_rank).filter(|&i| i != batch))
                .collect();
            Ok(Some(vec![b.transpose(product, &permutation)?]))
        }
    }
}

/// `[groups, extent]`: whether row `j` lies in group `i`.
fn group_mask(
    b: &mut OpBuilder<'_>,
    sizes: Value,
    groups: u64,
    extent: u64,
) -> Result<Value, IrError> {
    let element = b.tensor_type(sizes)?.element;
    let ends = cumulative_sum(b, sizes, groups)?;
    let starts = b.subtract(ends, sizes)?;
    let shape = [groups, extent];
    let row = b.iota(TensorType::of(&shape, element), 1)?;
    let starts = b.broadcast_in_dim(starts, &[0], shape)?;
    let ends = b.broadcast_in_dim(ends, &[0], shape)?;
    let after_start = b.compare(ComparisonDirection::Le, starts, row)?;
    let before_end = b.compare(ComparisonDirection::Lt, row, ends)?;
    b.and(after_start, before_end)
}

/// `ends[i] = Σ_{j ≤ i} sizes[j]`, as a masked row sum over `[groups, groups]`.
fn cumulative_sum(b: &mut OpBuilder<'_>, sizes: Value, groups: u64) -> Result<Value, IrError> {
    let element = b.tensor_type(sizes)?.element;
    let shape = [groups, groups];
    let square = b.broadcast_in_dim(sizes, &[1], shape)?;
    let i = b.iota(TensorType::of(&shape, element), 0)?;
    let j = b.iota(TensorType::of(&shape, element), 1)?;
    let included = b.compare(ComparisonDirection::Le, j, i)?;
    let zero = b.splat_i64(element, shape, 0)?;
    let terms = b.select(included, square, zero)?;
    row_sum(b, terms, &[1])
}

fn row_sum(b: &mut OpBuilder<'_>, values: Value, dimensions: &[i64]) -> Result<Value, IrError> {
    let element = b.tensor_type(values)?.element;
    let start = b.splat_i64(element, Vec::<u64>::new(), 0)?;
    let sums = b.reduce(&[values], &[start], dimensions, |b, a| {
        Ok(vec![b.add(a[0], a[1])?])
    })?;
    Ok(sums[0])
}
