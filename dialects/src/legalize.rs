//! Where XLA departs from the StableHLO spec, rewrites after which XLA computes the spec's
//! answer. tpuc applies them to every module it hands to a plugin; the text keeps meaning what
//! the spec says. Per op:
//!
//! - `add` of `i1`: the spec's logical or; XLA adds modulo 2 (`true + true` is `false`).
//!   Becomes `or`.
//! - `maximum` and `minimum` of complex numbers: the spec orders `(real, imaginary)` pairs
//!   lexicographically; XLA does not. Become a `select` between the operands on that order
//!   (the real parts compared first, the imaginary parts when the real parts are equal).

use crate::attr::ComparisonDirection;
use crate::builder::OpBuilder;
use crate::error::Result;
use crate::function::{Function, InsertPoint};
use crate::module::Module;
use crate::op::{BinaryOp, OpKind};
use crate::types::Type;

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
