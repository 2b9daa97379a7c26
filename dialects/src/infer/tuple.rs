//! Tuples and tokens: `get_tuple_element`, `after_all`, and the token the I/O ops thread.

use super::{InferResult, declared, list};
use crate::types::Type;

/// Element `index` of a tuple operand (C1: `0 <= index < size(operand)`; C2: the result has
/// its type).
pub(super) fn get_tuple_element(index: i32, operands: &[Type]) -> InferResult<Vec<Type>> {
    let Type::Tuple(elements) = &operands[0] else {
        return Err(format!("operand must be a tuple, got {}", operands[0]));
    };
    let element = usize::try_from(index)
        .ok()
        .and_then(|i| elements.get(i))
        .ok_or_else(|| {
            format!(
                "C1: index {index} is out of range for a tuple of {} elements",
                elements.len()
            )
        })?;
    Ok(vec![element.clone()])
}

/// Tokens in, one token out.
pub(super) fn after_all(operands: &[Type]) -> InferResult<Vec<Type>> {
    if let Some(other) = operands.iter().find(|t| **t != Type::Token) {
        return Err(format!("inputs must be tokens, got {other}"));
    }
    Ok(vec![Type::Token])
}

/// `send` and `outfeed`: inputs, then a token; a token out.
pub(super) fn token_last(operands: &[Type]) -> InferResult<Vec<Type>> {
    if operands.last() != Some(&Type::Token) {
        return Err(format!(
            "the last operand must be a token, got ({})",
            list(operands)
        ));
    }
    Ok(vec![Type::Token])
}

/// `recv`: a token in; the declared results, then a token, out.
pub(super) fn recv(operands: &[Type], declared_types: Option<&[Type]>) -> InferResult<Vec<Type>> {
    if operands[0] != Type::Token {
        return Err(format!("the operand must be a token, got {}", operands[0]));
    }
    let results = declared(declared_types)?;
    if results.last() != Some(&Type::Token) {
        return Err(format!(
            "the last result must be a token, got ({})",
            list(results)
        ));
    }
    Ok(results.to_vec())
}
