//! Shape ops: constant, iota, broadcasts, reshapes, transpose, concatenate, pad, reverse and
//! their dynamic variants.

use super::{InferResult, check_dims, check_len, declared_tensor, map_dim, scalar, tensor};
use crate::dense::DenseElements;
use crate::op::attr_name;
use crate::types::{Dim, ElementType, TensorType, Type};

/// `broadcast`: the operand under `sizes` new leading dimensions.
pub(super) fn broadcast(sizes: &[i64], operands: &[Type]) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    let mut shape = Vec::with_capacity(sizes.len() + operand.rank());
    for &size in sizes {
        let size = u64::try_from(size)
            .map_err(|_| format!("broadcast_sizes {sizes:?} holds a negative size"))?;
        shape.push(Dim::Static(size));
    }
    shape.extend(operand.shape.iter().copied());
    Ok(vec![Type::Tensor(TensorType::new(shape, operand.element))])
}

/// `set_dimension_size`: the operand with dimension `dimension` of the size a scalar i32
/// holds; the declared result says which static size it keeps, if any.
pub(super) fn set_dimension_size(
    dimension: i64,
    operands: &[Type],
    declared_types: Option<&[Type]>,
) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    let size = tensor(&operands[1], "size")?;
    if size.rank() != 0 || size.element != ElementType::I32 {
        return Err(format!("size must be a tensor<i32>, got {size}"));
    }
    check_dims(&[dimension], operand.rank(), attr_name::DIMENSION)?;
    let result = declared_tensor(declared_types)?;
    let kept: Vec<Dim> = operand
        .shape
        .iter()
        .enumerate()
        .map(|(i, &d)| {
            if i as i64 == dimension {
                Dim::Dynamic
            } else {
                d
            }
        })
        .collect();
    if result.element != operand.element || !crate::types::shapes_compatible(&kept, &result.shape) {
        return Err(format!(
            "result must be the operand {operand} with dimension {dimension} resized, got {result}"
        ));
    }
    Ok(vec![Type::Tensor(result.clone())])
}

pub(super) fn constant(data: &DenseElements, declared: Option<&[Type]>) -> InferResult<Vec<Type>> {
    let result = declared_tensor(declared)?;
    if !result.is_static() {
        return Err(format!("result type {result} must be static"));
    }
    if !data.fits(result) {
        return Err(format!(
            "{} bytes of data do not fit {result}",
            data.bytes().len()
        ));
    }
    Ok(vec![Type::Tensor(result.clone())])
}

pub(super) fn iota(dimension: i64, declared: Option<&[Type]>) -> InferResult<Vec<Type>> {
    let result = declared_tensor(declared)?;
    check_dims(&[dimension], result.rank(), "iota dimension")?;
    Ok(vec![Type::Tensor(result.clone())])
}

fn check_broadcast(dims: &[i64], operand: &TensorType, result: &TensorType) -> InferResult<()> {
    check_len(dims, operand.rank(), attr_name::BROADCAST_DIMENSIONS)?;
    check_dims(dims, result.rank(), "broadcast dimension")?;
    if operand.element != result.element {
        return Err(format!(
            "operand element type {} differs from result's {}",
            operand.element, result.element
        ));
    }
    for (i, &d) in dims.iter().enumerate() {
        let from = operand.shape[i];
        let to = result.shape[d as usize];
        if from != Dim::Static(1) && !from.is_compatible(to) {
            return Err(format!(
                "operand dimension {i} of size {from} cannot broadcast to result dimension {d} of size {to}"
            ));
        }
    }
    Ok(())
}

pub(super) fn broadcast_in_dim(
    dims: &[i64],
    operands: &[Type],
    declared: Option<&[Type]>,
) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    let result = declared_tensor(declared)?;
    check_broadcast(dims, operand, result)?;
    Ok(vec![Type::Tensor(result.clone())])
}

pub(super) fn reshape(operands: &[Type], declared: Option<&[Type]>) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    let result = declared_tensor(declared)?;
    if operand.element != result.element {
        return Err(format!(
            "operand element type {} differs from result's {}",
            operand.element, result.element
        ));
    }
    if !result.is_static() {
        return Err(format!(
            "result type {result} must be static (use dynamic_reshape)"
        ));
    }
    if let (Some(a), Some(b)) = (operand.num_elements(), result.num_elements())
        && a != b
    {
        return Err(format!("operand has {a} elements, result {b}"));
    }
    Ok(vec![Type::Tensor(result.clone())])
}

pub(super) fn transpose(permutation: &[i64], operands: &[Type]) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    check_len(permutation, operand.rank(), attr_name::PERMUTATION)?;
    check_dims(permutation, operand.rank(), "permutation entry")?;
    let shape = permutation
        .iter()
        .map(|&p| operand.shape[p as usize])
        .collect();
    Ok(vec![Type::Tensor(TensorType::new(shape, operand.element))])
}

pub(super) fn concatenate(dimension: i64, operands: &[Type]) -> InferResult<Vec<Type>> {
    let first = tensor(
        operands.first().ok_or("expects at least one input")?,
        "input",
    )?;
    check_dims(&[dimension], first.rank(), attr_name::DIMENSION)?;
    let axis = dimension as usize;
    let mut shape = first.shape.clone();
    for (i, ty) in operands.iter().enumerate().skip(1) {
        let input = tensor(ty, "input")?;
        if input.element != first.element || input.rank() != first.rank() {
            return Err(format!(
                "input {i} of type {input} does not match input 0 of type {first}"
            ));
        }
        for (d, (&a, &b)) in shape.clone().iter().zip(&input.shape).enumerate() {
            if d == axis {
                shape[d] = match (a, b) {
                    (Dim::Static(x), Dim::Static(y)) => Dim::Static(x + y),
                    _ => Dim::Dynamic,
                };
            } else if !a.is_compatible(b) {
                return Err(format!(
                    "input {i} has size {b} in dimension {d}, input 0 has {a}"
                ));
            } else {
                shape[d] = a.refine(b);
            }
        }
    }
    Ok(vec![Type::Tensor(TensorType::new(shape, first.element))])
}

pub(super) fn pad(
    low: &[i64],
    high: &[i64],
    interior: &[i64],
    operands: &[Type],
) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    let padding_value = tensor(&operands[1], "padding_value")?;
    if padding_value.rank() != 0 || padding_value.element != operand.element {
        return Err(format!(
            "padding_value must be a tensor<{}>, got {padding_value}",
            operand.element
        ));
    }
    let rank = operand.rank();
    check_len(low, rank, attr_name::EDGE_PADDING_LOW)?;
    check_len(high, rank, attr_name::EDGE_PADDING_HIGH)?;
    check_len(interior, rank, attr_name::INTERIOR_PADDING)?;
    let mut shape = Vec::with_capacity(rank);
    for d in 0..rank {
        if interior[d] < 0 {
            return Err(format!("interior padding {} is negative", interior[d]));
        }
        shape.push(map_dim(operand.shape[d], |size| {
            let padded = i64::try_from(size)
                .ok()
                .and_then(|size| {
                    let interiors = (size - 1).max(0).checked_mul(interior[d])?;
                    low[d]
                        .checked_add(high[d])?
                        .checked_add(size)?
                        .checked_add(interiors)
                })
                .ok_or_else(|| format!("dimension {d}: padded size overflows 64 bits"))?;
            u64::try_from(padded)
                .map_err(|_| format!("dimension {d} would have negative size {padded}"))
        })?);
    }
    Ok(vec![Type::Tensor(TensorType::new(shape, operand.element))])
}

pub(super) fn reverse(dims: &[i64], operands: &[Type]) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    check_dims(dims, operand.rank(), attr_name::DIMENSION)?;
    Ok(vec![operands[0].clone()])
}

/// A rank-1 integer tensor holding `len` entries (a shape or padding operand).
fn check_shape_operand(ty: &Type, len: usize, what: &str) -> InferResult<()> {
    let shape = tensor(ty, what)?;
    if shape.rank() != 1 || !shape.element.is_integer() {
        return Err(format!(
            "{what} must be a rank-1 integer tensor, got {shape}"
        ));
    }
    if !shape.shape[0].is_compatible(Dim::Static(len as u64)) {
        return Err(format!("{what} must have {len} entries, got {shape}"));
    }
    Ok(())
}

/// Each of `operands` a shape operand of `len` entries, named by `names`.
fn check_shape_operands<const N: usize>(
    operands: &[Type],
    len: usize,
    names: [&str; N],
) -> InferResult<()> {
    for (ty, what) in operands.iter().zip(names) {
        check_shape_operand(ty, len, what)?;
    }
    Ok(())
}

pub(super) fn dynamic_broadcast_in_dim(
    dims: &[i64],
    known_expanding: &[i64],
    known_nonexpanding: &[i64],
    operands: &[Type],
    declared: Option<&[Type]>,
) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    let result = declared_tensor(declared)?;
    check_broadcast(dims, operand, result)?;
    check_shape_operand(&operands[1], result.rank(), "output_dimensions")?;
    check_dims(known_expanding, operand.rank(), "known expanding dimension")?;
    check_dims(
        known_nonexpanding,
        operand.rank(),
        "known nonexpanding dimension",
    )?;
    if let Some(d) = known_expanding
        .iter()
        .find(|d| known_nonexpanding.contains(d))
    {
        return Err(format!(
            "dimension {d} is both known expanding and known nonexpanding"
        ));
    }
    Ok(vec![Type::Tensor(result.clone())])
}

pub(super) fn dynamic_reshape(
    operands: &[Type],
    declared: Option<&[Type]>,
) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    let result = declared_tensor(declared)?;
    if operand.element != result.element {
        return Err(format!(
            "operand element type {} differs from result's {}",
            operand.element, result.element
        ));
    }
    check_shape_operand(&operands[1], result.rank(), "output_shape")?;
    Ok(vec![Type::Tensor(result.clone())])
}

pub(super) fn dynamic_iota(
    dimension: i64,
    operands: &[Type],
    declared: Option<&[Type]>,
) -> InferResult<Vec<Type>> {
    let result = declared_tensor(declared)?;
    check_shape_operand(&operands[0], result.rank(), "output_shape")?;
    check_dims(&[dimension], result.rank(), "iota dimension")?;
    Ok(vec![Type::Tensor(result.clone())])
}

pub(super) fn get_dimension_size(dimension: i64, operands: &[Type]) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    check_dims(&[dimension], operand.rank(), attr_name::DIMENSION)?;
    Ok(vec![scalar(ElementType::I32)])
}

pub(super) fn dynamic_pad(operands: &[Type], declared: Option<&[Type]>) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    let padding_value = tensor(&operands[1], "padding_value")?;
    let result = declared_tensor(declared)?;
    if padding_value.rank() != 0 || padding_value.element != operand.element {
        return Err(format!(
            "padding_value must be a tensor<{}>, got {padding_value}",
            operand.element
        ));
    }
    same_rank_and_element(operand, result)?;
    check_shape_operands(
        &operands[2..],
        operand.rank(),
        [
            attr_name::EDGE_PADDING_LOW,
            attr_name::EDGE_PADDING_HIGH,
            attr_name::INTERIOR_PADDING,
        ],
    )?;
    Ok(vec![Type::Tensor(result.clone())])
}

pub(super) fn real_dynamic_slice(
    operands: &[Type],
    declared: Option<&[Type]>,
) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    let result = declared_tensor(declared)?;
    same_rank_and_element(operand, result)?;
    let index_types: Vec<_> = operands[1..]
        .iter()
        .map(|ty| tensor(ty, "index operand").map(|t| t.element))
        .collect::<InferResult<_>>()?;
    if index_types.windows(2).any(|pair| pair[0] != pair[1]) {
        return Err("start_indices, limit_indices and strides must have one element type".into());
    }
    check_shape_operands(
        &operands[1..],
        operand.rank(),
        [
            attr_name::START_INDICES,
            attr_name::LIMIT_INDICES,
            attr_name::STRIDES,
        ],
    )?;
    Ok(vec![Type::Tensor(result.clone())])
}

/// A result of the operand's rank and element type, with any sizes.
fn same_rank_and_element(operand: &TensorType, result: &TensorType) -> InferResult<()> {
    if result.rank() != operand.rank() || result.element != operand.element {
        return Err(format!(
            "result {result} must have the operand's rank and element type ({operand})"
        ));
    }
    Ok(())
}
