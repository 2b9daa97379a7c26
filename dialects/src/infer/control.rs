//! Control flow and the remaining fixed-signature ops: while, if, case, batch norm, rng.

use super::{InferResult, RegionSig, check_dims, declared, list, scalar, tensor};
use crate::op::attr_name;
use crate::types::{Dim, ElementType, TensorType, Type};

pub(super) fn while_loop(operands: &[Type], regions: &[RegionSig]) -> InferResult<Vec<Type>> {
    regions[0].check_returns(&[scalar(ElementType::I1)], "cond")?;
    regions[1].check_returns(operands, "body")?;
    Ok(operands.to_vec())
}

fn check_scalar_operand(operands: &[Type], element: ElementType, what: &str) -> InferResult<()> {
    if operands[0] != scalar(element) {
        return Err(format!(
            "{what} must be a tensor<{element}>, got {}",
            operands[0]
        ));
    }
    Ok(())
}

/// Every branch returns compatible types (equal but where one has a dynamic dimension), which
/// are the op's results.
fn branches(regions: &[RegionSig]) -> InferResult<Vec<Type>> {
    let first = regions.first().ok_or("expects at least one branch")?;
    for (i, region) in regions.iter().enumerate() {
        if !region.args.is_empty() {
            return Err(format!("branch {i} must take no arguments"));
        }
        let compatible = region.returns.len() == first.returns.len()
            && region
                .returns
                .iter()
                .zip(&first.returns)
                .all(|(a, b)| a.is_compatible(b));
        if !compatible {
            region.check_returns(&first.returns, &format!("branch {i}"))?;
        }
    }
    Ok(first.returns.clone())
}

pub(super) fn if_else(operands: &[Type], regions: &[RegionSig]) -> InferResult<Vec<Type>> {
    check_scalar_operand(operands, ElementType::I1, "pred")?;
    branches(regions)
}

pub(super) fn case(operands: &[Type], regions: &[RegionSig]) -> InferResult<Vec<Type>> {
    check_scalar_operand(operands, ElementType::I32, "the index operand")?;
    branches(regions)
}

/// Checks the per-feature operands of batch norm and returns the operand and feature count.
fn batch_norm_operands(feature_index: i64, operands: &[Type]) -> InferResult<(&TensorType, Dim)> {
    let operand = tensor(&operands[0], "operand")?;
    if !operand.element.is_float() {
        return Err(format!("operand must be floating-point, got {operand}"));
    }
    check_dims(&[feature_index], operand.rank(), attr_name::FEATURE_INDEX)?;
    let features = operand.shape[feature_index as usize];
    for ty in &operands[1..] {
        let t = tensor(ty, "per-feature operand")?;
        if t.rank() != 1 || t.element != operand.element || !t.shape[0].is_compatible(features) {
            return Err(format!(
                "per-feature operands must be tensor<{features}x{}>, got {t}",
                operand.element
            ));
        }
    }
    Ok((operand, features))
}

pub(super) fn batch_norm_inference(
    feature_index: i64,
    operands: &[Type],
) -> InferResult<Vec<Type>> {
    batch_norm_operands(feature_index, operands)?;
    Ok(vec![operands[0].clone()])
}

pub(super) fn batch_norm_training(feature_index: i64, operands: &[Type]) -> InferResult<Vec<Type>> {
    let (operand, features) = batch_norm_operands(feature_index, operands)?;
    let per_feature = Type::Tensor(TensorType::new(vec![features], operand.element));
    Ok(vec![operands[0].clone(), per_feature.clone(), per_feature])
}

/// (operand, scale, mean, variance, grad_output) -> (grad_operand, grad_scale, grad_offset).
pub(super) fn batch_norm_grad(feature_index: i64, operands: &[Type]) -> InferResult<Vec<Type>> {
    let (operand, features) = batch_norm_operands(feature_index, &operands[..4])?;
    if operands[4] != operands[0] {
        return Err(format!(
            "grad_output must have the operand's type {}, got {}",
            operands[0], operands[4]
        ));
    }
    let per_feature = Type::Tensor(TensorType::new(vec![features], operand.element));
    Ok(vec![operands[0].clone(), per_feature.clone(), per_feature])
}

pub(super) fn rng_bit_generator(
    operands: &[Type],
    declared_types: Option<&[Type]>,
) -> InferResult<Vec<Type>> {
    let state = tensor(&operands[0], "initial_state")?;
    if state.rank() != 1 || !state.element.is_integer() {
        return Err(format!(
            "initial_state must be a rank-1 integer tensor, got {state}"
        ));
    }
    let results = declared(declared_types)?;
    if results.len() != 2 || results[0] != operands[0] {
        return Err(format!(
            "results must be (the state type {}, the output), got ({})",
            operands[0],
            list(results)
        ));
    }
    let output = tensor(&results[1], "output")?;
    if !output.element.is_integer() && !output.element.is_float() {
        return Err(format!("output must be integer or float, got {output}"));
    }
    Ok(results.to_vec())
}
