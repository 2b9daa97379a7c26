//! Ops with a body: reduce, reduce_window, select_and_scatter, sort, map.

use super::contract::window_output;
use super::{InferResult, RegionSig, check_dims, check_len, list, scalar, tensor};
use crate::attr::WindowAttrs;
use crate::op::attr_name;
use crate::types::{Dim, ElementType, TensorType, Type, shapes_compatible};

/// Splits `inputs..., init_values...` and checks the inputs share a shape and the inits are scalars.
fn inputs_and_inits(operands: &[Type]) -> InferResult<(Vec<&TensorType>, Vec<ElementType>)> {
    if operands.is_empty() || !operands.len().is_multiple_of(2) {
        return Err(format!(
            "expects N inputs and N init values, got {} operand(s)",
            operands.len()
        ));
    }
    let n = operands.len() / 2;
    let inputs: Vec<&TensorType> = operands[..n]
        .iter()
        .map(|ty| tensor(ty, "input"))
        .collect::<InferResult<_>>()?;
    for input in &inputs {
        if !shapes_compatible(&input.shape, &inputs[0].shape) {
            return Err(format!("inputs differ in shape: {}", list(&operands[..n])));
        }
    }
    let mut elements = Vec::with_capacity(n);
    for (i, ty) in operands[n..].iter().enumerate() {
        let init = tensor(ty, "init value")?;
        if init.rank() != 0 {
            return Err(format!("init value {i} must be rank 0, got {init}"));
        }
        if init.element != inputs[i].element {
            return Err(format!(
                "init value {i} has element type {}, input {}",
                init.element, inputs[i].element
            ));
        }
        elements.push(init.element);
    }
    Ok((inputs, elements))
}

/// The element types of a reduction body's first arguments, or `inputs` where it has none.
pub(super) fn body_elements(inputs: &[ElementType], body: &RegionSig) -> Vec<ElementType> {
    inputs
        .iter()
        .enumerate()
        .map(|(i, &e)| {
            body.args
                .get(i)
                .and_then(Type::as_tensor)
                .map_or(e, |t| t.element)
        })
        .collect()
}

pub(super) fn reduce(
    dimensions: &[i64],
    operands: &[Type],
    regions: &[RegionSig],
) -> InferResult<Vec<Type>> {
    let (inputs, elements) = inputs_and_inits(operands)?;
    check_dims(dimensions, inputs[0].rank(), attr_name::DIMENSION)?;
    // The body's element types: the inputs', or wider ones they promote to (C6).
    let elements = body_elements(&elements, &regions[0]);
    let scalars: Vec<Type> = elements.iter().map(|&e| scalar(e)).collect();
    regions[0].check_returns(&scalars, "body")?;
    let shape: Vec<Dim> = (0..inputs[0].rank())
        .filter(|d| !dimensions.contains(&(*d as i64)))
        .map(|d| inputs[0].shape[d])
        .collect();
    Ok(elements
        .iter()
        .map(|&e| Type::Tensor(TensorType::new(shape.clone(), e)))
        .collect())
}

fn or_default(values: &[i64], rank: usize, what: &str) -> InferResult<Vec<i64>> {
    if values.is_empty() {
        return Ok(vec![1; rank]);
    }
    check_len(values, rank, what)?;
    if let Some(v) = values.iter().find(|&&v| v <= 0) {
        return Err(format!("{what} must be positive, got {v}"));
    }
    Ok(values.to_vec())
}

fn window_shape(window: &WindowAttrs, input: &TensorType) -> InferResult<Vec<Dim>> {
    let rank = input.rank();
    check_len(
        &window.window_dimensions,
        rank,
        attr_name::WINDOW_DIMENSIONS,
    )?;
    let dims = or_default(
        &window.window_dimensions,
        rank,
        attr_name::WINDOW_DIMENSIONS,
    )?;
    let strides = or_default(&window.window_strides, rank, attr_name::WINDOW_STRIDES)?;
    let base = or_default(&window.base_dilations, rank, attr_name::BASE_DILATIONS)?;
    let dilations = or_default(&window.window_dilations, rank, attr_name::WINDOW_DILATIONS)?;
    let padding = if window.padding.is_empty() {
        vec![(0, 0); rank]
    } else {
        check_len(&window.padding, rank, attr_name::PADDING)?;
        window.padding.clone()
    };
    (0..rank)
        .map(|d| match input.shape[d] {
            Dim::Static(size) => Ok(Dim::Static(window_output(
                size,
                dims[d] as u64,
                strides[d],
                padding[d],
                base[d],
                dilations[d],
            )?)),
            Dim::Dynamic => Ok(Dim::Dynamic),
        })
        .collect()
}

pub(super) fn reduce_window(
    window: &WindowAttrs,
    operands: &[Type],
    regions: &[RegionSig],
) -> InferResult<Vec<Type>> {
    let (inputs, elements) = inputs_and_inits(operands)?;
    let scalars: Vec<Type> = elements.iter().map(|&e| scalar(e)).collect();
    regions[0].check_returns(&scalars, "body")?;
    let shape = window_shape(window, inputs[0])?;
    Ok(elements
        .iter()
        .map(|&e| Type::Tensor(TensorType::new(shape.clone(), e)))
        .collect())
}

pub(super) fn select_and_scatter(
    window_dimensions: &[i64],
    window_strides: &[i64],
    padding: &[(i64, i64)],
    operands: &[Type],
    regions: &[RegionSig],
) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    let source = tensor(&operands[1], "source")?;
    let init = tensor(&operands[2], "init_value")?;
    if source.element != operand.element {
        return Err(format!(
            "source has element type {}, operand {}",
            source.element, operand.element
        ));
    }
    if init.rank() != 0 || init.element != source.element {
        return Err(format!(
            "init_value must be a tensor<{}>, got {init}",
            source.element
        ));
    }
    let window = WindowAttrs {
        window_dimensions: window_dimensions.to_vec(),
        window_strides: window_strides.to_vec(),
        padding: padding.to_vec(),
        ..WindowAttrs::default()
    };
    let windows = window_shape(&window, operand)?;
    if !shapes_compatible(&windows, &source.shape) {
        return Err(format!(
            "source {source} must have one element per window, shape {}",
            super::shape_str(&windows)
        ));
    }
    regions[0].check_returns(&[scalar(ElementType::I1)], "select")?;
    regions[1].check_returns(&[scalar(source.element)], "scatter")?;
    Ok(vec![operands[0].clone()])
}

pub(super) fn sort(
    dimension: i64,
    operands: &[Type],
    regions: &[RegionSig],
) -> InferResult<Vec<Type>> {
    let first = tensor(
        operands.first().ok_or("expects at least one input")?,
        "input",
    )?;
    for ty in operands {
        let input = tensor(ty, "input")?;
        if !shapes_compatible(&input.shape, &first.shape) {
            return Err(format!("inputs differ in shape: {}", list(operands)));
        }
    }
    let rank = first.rank() as i64;
    if dimension < -rank || dimension >= rank {
        return Err(format!(
            "dimension {dimension} is out of range [{}, {rank})",
            -rank
        ));
    }
    regions[0].check_returns(&[scalar(ElementType::I1)], "comparator")?;
    Ok(operands.to_vec())
}

/// `map`: inputs of one shape (C1), `dimensions` all of them in order (C2), a computation from
/// one scalar of each input to one scalar (C3); the result has the inputs' shape and the
/// computation's element type (C4).
pub(super) fn map(
    dimensions: &[i64],
    operands: &[Type],
    regions: &[RegionSig],
) -> InferResult<Vec<Type>> {
    let first = tensor(&operands[0], "input")?;
    for ty in &operands[1..] {
        let input = tensor(ty, "input")?;
        if !shapes_compatible(&input.shape, &first.shape) {
            return Err(format!(
                "C1: inputs must have one shape, got {}",
                list(operands)
            ));
        }
    }
    let all: Vec<i64> = (0..first.rank() as i64).collect();
    if dimensions != all.as_slice() {
        return Err(format!(
            "C2: dimensions must be {all:?}, got {dimensions:?}"
        ));
    }
    let [Type::Tensor(returned)] = regions[0].returns.as_slice() else {
        return Err(format!(
            "C3: computation must return one scalar tensor, returns ({})",
            list(&regions[0].returns)
        ));
    };
    if returned.rank() != 0 {
        return Err(format!(
            "C3: computation must return a scalar, returns {returned}"
        ));
    }
    Ok(vec![Type::Tensor(TensorType::new(
        first.shape.clone(),
        returned.element,
    ))])
}
