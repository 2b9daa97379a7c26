//! Elementwise ops: unary, binary, compare, select, clamp, conversions.

use super::{InferResult, declared_tensor, refine_shape, tensor};
use crate::attr::ComparisonType;
use crate::op::{BinaryOp, UnaryOp};
use crate::types::{ElementType, TensorType, Type};

#[derive(Clone, Copy)]
enum Class {
    Bool,
    Int,
    Float,
    Complex,
}

fn class(element: ElementType) -> Class {
    if element.is_bool() {
        Class::Bool
    } else if element.is_integer() {
        Class::Int
    } else if element.is_complex() {
        Class::Complex
    } else {
        Class::Float
    }
}

fn unary_accepts(op: UnaryOp, element: ElementType) -> bool {
    use UnaryOp::*;
    let c = class(element);
    match op {
        Abs | Sign => element.is_signed_integer() || matches!(c, Class::Float | Class::Complex),
        Cbrt | Cosine | Exponential | ExponentialMinusOne | Log | LogPlusOne | Logistic | Rsqrt
        | Sine | Sqrt | Tan | Tanh | Imag | Real => {
            matches!(c, Class::Float | Class::Complex)
        }
        Ceil | Floor | RoundNearestAfz | RoundNearestEven | IsFinite => matches!(c, Class::Float),
        CountLeadingZeros | Popcnt => matches!(c, Class::Int),
        Negate => matches!(c, Class::Int | Class::Float | Class::Complex),
        Not => matches!(c, Class::Bool | Class::Int),
    }
}

pub(super) fn unary(op: UnaryOp, operands: &[Type]) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    if !unary_accepts(op, operand.element) {
        return Err(format!("does not accept element type {}", operand.element));
    }
    let element = match op {
        UnaryOp::IsFinite => ElementType::I1,
        UnaryOp::Abs | UnaryOp::Imag | UnaryOp::Real => {
            operand.element.complex_part().unwrap_or(operand.element)
        }
        _ => operand.element,
    };
    Ok(vec![Type::Tensor(operand.with_element(element))])
}

fn binary_accepts(op: BinaryOp, element: ElementType) -> bool {
    use BinaryOp::*;
    let c = class(element);
    match op {
        Add | Multiply | Maximum | Minimum => true,
        And | Or | Xor => matches!(c, Class::Bool | Class::Int),
        Atan2 => matches!(c, Class::Float | Class::Complex),
        Complex => matches!(element, ElementType::F32 | ElementType::F64),
        Divide | Power | Remainder | Subtract => {
            matches!(c, Class::Int | Class::Float | Class::Complex)
        }
        ShiftLeft | ShiftRightArithmetic | ShiftRightLogical => matches!(c, Class::Int),
    }
}

/// The two operands of a binary op or a comparison, which share an element type.
pub(super) fn same_element_pair(operands: &[Type]) -> InferResult<(&TensorType, &TensorType)> {
    let lhs = tensor(&operands[0], "lhs")?;
    let rhs = tensor(&operands[1], "rhs")?;
    if lhs.element != rhs.element {
        return Err(format!(
            "operand element types differ: {} and {}",
            lhs.element, rhs.element
        ));
    }
    Ok((lhs, rhs))
}

pub(super) fn binary(op: BinaryOp, operands: &[Type]) -> InferResult<Vec<Type>> {
    let (lhs, rhs) = same_element_pair(operands)?;
    if !binary_accepts(op, lhs.element) {
        return Err(format!("does not accept element type {}", lhs.element));
    }
    let shape = refine_shape(&lhs.shape, &rhs.shape, "operands")?;
    let element = match op {
        BinaryOp::Complex => lhs.element.complex_of().unwrap_or(lhs.element),
        _ => lhs.element,
    };
    Ok(vec![Type::Tensor(TensorType::new(shape, element))])
}

/// The comparison type StableHLO expects for an element type.
pub(crate) fn default_compare_type(element: ElementType) -> ComparisonType {
    if element.is_signed_integer() {
        ComparisonType::Signed
    } else if element.is_unsigned_integer() || element.is_bool() {
        ComparisonType::Unsigned
    } else {
        ComparisonType::Float
    }
}

pub(super) fn compare(
    compare_type: Option<ComparisonType>,
    operands: &[Type],
) -> InferResult<Vec<Type>> {
    let (lhs, rhs) = same_element_pair(operands)?;
    if let Some(compare_type) = compare_type {
        let expected = default_compare_type(lhs.element);
        let ok = compare_type == expected
            || (compare_type == ComparisonType::TotalOrder && lhs.element.is_float());
        if !ok {
            return Err(format!(
                "compare type {} does not fit element type {}",
                compare_type.keyword(),
                lhs.element
            ));
        }
    }
    let shape = refine_shape(&lhs.shape, &rhs.shape, "operands")?;
    Ok(vec![Type::Tensor(TensorType::new(shape, ElementType::I1))])
}

pub(super) fn select(operands: &[Type]) -> InferResult<Vec<Type>> {
    let pred = tensor(&operands[0], "pred")?;
    let on_true = tensor(&operands[1], "on_true")?;
    let on_false = tensor(&operands[2], "on_false")?;
    if pred.element != ElementType::I1 {
        return Err(format!(
            "pred must have element type i1, got {}",
            pred.element
        ));
    }
    if on_true.element != on_false.element {
        return Err(format!(
            "on_true and on_false element types differ: {} and {}",
            on_true.element, on_false.element
        ));
    }
    let shape = refine_shape(&on_true.shape, &on_false.shape, "on_true and on_false")?;
    if pred.rank() != 0 {
        refine_shape(&pred.shape, &shape, "pred and on_true")?;
    }
    Ok(vec![Type::Tensor(TensorType::new(shape, on_true.element))])
}

pub(super) fn clamp(operands: &[Type]) -> InferResult<Vec<Type>> {
    let min = tensor(&operands[0], "min")?;
    let operand = tensor(&operands[1], "operand")?;
    let max = tensor(&operands[2], "max")?;
    for (bound, what) in [(min, "min"), (max, "max")] {
        if bound.element != operand.element {
            return Err(format!(
                "{what} has element type {}, operand {}",
                bound.element, operand.element
            ));
        }
        if bound.rank() != 0 {
            refine_shape(&bound.shape, &operand.shape, what)?;
        }
    }
    Ok(vec![Type::Tensor(operand.clone())])
}

/// Any element type to any other; complex to real or integer keeps the real part (the spec's
/// semantics, which XLA implements).
pub(super) fn convert(operands: &[Type], declared: Option<&[Type]>) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    let result = declared_tensor(declared)?;
    let shape = refine_shape(&operand.shape, &result.shape, "operand and result")?;
    Ok(vec![Type::Tensor(TensorType::new(shape, result.element))])
}

/// A floating-point operand (I1) rounded to at least one exponent bit (C2) and no negative
/// mantissa bits (C3); the result has its type (C1).
pub(super) fn reduce_precision(
    exponent_bits: i32,
    mantissa_bits: i32,
    operands: &[Type],
) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    if !operand.element.is_float() {
        return Err(format!(
            "I1: operand must be of a floating-point type, got {}",
            operand.element
        ));
    }
    if exponent_bits < 1 {
        return Err(format!(
            "C2: exponent_bits must be at least 1, got {exponent_bits}"
        ));
    }
    if mantissa_bits < 0 {
        return Err(format!(
            "C3: mantissa_bits must be at least 0, got {mantissa_bits}"
        ));
    }
    Ok(vec![operands[0].clone()])
}

pub(super) fn bitcast_convert(
    operands: &[Type],
    declared: Option<&[Type]>,
) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    let result = declared_tensor(declared)?;
    let (from, to) = (operand.element.bit_width(), result.element.bit_width());
    if from == to {
        refine_shape(&operand.shape, &result.shape, "operand and result")?;
    } else if from > to {
        let ratio = u64::from(from / to);
        let (last, rest) = result
            .shape
            .split_last()
            .ok_or("narrowing bitcast needs a result of rank >= 1")?;
        refine_shape(&operand.shape, rest, "operand and result")?;
        if !last.is_compatible(ratio.into()) || from % to != 0 {
            return Err(format!("the result's last dimension must be {ratio}"));
        }
    } else {
        let ratio = u64::from(to / from);
        let (last, rest) = operand
            .shape
            .split_last()
            .ok_or("widening bitcast needs an operand of rank >= 1")?;
        refine_shape(rest, &result.shape, "operand and result")?;
        if !last.is_compatible(ratio.into()) || to % from != 0 {
            return Err(format!("the operand's last dimension must be {ratio}"));
        }
    }
    Ok(vec![Type::Tensor(result.clone())])
}
