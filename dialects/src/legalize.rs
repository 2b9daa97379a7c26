//! Where XLA departs from the StableHLO spec, rewrites after which XLA computes the spec's
//! answer. tpuc applies them to every module it hands to a plugin; the text keeps meaning what
//! the spec says. Per op:
//!
//! - `add` of `i1`: the spec's logical or; XLA adds modulo 2 (`true + true` is `false`).
//!   Becomes `or`.
//! - `maximum` and `minimum` of complex numbers: the spec orders `(real, imaginary)` pairs
//!   lexicographically; XLA does not. Become a `select` between the operands on that order
//!   (the real parts compared first, the imaginary parts when the real parts are equal).
//! - `reduce`, `all_reduce` and `reduce_scatter` whose body computes in a wider type than
//!   their operands (the spec's promotable types): XLA wants the operands in the body's type.
//!   The operands are converted to it first.
//! - `bitcast_convert` to or from `i1`: the spec's `i1` is one bit, so `W` booleans (the last
//!   dimension, least significant bit first) make one `W`-bit element; XLA counts a boolean
//!   as a byte. Becomes shifts of the bits through the unsigned integer type of `W` bits.

use crate::attr::ComparisonDirection;
use crate::builder::OpBuilder;
use crate::error::Result;
use crate::function::{Function, InsertPoint};
use crate::module::Module;
use crate::op::{BinaryOp, OpKind};
use crate::types::{ElementType, TensorType, Type};

/// Applies every rewrite to every function of `module`.
pub fn for_xla(module: &mut Module) -> Result<()> {
    for function in &mut module.functions {
        for_xla_function(function)?;
    }
    Ok(())
}

fn element_of(function: &Function, op: crate::OpId) -> Option<crate::ElementType> {
    match function.value_type(function.op(op).results[0]) {
        Type::Tensor(tensor) => Some(tensor.element),
        _ => None,
    }
}

fn for_xla_function(function: &mut Function) -> Result<()> {
    for op in function.walk() {
        if function.op(op).kind == OpKind::BitcastConvert {
            bitcast_bits(function, op)?;
            continue;
        }
        if matches!(
            function.op(op).kind,
            OpKind::Reduce { .. } | OpKind::AllReduce(_) | OpKind::ReduceScatter { .. }
        ) {
            convert_to_body_types(function, op)?;
            continue;
        }
        let OpKind::Binary(binary) = function.op(op).kind else {
            continue;
        };
        let Some(element) = element_of(function, op) else {
            continue;
        };
        match binary {
            BinaryOp::Add if element.is_bool() => {
                *function.kind_mut(op) = OpKind::Binary(BinaryOp::Or);
            }
            BinaryOp::Maximum | BinaryOp::Minimum if element.is_complex() => {
                let (lhs, rhs) = (function.op(op).operands[0], function.op(op).operands[1]);
                let location = function.op(op).location.clone();
                let (strict, or_equal) = if binary == BinaryOp::Maximum {
                    (ComparisonDirection::Gt, ComparisonDirection::Ge)
                } else {
                    (ComparisonDirection::Lt, ComparisonDirection::Le)
                };
                let mut b = OpBuilder::at(function, InsertPoint::Before(op), location);
                let (lhs_re, rhs_re) = (b.real(lhs)?, b.real(rhs)?);
                let (lhs_im, rhs_im) = (b.imag(lhs)?, b.imag(rhs)?);
                let real_wins = b.compare(strict, lhs_re, rhs_re)?;
                let real_ties = b.compare(ComparisonDirection::Eq, lhs_re, rhs_re)?;
                let imag_wins = b.compare(or_equal, lhs_im, rhs_im)?;
                let tie_wins = b.and(real_ties, imag_wins)?;
                let lhs_wins = b.or(real_wins, tie_wins)?;
                let picked = b.select(lhs_wins, lhs, rhs)?;
                function.replace_op(op, &[picked]);
            }
            _ => {}
        }
    }
    Ok(())
}

/// The unsigned integer type of `bits` bits.
fn unsigned_of_width(bits: u32) -> Option<ElementType> {
    Some(match bits {
        4 => ElementType::UI4,
        8 => ElementType::UI8,
        16 => ElementType::UI16,
        32 => ElementType::UI32,
        64 => ElementType::UI64,
        _ => return None,
    })
}

fn static_tensor(function: &Function, value: crate::Value) -> Option<TensorType> {
    match function.value_type(value) {
        Type::Tensor(tensor) if tensor.static_shape().is_some() => Some(tensor.clone()),
        _ => None,
    }
}

/// `bitcast_convert` between `W` booleans and one `W`-bit element, through shifts.
fn bitcast_bits(function: &mut Function, op: crate::OpId) -> Result<()> {
    let operand = function.op(op).operands[0];
    let (Some(from), Some(to)) = (
        static_tensor(function, operand),
        static_tensor(function, function.op(op).results[0]),
    ) else {
        return Ok(());
    };
    let location = function.op(op).location.clone();
    let replacement = match (from.element.is_bool(), to.element.is_bool()) {
        // [..., W] x i1 -> [...] x T: each boolean shifted to its bit, or-ed together.
        (true, false) => {
            let Some(unsigned) = unsigned_of_width(to.element.bit_width()) else {
                return Ok(());
            };
            let bits = from.with_element(unsigned);
            let last = from.rank() as i64 - 1;
            let mut b = OpBuilder::at(function, InsertPoint::Before(op), location);
            let widened = b.convert(operand, unsigned)?;
            let positions = b.iota(bits, last)?;
            let shifted = b.shift_left(widened, positions)?;
            let zero = b.splat_i64(unsigned, Vec::<u64>::new(), 0)?;
            let word = b.reduce_with(BinaryOp::Or, shifted, zero, &[last])?;
            if unsigned == to.element {
                word
            } else {
                b.bitcast_convert(word, to)?
            }
        }
        // [...] x T -> [..., W] x i1: bit i of each element is boolean i.
        (false, true) => {
            let Some(unsigned) = unsigned_of_width(from.element.bit_width()) else {
                return Ok(());
            };
            let bits = to.with_element(unsigned);
            let last = to.rank() as i64 - 1;
            let shape = to.static_shape().expect("static");
            let dims: Vec<i64> = (0..last).collect();
            let mut b = OpBuilder::at(function, InsertPoint::Before(op), location);
            let word = if unsigned == from.element {
                operand
            } else {
                b.bitcast_convert(operand, from.with_element(unsigned))?
            };
            let spread = b.broadcast_in_dim(word, &dims, shape.clone())?;
            let positions = b.iota(bits, last)?;
            let shifted = b.shift_right_logical(spread, positions)?;
            let one = b.splat_i64(unsigned, shape, 1)?;
            let bit = b.and(shifted, one)?;
            b.convert(bit, ElementType::I1)?
        }
        _ => return Ok(()),
    };
    function.replace_op(op, &[replacement]);
    Ok(())
}

/// Converts each operand of a reduction to the element type of the body argument it feeds (the
/// first body arguments pair with the operands in order, `reduce`'s init values with the
/// inputs).
fn convert_to_body_types(function: &mut Function, op: crate::OpId) -> Result<()> {
    let Some(&region) = function.op(op).regions.first() else {
        return Ok(());
    };
    let Some(&block) = function.region(region).blocks.first() else {
        return Ok(());
    };
    let body: Vec<ElementType> = function
        .block(block)
        .args
        .iter()
        .filter_map(|&arg| function.value_type(arg).as_tensor().map(|t| t.element))
        .collect();
    let operands = function.op(op).operands.clone();
    let inputs = match function.op(op).kind {
        OpKind::Reduce { .. } => operands.len() / 2,
        _ => operands.len(),
    };
    let wanted = |index: usize| body.get(index % inputs.max(1)).copied();
    let location = function.op(op).location.clone();
    let mut converted = Vec::with_capacity(operands.len());
    let mut changed = false;
    for (index, &operand) in operands.iter().enumerate() {
        let element = function.value_type(operand).as_tensor().map(|t| t.element);
        match (element, wanted(index)) {
            (Some(have), Some(want)) if have != want => {
                let mut b = OpBuilder::at(function, InsertPoint::Before(op), location.clone());
                converted.push(b.convert(operand, want)?);
                changed = true;
            }
            _ => converted.push(operand),
        }
    }
    if changed {
        function.set_operands(op, converted);
    }
    Ok(())
}
