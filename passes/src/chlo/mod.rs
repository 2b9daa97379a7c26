//! `chlo-legalize`: rewrites the CHLO ops JAX prints into StableHLO, following the
//! decompositions of the CHLO spec (openxla/stablehlo `ChloOps.td` and its legalization).
//!
//! One module per op family. Each rewrite builds its StableHLO before the CHLO op, with the
//! op's location, and replaces the op's results. An op the pass cannot express statically
//! (a broadcast between dynamic dimensions, an element type outside its formulas) stays as it
//! is: the PJRT plugins accept CHLO themselves.

mod bessel;
mod broadcast;
mod constant_like;
mod erf;
mod erf_inv;
mod gamma;
mod hyperbolic;
mod next_after;
mod predicates;
mod ragged_dot;
mod top_k;
mod trig;
mod zeta;

use tpuc_ir::{
    ChloBinaryOp, ChloUnaryOp, ElementType, Function, InsertPoint, IrError, Module, OpBuilder,
    OpId, OpKind, Value,
};

use crate::error::PassError;
use crate::pass::{Pass, PassContext};
use tpuc_ir::Program;

pub(crate) struct ChloLegalize;

impl Pass for ChloLegalize {
    fn name(&self) -> &'static str {
        "chlo-legalize"
    }

    fn run(&self, program: &mut Program, _: &mut PassContext) -> Result<(), PassError> {
        legalize_chlo(&mut program.module);
        Ok(())
    }
}

/// Rewrites the module's CHLO ops into StableHLO where the pass can (the front end's own CHLO
/// ops, before any pass sees the program).
pub fn legalize_chlo(module: &mut Module) {
    for function in &mut module.functions {
        for op in function.walk() {
            legalize(function, op);
        }
    }
}

/// Whether the module still holds a CHLO op.
pub fn has_chlo(module: &Module) -> bool {
    module.functions.iter().any(|f| {
        f.walk()
            .into_iter()
            .any(|op| f.op(op).kind.name().starts_with(tpuc_ir::op::CHLO_PREFIX))
    })
}

type Built = Result<Option<Vec<Value>>, IrError>;

fn legalize(f: &mut Function, op: OpId) {
    let operation = f.op(op);
    let kind = operation.kind.clone();
    let operands = operation.operands.clone();
    let location = operation.location.clone();
    let result_element = operation
        .results
        .first()
        .and_then(|&r| f.value_type(r).as_tensor())
        .map(|t| t.element);
    let mut b = OpBuilder::at(f, InsertPoint::Before(op), location);
    let built: Built = match kind {
        OpKind::ChloBroadcast(binary, dims) => broadcast::binary(&mut b, binary, &dims, &operands),
        OpKind::ChloBroadcastCompare {
            dims,
            direction,
            compare_type,
        } => broadcast::compare(&mut b, &dims, direction, compare_type, &operands),
        OpKind::ChloBroadcastSelect => broadcast::select(&mut b, &operands),
        OpKind::ChloBinary(binary) => binary_op(&mut b, binary, operands[0], operands[1]),
        OpKind::ChloConstantLike(value) => {
            constant_like::constant_like(&mut b, &value, operands[0])
        }
        OpKind::ChloRaggedDot { dims, precision } => match result_element {
            Some(element) => ragged_dot::ragged_dot(&mut b, &dims, &precision, &operands, element),
            None => return,
        },
        OpKind::ChloTopK { k } => top_k::top_k(&mut b, operands[0], k),
        OpKind::ChloUnary(unary) => {
            unary_op(&mut b, unary, operands[0]).map(|v| v.map(|v| vec![v]))
        }
        _ => return,
    };
    if let Ok(Some(values)) = built {
        f.replace_op(op, &values);
    }
}

/// `chlo.next_after`, `chlo.polygamma`, `chlo.zeta` on operands of one shape.
fn binary_op(b: &mut OpBuilder<'_>, op: ChloBinaryOp, x: Value, y: Value) -> Built {
    if !b.tensor_type(x)?.element.is_float() {
        return Ok(None);
    }
    let value = match op {
        ChloBinaryOp::Mulhi => return Ok(None),
        ChloBinaryOp::NextAfter => match next_after::next_after(b, x, y)? {
            Some(value) => value,
            None => return Ok(None),
        },
        ChloBinaryOp::Zeta => upcast2(b, x, y, zeta::zeta)?,
        ChloBinaryOp::Polygamma => upcast2(b, x, y, zeta::polygamma)?,
    };
    Ok(Some(vec![value]))
}

fn unary_op(b: &mut OpBuilder<'_>, op: ChloUnaryOp, x: Value) -> Result<Option<Value>, IrError> {
    use ChloUnaryOp as C;
    let element = b.tensor_type(x)?.element;
    if !element.is_float() {
        return Ok(match op {
            C::Square => Some(b.multiply(x, x)?),
            C::Conj => Some(conj(b, x)?),
            _ => None,
        });
    }
    let value = match op {
        C::Square => b.multiply(x, x)?,
        C::Tan => b.tan(x)?,
        C::Asin => trig::asin(b, x)?,
        C::Acos => trig::acos(b, x)?,
        C::Atan => trig::atan(b, x)?,
        C::Sinh => upcast(b, x, hyperbolic::sinh)?,
        C::Cosh => upcast(b, x, hyperbolic::cosh)?,
        C::Asinh => hyperbolic::asinh(b, x)?,
        C::Acosh => hyperbolic::acosh(b, x)?,
        C::Atanh => hyperbolic::atanh(b, x)?,
        C::Erf if element == ElementType::F64 => erf::erf_f64(b, x)?,
        C::Erf => upcast(b, x, erf::erf_f32)?,
        C::Erfc if element == ElementType::F64 => erf::erfc_f64(b, x)?,
        C::Erfc => upcast(b, x, erf::erfc_f32)?,
        C::Lgamma => upcast(b, x, gamma::lgamma)?,
        C::Digamma => upcast(b, x, gamma::digamma)?,
        C::ErfInv if element == ElementType::F64 => erf_inv::erf_inv_f64(b, x)?,
        C::ErfInv => upcast(b, x, erf_inv::erf_inv_f32)?,
        C::BesselI1e => upcast(b, x, bessel::bessel_i1e)?,
        C::Conj => conj(b, x)?,
        C::IsInf => predicates::is_inf(b, x)?,
        C::IsPosInf => predicates::is_signed_inf(b, x, 1.0)?,
        C::IsNegInf => predicates::is_signed_inf(b, x, -1.0)?,
    };
    Ok(Some(value))
}

type Formula = fn(&mut OpBuilder<'_>, Value) -> Result<Value, IrError>;

/// Applies `formula` in f32 to an operand narrower than f32 (f16, bf16), then converts back.
fn upcast(b: &mut OpBuilder<'_>, x: Value, formula: Formula) -> Result<Value, IrError> {
    let element = b.tensor_type(x)?.element;
    if element.bit_width() >= 32 {
        return formula(b, x);
    }
    let wide = b.convert(x, ElementType::F32)?;
    let result = formula(b, wide)?;
    b.convert(result, element)
}

type Formula2 = fn(&mut OpBuilder<'_>, Value, Value) -> Result<Value, IrError>;

/// [`upcast`] for a formula of two operands of one type.
fn upcast2(b: &mut OpBuilder<'_>, x: Value, y: Value, formula: Formula2) -> Result<Value, IrError> {
    let element = b.tensor_type(x)?.element;
    if element.bit_width() >= 32 {
        return formula(b, x, y);
    }
    let x = b.convert(x, ElementType::F32)?;
    let y = b.convert(y, ElementType::F32)?;
    let result = formula(b, x, y)?;
    b.convert(result, element)
}

/// `chlo.conj`: the operand itself for reals, `real - i imag` for complex numbers.
fn conj(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    if !b.tensor_type(x)?.element.is_complex() {
        return Ok(x);
    }
    let real = b.real(x)?;
    let imag = b.imag(x)?;
    let negated = b.negate(imag)?;
    b.complex(real, negated)
}

/// A constant shaped like `like`, every element `value`.
fn splat_like(b: &mut OpBuilder<'_>, like: Value, value: f64) -> Result<Value, IrError> {
    let ty = b.tensor_type(like)?.clone();
    b.splat(ty.element, ty.shape, value)
}

/// `c[0] x^(n-1) + c[1] x^(n-2) + ... + c[n-1]` by Horner's rule.
fn polynomial(b: &mut OpBuilder<'_>, x: Value, coefficients: &[f64]) -> Result<Value, IrError> {
    let Some((&first, rest)) = coefficients.split_first() else {
        return splat_like(b, x, 0.0);
    };
    let mut acc = splat_like(b, x, first)?;
    for &c in rest {
        let scaled = b.multiply(acc, x)?;
        let c = splat_like(b, x, c)?;
        acc = b.add(scaled, c)?;
    }
    Ok(acc)
}

/// `on_true` where `lhs <direction> rhs`, else `on_false`.
fn select_where(
    b: &mut OpBuilder<'_>,
    lhs: Value,
    direction: tpuc_ir::ComparisonDirection,
    rhs: Value,
    on_true: Value,
    on_false: Value,
) -> Result<Value, IrError> {
    let pred = b.compare(direction, lhs, rhs)?;
    b.select(pred, on_true, on_false)
}
