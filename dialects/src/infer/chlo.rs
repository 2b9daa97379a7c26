//! CHLO ops: elementwise unary ops, broadcasting binary ops and select, top_k.

use super::{InferResult, count, tensor};
use crate::broadcast::rank_broadcast;
use crate::op::{ChloBroadcastOp, ChloUnaryOp};
use crate::types::{Dim, ElementType, TensorType, Type};

pub(super) fn unary(op: ChloUnaryOp, operands: &[Type]) -> InferResult<Vec<Type>> {
    count(operands, 1)?;
    let operand = tensor(&operands[0], "operand")?;
    let accepts = match op {
        ChloUnaryOp::Square => !operand.element.is_bool(),
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
    let (lhs, rhs) = super::elementwise::same_element_pair(operands)?;
    let shape = rank_broadcast(&[&lhs.shape, &rhs.shape], dims)?.shape;
    let same_shape = [
        Type::Tensor(TensorType::new(shape.clone(), lhs.element)),
        Type::Tensor(TensorType::new(shape, rhs.element)),
    ];
    super::elementwise::binary(op.binary(), &same_shape)
}

pub(super) fn broadcast_select(operands: &[Type]) -> InferResult<Vec<Type>> {
    count(operands, 3)?;
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
    count(operands, 1)?;
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
