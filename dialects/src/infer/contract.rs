//! Contractions: dot_general and convolution.

use std::collections::HashSet;

use super::{InferResult, check_dims, check_len, declared_tensor, map_dim, tensor};
use crate::attr::{ConvAttrs, DotDims, Precision};
use crate::op::attr_name;
use crate::types::{Dim, ElementType, TensorType, Type};

fn check_precision(precision: &[Precision]) -> InferResult<()> {
    if precision.is_empty() || precision.len() == 2 {
        Ok(())
    } else {
        Err(format!(
            "precision_config has {} entries, expected 0 or 2",
            precision.len()
        ))
    }
}

/// The result element type: the declared one if any, else the lhs's.
fn result_element(
    lhs: &TensorType,
    rhs: &TensorType,
    declared: Option<&[Type]>,
) -> InferResult<ElementType> {
    if declared.is_none() && lhs.element != rhs.element {
        return Err(format!(
            "lhs ({}) and rhs ({}) element types differ: give the result type",
            lhs.element, rhs.element
        ));
    }
    match declared {
        Some(_) => Ok(declared_tensor(declared)?.element),
        None => Ok(lhs.element),
    }
}

fn check_matching_dims(
    lhs: &TensorType,
    rhs: &TensorType,
    lhs_dims: &[i64],
    rhs_dims: &[i64],
    what: &str,
) -> InferResult<()> {
    for (&l, &r) in lhs_dims.iter().zip(rhs_dims) {
        let (a, b) = (lhs.shape[l as usize], rhs.shape[r as usize]);
        if !a.is_compatible(b) {
            return Err(format!(
                "{what} dimension {l} of lhs has size {a}, dimension {r} of rhs {b}"
            ));
        }
    }
    Ok(())
}

pub(super) fn dot_general(
    dims: &DotDims,
    precision: &[Precision],
    operands: &[Type],
    declared: Option<&[Type]>,
) -> InferResult<Vec<Type>> {
    let lhs = tensor(&operands[0], "lhs")?;
    let rhs = tensor(&operands[1], "rhs")?;
    check_precision(precision)?;
    check_len(
        &dims.rhs_batching,
        dims.lhs_batching.len(),
        "rhs batching dimensions",
    )?;
    check_len(
        &dims.rhs_contracting,
        dims.lhs_contracting.len(),
        "rhs contracting dimensions",
    )?;
    let lhs_used = [dims.lhs_batching.clone(), dims.lhs_contracting.clone()].concat();
    let rhs_used = [dims.rhs_batching.clone(), dims.rhs_contracting.clone()].concat();
    check_dims(&lhs_used, lhs.rank(), "lhs batching/contracting dimension")?;
    check_dims(&rhs_used, rhs.rank(), "rhs batching/contracting dimension")?;
    check_matching_dims(lhs, rhs, &dims.lhs_batching, &dims.rhs_batching, "batching")?;
    check_matching_dims(
        lhs,
        rhs,
        &dims.lhs_contracting,
        &dims.rhs_contracting,
        "contracting",
    )?;
    let element = result_element(lhs, rhs, declared)?;
    let free = |t: &TensorType, used: &[i64]| -> Vec<Dim> {
        (0..t.rank())
            .filter(|d| !used.contains(&(*d as i64)))
            .map(|d| t.shape[d])
            .collect()
    };
    let mut shape: Vec<Dim> = dims
        .lhs_batching
        .iter()
        .zip(&dims.rhs_batching)
        .map(|(&l, &r)| lhs.shape[l as usize].refine(rhs.shape[r as usize]))
        .collect();
    shape.extend(free(lhs, &lhs_used));
    shape.extend(free(rhs, &rhs_used));
    Ok(vec![Type::Tensor(TensorType::new(shape, element))])
}

fn window_or(values: &[i64], n: usize, default: i64, what: &str) -> InferResult<Vec<i64>> {
    if values.is_empty() {
        return Ok(vec![default; n]);
    }
    check_len(values, n, what)?;
    if let Some(v) = values.iter().find(|&&v| v <= 0) {
        return Err(format!("{what} must be positive, got {v}"));
    }
    Ok(values.to_vec())
}

/// Checks the dimension numbers and groups; returns the number of spatial dimensions.
fn check_conv(attrs: &ConvAttrs, lhs: &TensorType, rhs: &TensorType) -> InferResult<usize> {
    let d = &attrs.dims;
    if lhs.rank() < 2 || lhs.rank() != rhs.rank() {
        return Err(format!(
            "lhs ({lhs}) and rhs ({rhs}) must have the same rank >= 2"
        ));
    }
    let n = lhs.rank() - 2;
    check_len(&d.input_spatial, n, "input spatial dimensions")?;
    check_len(&d.kernel_spatial, n, "kernel spatial dimensions")?;
    check_len(&d.output_spatial, n, "output spatial dimensions")?;
    let input = [
        vec![d.input_batch, d.input_feature],
        d.input_spatial.clone(),
    ]
    .concat();
    let kernel = [
        vec![d.kernel_input_feature, d.kernel_output_feature],
        d.kernel_spatial.clone(),
    ]
    .concat();
    let output = [
        vec![d.output_batch, d.output_feature],
        d.output_spatial.clone(),
    ]
    .concat();
    check_dims(&input, lhs.rank(), "input dimension")?;
    check_dims(&kernel, rhs.rank(), "kernel dimension")?;
    check_dims(&output, lhs.rank(), "output dimension")?;
    check_precision(&attrs.precision)?;
    let (fgc, bgc) = (attrs.feature_group_count, attrs.batch_group_count);
    if fgc == 0 || bgc == 0 || (fgc > 1 && bgc > 1) {
        return Err(format!(
            "feature_group_count ({fgc}) and batch_group_count ({bgc}) must be positive and not both > 1"
        ));
    }
    let divisible = |dim: Dim, by: u64, what: &str| match dim {
        Dim::Static(size) if size % by != 0 => {
            Err(format!("{what} size {size} is not divisible by {by}"))
        }
        _ => Ok(()),
    };
    divisible(lhs.shape[d.input_feature as usize], fgc, "input feature")?;
    divisible(lhs.shape[d.input_batch as usize], bgc, "input batch")?;
    divisible(
        rhs.shape[d.kernel_output_feature as usize],
        fgc,
        "kernel output feature",
    )?;
    divisible(
        rhs.shape[d.kernel_output_feature as usize],
        bgc,
        "kernel output feature",
    )?;
    let input_features = map_dim(lhs.shape[d.input_feature as usize], |s| Ok(s / fgc))?;
    if !input_features.is_compatible(rhs.shape[d.kernel_input_feature as usize]) {
        return Err(format!(
            "kernel input feature size {} must be input features / feature_group_count = {input_features}",
            rhs.shape[d.kernel_input_feature as usize]
        ));
    }
    if !attrs.window_reversal.is_empty() {
        check_len(&attrs.window_reversal, n, attr_name::WINDOW_REVERSAL)?;
    }
    Ok(n)
}

pub(super) fn convolution(
    attrs: &ConvAttrs,
    operands: &[Type],
    declared: Option<&[Type]>,
) -> InferResult<Vec<Type>> {
    let lhs = tensor(&operands[0], "lhs")?;
    let rhs = tensor(&operands[1], "rhs")?;
    let n = check_conv(attrs, lhs, rhs)?;
    let d = &attrs.dims;
    let strides = window_or(&attrs.window_strides, n, 1, attr_name::WINDOW_STRIDES)?;
    let lhs_dilation = window_or(&attrs.lhs_dilation, n, 1, attr_name::LHS_DILATION)?;
    let rhs_dilation = window_or(&attrs.rhs_dilation, n, 1, attr_name::RHS_DILATION)?;
    let padding = if attrs.padding.is_empty() {
        vec![(0, 0); n]
    } else {
        check_len(&attrs.padding, n, attr_name::PADDING)?;
        attrs.padding.clone()
    };
    let element = result_element(lhs, rhs, declared)?;
    let mut shape = vec![Dim::Dynamic; lhs.rank()];
    shape[d.output_batch as usize] = map_dim(lhs.shape[d.input_batch as usize], |s| {
        Ok(s / attrs.batch_group_count)
    })?;
    shape[d.output_feature as usize] = rhs.shape[d.kernel_output_feature as usize];
    for i in 0..n {
        let input = lhs.shape[d.input_spatial[i] as usize];
        let window = rhs.shape[d.kernel_spatial[i] as usize];
        shape[d.output_spatial[i] as usize] = match (input, window) {
            (Dim::Static(input), Dim::Static(window)) => Dim::Static(window_output(
                input,
                window,
                strides[i],
                padding[i],
                lhs_dilation[i],
                rhs_dilation[i],
            )?),
            _ => Dim::Dynamic,
        };
    }
    Ok(vec![Type::Tensor(TensorType::new(shape, element))])
}

/// Output size of a strided, padded, dilated window over one dimension.
pub(super) fn window_output(
    input: u64,
    window: u64,
    stride: i64,
    (low, high): (i64, i64),
    base_dilation: i64,
    window_dilation: i64,
) -> InferResult<u64> {
    let overflow = || format!("window arithmetic on size {input} overflows 64 bits");
    let dilated = |size: u64, dilation: i64| -> Option<i64> {
        if size == 0 {
            return Some(0);
        }
        i64::try_from(size - 1)
            .ok()?
            .checked_mul(dilation)?
            .checked_add(1)
    };
    let dilated_input = dilated(input, base_dilation).ok_or_else(overflow)?;
    let padded = low
        .checked_add(dilated_input)
        .and_then(|p| p.checked_add(high))
        .ok_or_else(overflow)?;
    if padded < 0 {
        return Err(format!("padding ({low}, {high}) leaves a negative size"));
    }
    let dilated_window = dilated(window, window_dilation).ok_or_else(overflow)?;
    if padded == 0 || dilated_window > padded {
        return Ok(0);
    }
    Ok(((padded - dilated_window) / stride + 1) as u64)
}

pub(super) fn dynamic_conv(
    attrs: &ConvAttrs,
    operands: &[Type],
    declared: Option<&[Type]>,
) -> InferResult<Vec<Type>> {
    let lhs = tensor(&operands[0], "lhs")?;
    let rhs = tensor(&operands[1], "rhs")?;
    let n = check_conv(attrs, lhs, rhs)?;
    let padding = tensor(&operands[2], attr_name::PADDING)?;
    if padding.rank() != 2 || !padding.element.is_integer() {
        return Err(format!(
            "padding must be a rank-2 integer tensor, got {padding}"
        ));
    }
    let result = declared_tensor(declared)?;
    if result.rank() != n + 2 {
        return Err(format!("result {result} must have rank {}", n + 2));
    }
    let unique: HashSet<_> = attrs.dims.output_spatial.iter().collect();
    if unique.len() != n {
        return Err("output spatial dimensions repeat".into());
    }
    Ok(vec![Type::Tensor(result.clone())])
}
