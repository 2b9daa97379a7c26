//! Indexing ops: slices, gather, scatter.

use super::{InferResult, RegionSig, check_dims, check_len, declared_tensor, list, scalar, tensor};
use crate::attr::{GatherDims, ScatterDims};
use crate::op::attr_name;
use crate::types::{Dim, TensorType, Type};

pub(super) fn slice(
    start: &[i64],
    limit: &[i64],
    strides: &[i64],
    operands: &[Type],
) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    let rank = operand.rank();
    check_len(start, rank, attr_name::START_INDICES)?;
    check_len(limit, rank, attr_name::LIMIT_INDICES)?;
    check_len(strides, rank, attr_name::STRIDES)?;
    let mut shape = Vec::with_capacity(rank);
    for d in 0..rank {
        let (lo, hi, stride) = (start[d], limit[d], strides[d]);
        if lo < 0 || hi < lo || stride <= 0 {
            return Err(format!(
                "dimension {d}: need 0 <= start ({lo}) <= limit ({hi}) and stride ({stride}) > 0"
            ));
        }
        if let Dim::Static(size) = operand.shape[d]
            && hi as u64 > size
        {
            return Err(format!("dimension {d}: limit {hi} exceeds the size {size}"));
        }
        shape.push(Dim::Static(((hi - lo) as u64).div_ceil(stride as u64)));
    }
    Ok(vec![Type::Tensor(TensorType::new(shape, operand.element))])
}

/// Start indices: `count` rank-0 integer tensors of one element type.
fn check_start_indices(indices: &[Type], count: usize) -> InferResult<()> {
    check_len(indices, count, attr_name::START_INDICES)?;
    let mut element = None;
    for ty in indices {
        let index = tensor(ty, "start index")?;
        if index.rank() != 0 || !index.element.is_integer() {
            return Err(format!(
                "start indices must be rank-0 integer tensors, got {index}"
            ));
        }
        if *element.get_or_insert(index.element) != index.element {
            return Err(format!(
                "start indices mix element types: {}",
                list(indices)
            ));
        }
    }
    Ok(())
}

/// That a slice of `size` elements fits dimension `d`, of extent `dim`.
fn check_slice_fits(d: usize, size: i64, dim: &Dim) -> InferResult<()> {
    let fits = match dim {
        Dim::Static(n) => (0..=*n as i64).contains(&size),
        Dim::Dynamic => size >= 0,
    };
    if !fits {
        return Err(format!(
            "slice size {size} does not fit dimension {d} of size {dim}"
        ));
    }
    Ok(())
}

pub(super) fn dynamic_slice(sizes: &[i64], operands: &[Type]) -> InferResult<Vec<Type>> {
    let operand = tensor(operands.first().ok_or("expects an operand")?, "operand")?;
    let rank = operand.rank();
    check_start_indices(&operands[1..], rank)?;
    check_len(sizes, rank, attr_name::SLICE_SIZES)?;
    for (d, (&size, dim)) in sizes.iter().zip(&operand.shape).enumerate() {
        check_slice_fits(d, size, dim)?;
    }
    let shape = sizes.iter().map(|&s| Dim::Static(s as u64)).collect();
    Ok(vec![Type::Tensor(TensorType::new(shape, operand.element))])
}

pub(super) fn dynamic_update_slice(operands: &[Type]) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    let update = tensor(&operands[1], "update")?;
    if update.rank() != operand.rank() || update.element != operand.element {
        return Err(format!(
            "update {update} must have the operand's rank and element type ({operand})"
        ));
    }
    for (d, (u, o)) in update.shape.iter().zip(&operand.shape).enumerate() {
        if let (Dim::Static(u), Dim::Static(o)) = (u, o)
            && u > o
        {
            return Err(format!(
                "update size {u} exceeds operand size {o} in dimension {d}"
            ));
        }
    }
    check_start_indices(&operands[2..], operand.rank())?;
    Ok(vec![operands[0].clone()])
}

fn check_sorted_dims(dims: &[i64], rank: usize, what: &str) -> InferResult<()> {
    check_dims(dims, rank, what)?;
    if dims.windows(2).any(|w| w[0] > w[1]) {
        return Err(format!("{what}s must be sorted"));
    }
    Ok(())
}

/// Size of the index vector of `indices` at `index_vector_dim`.
fn index_vector_size(indices: &TensorType, index_vector_dim: i64) -> InferResult<Dim> {
    if index_vector_dim < 0 || index_vector_dim as usize > indices.rank() {
        return Err(format!(
            "index_vector_dim {index_vector_dim} is out of range [0, {}]",
            indices.rank()
        ));
    }
    Ok(indices
        .shape
        .get(index_vector_dim as usize)
        .copied()
        .unwrap_or(Dim::Static(1)))
}

fn check_batching(
    operand_dims: &[i64],
    operand_rank: usize,
    indices_dims: &[i64],
    indices: &TensorType,
    index_vector_dim: i64,
) -> InferResult<()> {
    check_dims(operand_dims, operand_rank, "operand batching dimension")?;
    check_dims(indices_dims, indices.rank(), "indices batching dimension")?;
    check_len(
        indices_dims,
        operand_dims.len(),
        "indices batching dimensions",
    )?;
    if indices_dims.contains(&index_vector_dim) {
        return Err("index_vector_dim cannot be a batching dimension".into());
    }
    Ok(())
}

fn check_gather_dims(
    dims: &GatherDims,
    operand: &TensorType,
    indices: &TensorType,
) -> InferResult<()> {
    if !indices.element.is_integer() {
        return Err(format!("start_indices must be integers, got {indices}"));
    }
    let index_size = index_vector_size(indices, dims.index_vector_dim)?;
    check_sorted_dims(
        &dims.collapsed_slice_dims,
        operand.rank(),
        "collapsed slice dimension",
    )?;
    check_batching(
        &dims.operand_batching_dims,
        operand.rank(),
        &dims.start_indices_batching_dims,
        indices,
        dims.index_vector_dim,
    )?;
    if let Some(d) = dims
        .collapsed_slice_dims
        .iter()
        .find(|d| dims.operand_batching_dims.contains(d))
    {
        return Err(format!(
            "dimension {d} is both collapsed and a batching dimension"
        ));
    }
    check_dims(
        &dims.start_index_map,
        operand.rank(),
        "start_index_map entry",
    )?;
    if !index_size.is_compatible(Dim::Static(dims.start_index_map.len() as u64)) {
        return Err(format!(
            "start_index_map has {} entries, the index vector {index_size}",
            dims.start_index_map.len()
        ));
    }
    let offset_count =
        operand.rank() - dims.collapsed_slice_dims.len() - dims.operand_batching_dims.len();
    check_len(&dims.offset_dims, offset_count, "offset_dims")?;
    Ok(())
}

/// Result shape of gather given the slice sizes (`None` when they are not known).
fn gather_shape(
    dims: &GatherDims,
    indices: &TensorType,
    slice_sizes: Option<&[i64]>,
    operand_rank: usize,
) -> InferResult<Vec<Dim>> {
    let batch: Vec<Dim> = indices
        .shape
        .iter()
        .enumerate()
        .filter(|(d, _)| *d as i64 != dims.index_vector_dim)
        .map(|(_, &dim)| dim)
        .collect();
    let offsets: Vec<Dim> = (0..operand_rank as i64)
        .filter(|d| {
            !dims.collapsed_slice_dims.contains(d) && !dims.operand_batching_dims.contains(d)
        })
        .map(|d| match slice_sizes {
            Some(sizes) => Dim::Static(sizes[d as usize] as u64),
            None => Dim::Dynamic,
        })
        .collect();
    let rank = batch.len() + offsets.len();
    check_sorted_dims(&dims.offset_dims, rank, "offset dimension")?;
    let (mut batch, mut offsets) = (batch.into_iter(), offsets.into_iter());
    Ok((0..rank as i64)
        .map(|d| {
            if dims.offset_dims.contains(&d) {
                offsets.next()
            } else {
                batch.next()
            }
            .unwrap_or(Dim::Dynamic)
        })
        .collect())
}

pub(super) fn gather(
    dims: &GatherDims,
    slice_sizes: &[i64],
    operands: &[Type],
) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    let indices = tensor(&operands[1], attr_name::START_INDICES)?;
    check_gather_dims(dims, operand, indices)?;
    check_len(slice_sizes, operand.rank(), attr_name::SLICE_SIZES)?;
    for (d, (&size, dim)) in slice_sizes.iter().zip(&operand.shape).enumerate() {
        check_slice_fits(d, size, dim)?;
        let collapsed = dims.collapsed_slice_dims.contains(&(d as i64))
            || dims.operand_batching_dims.contains(&(d as i64));
        if collapsed && size > 1 {
            return Err(format!(
                "collapsed or batching dimension {d} must have slice size <= 1, got {size}"
            ));
        }
    }
    let shape = gather_shape(dims, indices, Some(slice_sizes), operand.rank())?;
    Ok(vec![Type::Tensor(TensorType::new(shape, operand.element))])
}

pub(super) fn dynamic_gather(
    dims: &GatherDims,
    operands: &[Type],
    declared: Option<&[Type]>,
) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    let indices = tensor(&operands[1], attr_name::START_INDICES)?;
    check_gather_dims(dims, operand, indices)?;
    let sizes = tensor(&operands[2], attr_name::SLICE_SIZES)?;
    if sizes.rank() != 1 || !sizes.element.is_integer() {
        return Err(format!(
            "slice_sizes must be a rank-1 integer tensor, got {sizes}"
        ));
    }
    let result = declared_tensor(declared)?;
    let shape = gather_shape(dims, indices, None, operand.rank())?;
    let inferred = TensorType::new(shape, operand.element);
    if !result.is_compatible(&inferred) {
        return Err(format!("result {result} does not match {inferred}"));
    }
    Ok(vec![Type::Tensor(result.clone())])
}

pub(super) fn scatter(
    dims: &ScatterDims,
    operands: &[Type],
    regions: &[RegionSig],
) -> InferResult<Vec<Type>> {
    if operands.len() < 3 || operands.len().is_multiple_of(2) {
        return Err(format!(
            "expects N inputs, the indices and N updates, got {} operand(s)",
            operands.len()
        ));
    }
    let n = (operands.len() - 1) / 2;
    let inputs = &operands[..n];
    let indices = tensor(&operands[n], "scatter_indices")?;
    let updates = &operands[n + 1..];
    let first = tensor(&inputs[0], "input")?;
    for ty in inputs {
        let input = tensor(ty, "input")?;
        if !crate::types::shapes_compatible(&input.shape, &first.shape) {
            return Err(format!("inputs differ in shape: {}", list(inputs)));
        }
    }
    if !indices.element.is_integer() {
        return Err(format!("scatter_indices must be integers, got {indices}"));
    }
    let index_size = index_vector_size(indices, dims.index_vector_dim)?;
    let rank = first.rank();
    check_sorted_dims(
        &dims.inserted_window_dims,
        rank,
        "inserted window dimension",
    )?;
    check_batching(
        &dims.input_batching_dims,
        rank,
        &dims.scatter_indices_batching_dims,
        indices,
        dims.index_vector_dim,
    )?;
    check_dims(
        &dims.scatter_dims_to_operand_dims,
        rank,
        "scatter_dims_to_operand_dims entry",
    )?;
    if !index_size.is_compatible(Dim::Static(dims.scatter_dims_to_operand_dims.len() as u64)) {
        return Err(format!(
            "scatter_dims_to_operand_dims has {} entries, the index vector {index_size}",
            dims.scatter_dims_to_operand_dims.len()
        ));
    }
    check_len(
        &dims.update_window_dims,
        rank - dims.inserted_window_dims.len() - dims.input_batching_dims.len(),
        "update_window_dims",
    )?;
    let scatter_rank =
        indices.rank() - usize::from((dims.index_vector_dim as usize) < indices.rank());
    for (i, (ty, input)) in updates.iter().zip(inputs).enumerate() {
        let update = tensor(ty, "update")?;
        let input = tensor(input, "input")?;
        if update.element != input.element {
            return Err(format!(
                "update {i} has element type {}, input {}",
                update.element, input.element
            ));
        }
        if update.rank() != scatter_rank + dims.update_window_dims.len() {
            return Err(format!(
                "update {i} of type {update} must have rank {}",
                scatter_rank + dims.update_window_dims.len()
            ));
        }
        check_sorted_dims(
            &dims.update_window_dims,
            update.rank(),
            "update window dimension",
        )?;
    }
    let returns: Vec<Type> = inputs
        .iter()
        .map(|ty| Ok(scalar(tensor(ty, "input")?.element)))
        .collect::<InferResult<_>>()?;
    if regions[0].returns != returns {
        return Err(format!(
            "update_computation must return ({}), returns ({})",
            list(&returns),
            list(&regions[0].returns)
        ));
    }
    Ok(inputs.to_vec())
}
