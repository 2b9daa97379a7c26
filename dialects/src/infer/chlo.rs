//! CHLO ops: elementwise unary and binary ops, broadcasting binary ops, compare and select,
//! constant_like, top_k.

use super::{InferResult, tensor};
use crate::attr::{Attribute, ComparisonType};
use crate::broadcast::rank_broadcast;
use crate::op::{BroadcastBinary, ChloBinaryOp, ChloBroadcastOp, ChloUnaryOp};
use crate::types::{Dim, ElementType, TensorType, Type};

pub(super) fn unary(op: ChloUnaryOp, operands: &[Type]) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    let accepts = match op {
        ChloUnaryOp::Square => !operand.element.is_bool(),
        ChloUnaryOp::Conj => operand.element.is_float() || operand.element.is_complex(),
        _ => operand.element.is_float(),
    };
    if !accepts {
        return Err(format!("does not accept element type {}", operand.element));
    }
    let element = if op.is_predicate() {
        ElementType::I1
    } else {
        operand.element
    };
    Ok(vec![Type::Tensor(operand.with_element(element))])
}

pub(super) fn broadcast(
    op: ChloBroadcastOp,
    dims: &[i64],
    operands: &[Type],
) -> InferResult<Vec<Type>> {
    let same_shape = broadcast_pair(dims, operands)?;
    match op.binary() {
        BroadcastBinary::Stablehlo(op) => super::elementwise::binary(op, &same_shape),
        BroadcastBinary::Chlo(op) => binary(op, &same_shape),
    }
}

/// The operand types of a broadcasting binary op, each with the broadcast result's shape.
fn broadcast_pair(dims: &[i64], operands: &[Type]) -> InferResult<[Type; 2]> {
    let (lhs, rhs) = super::elementwise::same_element_pair(operands)?;
    let shape = rank_broadcast(&[&lhs.shape, &rhs.shape], dims)?.shape;
    Ok([
        Type::Tensor(TensorType::new(shape.clone(), lhs.element)),
        Type::Tensor(TensorType::new(shape, rhs.element)),
    ])
}

/// `chlo.next_after`, `chlo.polygamma`, `chlo.zeta`: float operands of one type.
pub(super) fn binary(op: ChloBinaryOp, operands: &[Type]) -> InferResult<Vec<Type>> {
    let (lhs, rhs) = super::elementwise::same_element_pair(operands)?;
    let accepted = match op {
        ChloBinaryOp::Mulhi => lhs.element.is_integer(),
        _ => lhs.element.is_float(),
    };
    if !accepted {
        return Err(format!("does not accept element type {}", lhs.element));
    }
    if !lhs.is_compatible(rhs) {
        return Err(format!("operand shapes differ: {lhs} and {rhs}"));
    }
    Ok(vec![Type::Tensor(lhs.clone())])
}

pub(super) fn broadcast_compare(
    dims: &[i64],
    compare_type: Option<ComparisonType>,
    operands: &[Type],
) -> InferResult<Vec<Type>> {
    let same_shape = broadcast_pair(dims, operands)?;
    super::elementwise::compare(compare_type, &same_shape)
}

pub(super) fn constant_like(value: &Attribute, operands: &[Type]) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    let element = match value {
        Attribute::Bool(_) => ElementType::I1,
        Attribute::Int { ty, .. } | Attribute::Float { ty, .. } => *ty,
        _ => return Err("value must be a typed scalar".to_string()),
    };
    if element != operand.element {
        return Err(format!(
            "value of type {element} does not match the operand's element type {}",
            operand.element
        ));
    }
    Ok(vec![Type::Tensor(operand.clone())])
}

pub(super) fn broadcast_select(operands: &[Type]) -> InferResult<Vec<Type>> {
    let pred = tensor(&operands[0], "pred")?;
    let on_true = tensor(&operands[1], "on_true")?;
    let on_false = tensor(&operands[2], "on_false")?;
    if pred.element != ElementType::I1 {
        return Err(format!("pred must be of i1, got {}", pred.element));
    }
    if on_true.element != on_false.element {
        return Err(format!(
            "on_true and on_false element types differ: {} and {}",
            on_true.element, on_false.element
        ));
    }
    let shape = rank_broadcast(&[&pred.shape, &on_true.shape, &on_false.shape], &[])?.shape;
    Ok(vec![Type::Tensor(TensorType::new(shape, on_true.element))])
}

pub(super) fn top_k(k: i64, operands: &[Type]) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    let Some(&last) = operand.shape.last() else {
        return Err("operand must have rank 1 or more".to_string());
    };
    if k < 0 {
        return Err(format!("k must be non-negative, got {k}"));
    }
    if let Dim::Static(size) = last
        && size < k as u64
    {
        return Err(format!("k = {k} exceeds the last dimension's size {size}"));
    }
    let mut shape = operand.shape.clone();
    *shape.last_mut().expect("rank checked") = Dim::Static(k as u64);
    Ok(vec![
        Type::Tensor(TensorType::new(shape.clone(), operand.element)),
        Type::Tensor(TensorType::new(shape, ElementType::I32)),
    ])
}
