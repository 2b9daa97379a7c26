//! Elementwise arithmetic, comparisons, logic and activations, with torch's type promotion.

use tpuc_ir::{
    Attribute, BinaryOp, ComparisonDirection, CustomCallOptions, ElementType, FunctionBuilder,
    NamedAttrs, UnaryOp, Value,
};
use tpuc_pt2::DType;

use super::one;
use crate::args::{Args, Operand};
use crate::cx::Cx;
use crate::dtype::{is_integral, is_unsigned};
use crate::env::Val;
use crate::error::{OpError, OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::{Scalar, to_float};
use crate::support::{self, broadcast_operands, result_type};

pub(super) const OPS: &[OpDef] = &[
    aten(
        "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        add,
    ),
    aten(
        "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
        add,
    ),
    aten(
        "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        sub,
    ),
    aten(
        "sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
        sub,
    ),
    aten(
        "rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        rsub,
    ),
    aten(
        "rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
        rsub,
    ),
    aten("mul.Tensor(Tensor self, Tensor other) -> Tensor", mul),
    aten("mul.Scalar(Tensor self, Scalar other) -> Tensor", mul),
    aten("div.Tensor(Tensor self, Tensor other) -> Tensor", div),
    aten("div.Scalar(Tensor self, Scalar other) -> Tensor", div),
    aten(
        "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
        div,
    ),
    aten(
        "div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor",
        div,
    ),
    aten(
        "floor_divide(Tensor self, Tensor other) -> Tensor",
        floor_divide,
    ),
    aten(
        "floor_divide.Scalar(Tensor self, Scalar other) -> Tensor",
        floor_divide,
    ),
    aten(
        "remainder.Tensor(Tensor self, Tensor other) -> Tensor",
        remainder,
    ),
    aten(
        "remainder.Scalar(Tensor self, Scalar other) -> Tensor",
        remainder,
    ),
    aten("fmod.Tensor(Tensor self, Tensor other) -> Tensor", fmod),
    aten("fmod.Scalar(Tensor self, Scalar other) -> Tensor", fmod),
    aten(
        "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
        pow,
    ),
    aten(
        "pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
        pow,
    ),
    aten("pow.Scalar(Scalar self, Tensor exponent) -> Tensor", pow),
    aten("maximum(Tensor self, Tensor other) -> Tensor", maximum),
    aten("minimum(Tensor self, Tensor other) -> Tensor", minimum),
    aten("eq.Tensor(Tensor self, Tensor other) -> Tensor", eq),
    aten("eq.Scalar(Tensor self, Scalar other) -> Tensor", eq),
    aten("ne.Tensor(Tensor self, Tensor other) -> Tensor", ne),
    aten("ne.Scalar(Tensor self, Scalar other) -> Tensor", ne),
    aten("lt.Tensor(Tensor self, Tensor other) -> Tensor", lt),
    aten("lt.Scalar(Tensor self, Scalar other) -> Tensor", lt),
    aten("le.Tensor(Tensor self, Tensor other) -> Tensor", le),
    aten("le.Scalar(Tensor self, Scalar other) -> Tensor", le),
    aten("gt.Tensor(Tensor self, Tensor other) -> Tensor", gt),
    aten("gt.Scalar(Tensor self, Scalar other) -> Tensor", gt),
    aten("ge.Tensor(Tensor self, Tensor other) -> Tensor", ge),
    aten("ge.Scalar(Tensor self, Scalar other) -> Tensor", ge),
    aten(
        "logical_and(Tensor self, Tensor other) -> Tensor",
        logical_and,
    ),
    aten(
        "logical_or(Tensor self, Tensor other) -> Tensor",
        logical_or,
    ),
    aten(
        "logical_xor(Tensor self, Tensor other) -> Tensor",
        logical_xor,
    ),
    aten("logical_not(Tensor self) -> Tensor", logical_not),
    aten(
        "bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor",
        bitwise_and,
    ),
    aten(
        "bitwise_and.Scalar(Tensor self, Scalar other) -> Tensor",
        bitwise_and,
    ),
    aten(
        "__and__.Tensor(Tensor self, Tensor other) -> Tensor",
        bitwise_and,
    ),
    aten(
        "__and__.Scalar(Tensor self, Scalar other) -> Tensor",
        bitwise_and,
    ),
    aten(
        "bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor",
        bitwise_or,
    ),
    aten(
        "bitwise_or.Scalar(Tensor self, Scalar other) -> Tensor",
        bitwise_or,
    ),
    aten(
        "__or__.Tensor(Tensor self, Tensor other) -> Tensor",
        bitwise_or,
    ),
    aten(
        "__or__.Scalar(Tensor self, Scalar other) -> Tensor",
        bitwise_or,
    ),
    aten(
        "bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor",
        bitwise_xor,
    ),
    aten(
        "bitwise_xor.Scalar(Tensor self, Scalar other) -> Tensor",
        bitwise_xor,
    ),
    aten(
        "__xor__.Tensor(Tensor self, Tensor other) -> Tensor",
        bitwise_xor,
    ),
    aten(
        "__xor__.Scalar(Tensor self, Scalar other) -> Tensor",
        bitwise_xor,
    ),
    aten("bitwise_not(Tensor self) -> Tensor", bitwise_not),
    aten(
        "__lshift__.Scalar(Tensor self, Scalar other) -> Tensor",
        shift_left,
    ),
    aten(
        "__lshift__.Tensor(Tensor self, Tensor other) -> Tensor",
        shift_left,
    ),
    aten(
        "bitwise_left_shift.Tensor(Tensor self, Tensor other) -> Tensor",
        shift_left,
    ),
    aten(
        "__rshift__.Scalar(Tensor self, Scalar other) -> Tensor",
        shift_right,
    ),
    aten(
        "__rshift__.Tensor(Tensor self, Tensor other) -> Tensor",
        shift_right,
    ),
    aten(
        "bitwise_right_shift.Tensor(Tensor self, Tensor other) -> Tensor",
        shift_right,
    ),
    aten(
        "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
        where_,
    ),
    aten(
        "where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor",
        where_,
    ),
    aten(
        "where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor",
        where_,
    ),
    aten(
        "where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor",
        where_,
    ),
    aten(
        "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
        clamp,
    ),
    aten(
        "clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
        clamp,
    ),
    aten("clamp_min(Tensor self, Scalar min) -> Tensor", clamp),
    aten("clamp_max(Tensor self, Scalar max) -> Tensor", clamp),
    aten("clamp_min.Tensor(Tensor self, Tensor min) -> Tensor", clamp),
    aten("clamp_max.Tensor(Tensor self, Tensor max) -> Tensor", clamp),
    aten(
        "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
        hardtanh,
    ),
    aten("neg(Tensor self) -> Tensor", neg),
    aten("abs(Tensor self) -> Tensor", abs),
    aten("sign(Tensor self) -> Tensor", sign),
    aten("floor(Tensor self) -> Tensor", floor),
    aten("ceil(Tensor self) -> Tensor", ceil),
    aten("round(Tensor self) -> Tensor", round),
    aten(
        "round.decimals(Tensor self, *, int decimals) -> Tensor",
        round_decimals,
    ),
    aten("trunc(Tensor self) -> Tensor", trunc),
    aten("exp(Tensor self) -> Tensor", exp),
    aten("expm1(Tensor self) -> Tensor", expm1),
    aten("log(Tensor self) -> Tensor", log),
    aten("log1p(Tensor self) -> Tensor", log1p),
    aten("sqrt(Tensor self) -> Tensor", sqrt),
    aten("rsqrt(Tensor self) -> Tensor", rsqrt),
    aten("reciprocal(Tensor self) -> Tensor", reciprocal),
    aten("sin(Tensor self) -> Tensor", sin),
    aten("cos(Tensor self) -> Tensor", cos),
    aten("tan(Tensor self) -> Tensor", tan),
    aten("tanh(Tensor self) -> Tensor", tanh),
    aten("sigmoid(Tensor self) -> Tensor", sigmoid),
    aten("erf(Tensor self) -> Tensor", erf),
    aten("relu(Tensor self) -> Tensor", relu),
    aten(
        "gelu(Tensor self, *, str approximate='none') -> Tensor",
        gelu,
    ),
    aten("silu(Tensor self) -> Tensor", silu),
    aten(
        "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
        leaky_relu,
    ),
    aten(
        "elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor",
        elu,
    ),
    aten(
        "softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor",
        softplus,
    ),
    aten("hardsigmoid(Tensor self) -> Tensor", hardsigmoid),
    aten("hardswish(Tensor self) -> Tensor", hardswish),
    aten("mish(Tensor self) -> Tensor", mish),
    aten("max.other(Tensor self, Tensor other) -> Tensor", maximum),
    aten("min.other(Tensor self, Tensor other) -> Tensor", minimum),
    aten("atan2(Tensor self, Tensor other) -> Tensor", atan2),
    // Core ATen lists the `out=` form; the result is written to `out` as its alias.
    aten(
        "atan2.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
        atan2,
    ),
    aten("log2(Tensor self) -> Tensor", log2),
    aten("log10(Tensor self) -> Tensor", log10),
    aten("exp2(Tensor self) -> Tensor", exp2),
    aten("square(Tensor self) -> Tensor", square),
    aten("isnan(Tensor self) -> Tensor", isnan),
    aten("isinf(Tensor self) -> Tensor", isinf),
    aten("isfinite(Tensor self) -> Tensor", isfinite),
    aten(
        "masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",
        masked_fill,
    ),
    aten(
        "masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor",
        masked_fill,
    ),
];

/// Promotes `operands`, broadcasts them, and combines them with `combine` in `dtype` (`None`:
/// the promoted dtype).
fn promoted(
    cx: &mut Cx<'_>,
    operands: &[Operand],
    compute: impl FnOnce(DType) -> DType,
    combine: impl FnOnce(&mut FunctionBuilder, &[Value], DType) -> OpResult<Value>,
) -> OpResult<Vec<Val>> {
    let dtype = compute(result_type(cx.b, operands)?);
    let values = broadcast_operands(cx.b, operands, dtype)?;
    one(combine(cx.b, &values, dtype)?)
}

fn same(dtype: DType) -> DType {
    dtype
}

/// Integers and bools become the default float (ops like `div`, `exp`, `sigmoid`).
fn binary_operands(args: &Args<'_>) -> OpResult<[Operand; 2]> {
    Ok([args.operand("self")?, args.operand("other")?])
}

fn bool_op(op: BinaryOp, dtype: DType) -> BinaryOp {
    match (op, dtype) {
        (BinaryOp::Add, DType::Bool) => BinaryOp::Or,
        (BinaryOp::Multiply, DType::Bool) => BinaryOp::And,
        _ => op,
    }
}

/// `self + alpha * other` (`sign` -1 for subtraction).
fn add_sub(
    cx: &mut Cx<'_>,
    lhs: Operand,
    rhs: Operand,
    alpha: Scalar,
    op: BinaryOp,
) -> OpResult<Vec<Val>> {
    promoted(cx, &[lhs, rhs], same, |b, v, dtype| {
        let mut rhs = v[1];
        if !alpha.is(1.0) {
            let scale = support::like(b, rhs, alpha)?;
            rhs = b.multiply(rhs, scale)?;
        }
        support::binary(b, bool_op(op, dtype), v[0], rhs)
    })
}

fn add(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let [lhs, rhs] = binary_operands(args)?;
    add_sub(cx, lhs, rhs, args.scalar("alpha")?, BinaryOp::Add)
}

fn sub(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let [lhs, rhs] = binary_operands(args)?;
    add_sub(cx, lhs, rhs, args.scalar("alpha")?, BinaryOp::Subtract)
}

fn rsub(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let [lhs, rhs] = binary_operands(args)?;
    add_sub(cx, rhs, lhs, args.scalar("alpha")?, BinaryOp::Subtract)
}

fn mul(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let operands = binary_operands(args)?;
    promoted(cx, &operands, same, |b, v, dtype| {
        support::binary(b, bool_op(BinaryOp::Multiply, dtype), v[0], v[1])
    })
}

fn div(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let operands = binary_operands(args)?;
    let mode = if args.given("rounding_mode") {
        args.opt_str("rounding_mode")?
    } else {
        None
    };
    match mode {
        None => promoted(cx, &operands, to_float, |b, v, _| Ok(b.divide(v[0], v[1])?)),
        Some("trunc") => promoted(cx, &operands, same, |b, v, dtype| {
            let q = b.divide(v[0], v[1])?;
            if is_integral(dtype) {
                Ok(q)
            } else {
                trunc_value(b, q)
            }
        }),
        Some("floor") => promoted(cx, &operands, same, |b, v, dtype| {
            floor_div(b, v[0], v[1], dtype)
        }),
        Some(other) => {
            bail!("unknown rounding_mode `{other}` (torch takes None, \"trunc\" or \"floor\")")
        }
    }
}

fn floor_divide(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let operands = binary_operands(args)?;
    promoted(cx, &operands, same, |b, v, dtype| {
        floor_div(b, v[0], v[1], dtype)
    })
}

/// Python's `//`: rounds the quotient towards negative infinity.
pub(crate) fn floor_div(
    b: &mut FunctionBuilder,
    lhs: Value,
    rhs: Value,
    dtype: DType,
) -> OpResult<Value> {
    if !is_integral(dtype) {
        let q = b.divide(lhs, rhs)?;
        return Ok(b.floor(q)?);
    }
    let q = b.divide(lhs, rhs)?;
    if is_unsigned(dtype) {
        return Ok(q);
    }
    // Truncated quotient, minus one when the remainder is nonzero and the signs differ.
    let r = b.remainder(lhs, rhs)?;
    let adjust = sign_mismatch(b, r, rhs)?;
    let one = support::like(b, q, Scalar::Int(1))?;
    let q1 = b.subtract(q, one)?;
    Ok(b.select(adjust, q1, q)?)
}

/// `r != 0 && (r < 0) != (d < 0)`; one comparison when `d` is a constant.
fn sign_mismatch(b: &mut FunctionBuilder, r: Value, d: Value) -> OpResult<Value> {
    let zero = support::like(b, r, Scalar::Int(0))?;
    match support::splat_value(b, d).map(Scalar::as_f64) {
        Some(d) if d > 0.0 => return Ok(b.compare(ComparisonDirection::Lt, r, zero)?),
        Some(d) if d < 0.0 => return Ok(b.compare(ComparisonDirection::Gt, r, zero)?),
        _ => {}
    }
    let nonzero = b.compare(ComparisonDirection::Ne, r, zero)?;
    let r_neg = b.compare(ComparisonDirection::Lt, r, zero)?;
    let d_neg = b.compare(ComparisonDirection::Lt, d, zero)?;
    let differ = b.compare(ComparisonDirection::Ne, r_neg, d_neg)?;
    Ok(b.and(nonzero, differ)?)
}

fn remainder(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let operands = binary_operands(args)?;
    promoted(cx, &operands, same, |b, v, dtype| {
        let r = b.remainder(v[0], v[1])?;
        if is_unsigned(dtype) {
            return Ok(r);
        }
        // Python's `%` takes the divisor's sign; StableHLO's remainder the dividend's.
        let adjust = sign_mismatch(b, r, v[1])?;
        let shifted = b.add(r, v[1])?;
        Ok(b.select(adjust, shifted, r)?)
    })
}

fn fmod(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let operands = binary_operands(args)?;
    promoted(cx, &operands, same, |b, v, _| Ok(b.remainder(v[0], v[1])?))
}

fn pow(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let base = args.operand("self")?;
    let exponent = args.operand("exponent")?;
    if let (Operand::Tensor(_), Operand::Scalar(e)) = (base, exponent)
        && !e.is_complex()
    {
        // Small integral and half exponents as multiplies and roots.
        let dtype = result_type(cx.b, &[base, exponent])?;
        let x = broadcast_operands(cx.b, &[base], dtype)?[0];
        let b = &mut *cx.b;
        let e = e.as_f64();
        let out = if e == 1.0 {
            Some(x)
        } else if e == 2.0 {
            Some(b.multiply(x, x)?)
        } else if e == 3.0 {
            let sq = b.multiply(x, x)?;
            Some(b.multiply(sq, x)?)
        } else if e == 0.5 && !is_integral(dtype) {
            Some(b.sqrt(x)?)
        } else if e == -0.5 && !is_integral(dtype) {
            Some(b.rsqrt(x)?)
        } else if e == -1.0 && !is_integral(dtype) {
            let one = support::like(b, x, Scalar::Int(1))?;
            Some(b.divide(one, x)?)
        } else {
            None
        };
        if let Some(out) = out {
            return one(out);
        }
    }
    promoted(cx, &[base, exponent], same, |b, v, _| {
        Ok(b.power(v[0], v[1])?)
    })
}

/// `maximum`/`minimum` propagating NaN from either side, as torch does (XLA:CPU's
/// `maximum` keeps the left operand when the right one is NaN).
pub(super) fn extremum(
    b: &mut FunctionBuilder,
    op: BinaryOp,
    lhs: Value,
    rhs: Value,
) -> OpResult<Value> {
    let m = b.binary(op, lhs, rhs)?;
    if !support::element(b, lhs)?.is_float() {
        return Ok(m);
    }
    let lhs_nan = b.compare(ComparisonDirection::Ne, lhs, lhs)?;
    let rhs_nan = b.compare(ComparisonDirection::Ne, rhs, rhs)?;
    let m = b.select(rhs_nan, rhs, m)?;
    Ok(b.select(lhs_nan, lhs, m)?)
}

fn maximum(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let operands = binary_operands(args)?;
    promoted(cx, &operands, same, |b, v, _| {
        extremum(b, BinaryOp::Maximum, v[0], v[1])
    })
}

fn minimum(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let operands = binary_operands(args)?;
    promoted(cx, &operands, same, |b, v, _| {
        extremum(b, BinaryOp::Minimum, v[0], v[1])
    })
}

fn compare(cx: &mut Cx<'_>, args: &Args<'_>, direction: ComparisonDirection) -> OpResult<Vec<Val>> {
    let operands = binary_operands(args)?;
    promoted(cx, &operands, same, |b, v, _| {
        Ok(b.compare(direction, v[0], v[1])?)
    })
}

fn eq(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    compare(cx, args, ComparisonDirection::Eq)
}
fn ne(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    compare(cx, args, ComparisonDirection::Ne)
}
fn lt(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    compare(cx, args, ComparisonDirection::Lt)
}
fn le(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    compare(cx, args, ComparisonDirection::Le)
}
fn gt(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    compare(cx, args, ComparisonDirection::Gt)
}
fn ge(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    compare(cx, args, ComparisonDirection::Ge)
}

/// `x != 0` as bool (identity for bool tensors).
pub(crate) fn truthy(b: &mut FunctionBuilder, v: Value) -> OpResult<Value> {
    if support::dtype(b, v)? == DType::Bool {
        return Ok(v);
    }
    let zero = support::like(b, v, Scalar::Int(0))?;
    Ok(b.compare(ComparisonDirection::Ne, v, zero)?)
}

fn logical(cx: &mut Cx<'_>, args: &Args<'_>, op: BinaryOp) -> OpResult<Vec<Val>> {
    let lhs = args.tensor("self")?;
    let rhs = args.tensor("other")?;
    let lhs = truthy(cx.b, lhs)?;
    let rhs = truthy(cx.b, rhs)?;
    let v = broadcast_operands(
        cx.b,
        &[Operand::Tensor(lhs), Operand::Tensor(rhs)],
        DType::Bool,
    )?;
    one(support::binary(cx.b, op, v[0], v[1])?)
}

fn logical_and(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    logical(cx, args, BinaryOp::And)
}
fn logical_or(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    logical(cx, args, BinaryOp::Or)
}
fn logical_xor(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    logical(cx, args, BinaryOp::Xor)
}

fn logical_not(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let x = truthy(cx.b, x)?;
    one(cx.b.not(x)?)
}

fn bitwise(cx: &mut Cx<'_>, args: &Args<'_>, op: BinaryOp) -> OpResult<Vec<Val>> {
    let operands = binary_operands(args)?;
    promoted(cx, &operands, same, |b, v, dtype| {
        if !(is_integral(dtype) || dtype == DType::Bool) {
            bail!("bitwise ops take integer or bool tensors, not {dtype}");
        }
        support::binary(b, op, v[0], v[1])
    })
}

fn bitwise_and(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    bitwise(cx, args, BinaryOp::And)
}
fn bitwise_or(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    bitwise(cx, args, BinaryOp::Or)
}
fn bitwise_xor(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    bitwise(cx, args, BinaryOp::Xor)
}
fn shift_left(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    bitwise(cx, args, BinaryOp::ShiftLeft)
}

fn shift_right(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let operands = binary_operands(args)?;
    promoted(cx, &operands, same, |b, v, dtype| {
        let op = if is_unsigned(dtype) {
            BinaryOp::ShiftRightLogical
        } else {
            BinaryOp::ShiftRightArithmetic
        };
        Ok(b.binary(op, v[0], v[1])?)
    })
}

fn bitwise_not(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    one(cx.b.not(x)?)
}

fn where_(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let condition = args.tensor("condition")?;
    let condition = truthy(cx.b, condition)?;
    let on_true = args.operand("self")?;
    let on_false = args.operand("other")?;
    let dtype = result_type(cx.b, &[on_true, on_false])?;
    let shape = support::common_shape(cx.b, &[Operand::Tensor(condition), on_true, on_false])?;
    let condition = support::broadcast_to(cx.b, condition, &shape)?;
    let t = support::materialize(cx.b, on_true, dtype, &shape)?;
    let f = support::materialize(cx.b, on_false, dtype, &shape)?;
    one(cx.b.select(condition, t, f)?)
}

fn clamp_value(
    cx: &mut Cx<'_>,
    x: Value,
    min: Option<Operand>,
    max: Option<Operand>,
) -> OpResult<Vec<Val>> {
    let mut operands = vec![Operand::Tensor(x)];
    operands.extend(min);
    operands.extend(max);
    let dtype = result_type(cx.b, &operands)?;
    let v = broadcast_operands(cx.b, &operands, dtype)?;
    let mut out = v[0];
    let mut next = 1;
    if min.is_some() {
        out = cx.b.maximum(out, v[next])?;
        next += 1;
    }
    if max.is_some() {
        out = cx.b.minimum(out, v[next])?;
    }
    one(out)
}

fn clamp(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let bound = |name: &str| -> OpResult<Option<Operand>> {
        if args.raw(name).is_err() {
            return Ok(None);
        }
        match args.value_of(args.raw(name)?)? {
            Val::None => Ok(None),
            _ => args.operand(name).map(Some),
        }
    };
    let (min, max) = (bound("min")?, bound("max")?);
    if min.is_none() && max.is_none() {
        return Err(OpError::new("clamp needs `min` or `max`"));
    }
    clamp_value(cx, x, min, max)
}

/// Unlike `clamp`, the result keeps `self`'s dtype: the bounds are converted to it (an integer
/// tensor's bounds truncated, as torch's `Scalar::to<int64_t>`).
fn hardtanh(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let b = &mut *cx.b;
    let min = support::like(b, x, args.scalar("min_val")?)?;
    let max = support::like(b, x, args.scalar("max_val")?)?;
    let low = b.maximum(x, min)?;
    one(b.minimum(low, max)?)
}

/// A unary op in the input's dtype (`float_only`: integers promote to the default float first).
fn unary(cx: &mut Cx<'_>, args: &Args<'_>, op: UnaryOp, float_only: bool) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let dtype = support::dtype(cx.b, x)?;
    let x = if float_only {
        support::convert(cx.b, x, to_float(dtype))?
    } else {
        x
    };
    one(cx.b.unary(op, x)?)
}

fn neg(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    unary(cx, args, UnaryOp::Negate, false)
}
fn abs(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    unary(cx, args, UnaryOp::Abs, false)
}
/// The sign of a bool is the bool.
fn sign(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    if support::dtype(cx.b, x)? == DType::Bool {
        return one(x);
    }
    unary(cx, args, UnaryOp::Sign, false)
}

/// Rounding ops are the identity on integers.
fn rounding(cx: &mut Cx<'_>, args: &Args<'_>, op: UnaryOp) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    if !support::element(cx.b, x)?.is_float() {
        return one(x);
    }
    one(cx.b.unary(op, x)?)
}

fn floor(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    rounding(cx, args, UnaryOp::Floor)
}
fn ceil(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    rounding(cx, args, UnaryOp::Ceil)
}
/// `torch.round` rounds half to even.
fn round(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    rounding(cx, args, UnaryOp::RoundNearestEven)
}

/// `round(x, decimals)` as torch computes it: scaled by `10^|decimals|`, rounded half to
/// even, scaled back.
fn round_decimals(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let decimals = args.int("decimals")?;
    let b = &mut *cx.b;
    if !support::element(b, x)?.is_float() {
        return one(x);
    }
    let scale = support::like(
        b,
        x,
        Scalar::Float(10f64.powi(decimals.unsigned_abs() as i32)),
    )?;
    let (scaled, back) = if decimals >= 0 {
        (b.multiply(x, scale)?, BinaryOp::Divide)
    } else {
        (b.divide(x, scale)?, BinaryOp::Multiply)
    };
    let rounded = b.round_nearest_even(scaled)?;
    one(support::binary(b, back, rounded, scale)?)
}

fn trunc_value(b: &mut FunctionBuilder, x: Value) -> OpResult<Value> {
    let zero = support::like(b, x, Scalar::Int(0))?;
    let negative = b.compare(ComparisonDirection::Lt, x, zero)?;
    let up = b.ceil(x)?;
    let down = b.floor(x)?;
    Ok(b.select(negative, up, down)?)
}

fn trunc(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    if !support::element(cx.b, x)?.is_float() {
        return one(x);
    }
    one(trunc_value(cx.b, x)?)
}

fn exp(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    unary(cx, args, UnaryOp::Exponential, true)
}
fn expm1(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    unary(cx, args, UnaryOp::ExponentialMinusOne, true)
}
fn log(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    unary(cx, args, UnaryOp::Log, true)
}
fn log1p(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    unary(cx, args, UnaryOp::LogPlusOne, true)
}
fn sqrt(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    unary(cx, args, UnaryOp::Sqrt, true)
}
fn rsqrt(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    unary(cx, args, UnaryOp::Rsqrt, true)
}
fn sin(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    unary(cx, args, UnaryOp::Sine, true)
}
fn cos(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    unary(cx, args, UnaryOp::Cosine, true)
}
fn tan(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    unary(cx, args, UnaryOp::Tan, true)
}
fn tanh(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    unary(cx, args, UnaryOp::Tanh, true)
}
fn sigmoid(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    unary(cx, args, UnaryOp::Logistic, true)
}

fn reciprocal(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let x = support::convert(cx.b, x, to_float(support::dtype(cx.b, x)?))?;
    let one_ = support::like(cx.b, x, Scalar::Int(1))?;
    one(cx.b.divide(one_, x)?)
}

/// Runs `body` in float32 for narrower float types (as torch's CPU kernels compute them), and
/// converts the result back.
pub(super) fn in_f32(
    b: &mut FunctionBuilder,
    x: Value,
    body: impl FnOnce(&mut FunctionBuilder, Value) -> OpResult<Value>,
) -> OpResult<Value> {
    let dtype = to_float(support::dtype(b, x)?);
    let wide = matches!(dtype, DType::BF16 | DType::F16);
    let compute = if wide { DType::F32 } else { dtype };
    let x = support::convert(b, x, compute)?;
    let y = body(b, x)?;
    support::convert(b, y, dtype)
}

/// `erf` as XLA's own `mhlo.erf`, carried by a custom call (as torch_xla and JAX's serialized
/// modules do): the plugins expand it with their own float32 approximation.
pub(crate) fn erf_value(b: &mut FunctionBuilder, x: Value) -> OpResult<Value> {
    let ty = b.value_type(x)?.clone();
    let erf = b.custom_call("mhlo.erf", &[x], vec![ty], CustomCallOptions::default())?[0];
    b.set_op_attr(erf, "mhlo.attributes", Attribute::Dict(NamedAttrs::new()))?;
    b.set_op_attr(
        erf,
        "mhlo.version",
        Attribute::Int {
            value: 1,
            ty: ElementType::I64,
        },
    )?;
    Ok(erf)
}

fn erf(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    one(in_f32(cx.b, x, erf_value)?)
}

fn relu(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let zero = support::like(cx.b, x, Scalar::Int(0))?;
    one(cx.b.maximum(x, zero)?)
}

fn gelu(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let approximate = args.str("approximate")?;
    let out = match approximate {
        "none" => in_f32(cx.b, x, |b, x| {
            // 0.5 * x * (1 + erf(x / sqrt(2)))
            let inv_sqrt2 = support::like(b, x, Scalar::Float(std::f64::consts::FRAC_1_SQRT_2))?;
            let scaled = b.multiply(x, inv_sqrt2)?;
            let e = erf_value(b, scaled)?;
            half_x_one_plus(b, x, e)
        })?,
        "tanh" => in_f32(cx.b, x, |b, x| {
            // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
            let x2 = b.multiply(x, x)?;
            let x3 = b.multiply(x2, x)?;
            let c = support::like(b, x, Scalar::Float(0.044715))?;
            let cx3 = b.multiply(c, x3)?;
            let inner = b.add(x, cx3)?;
            let k = support::like(b, x, Scalar::Float((2.0 / std::f64::consts::PI).sqrt()))?;
            let arg = b.multiply(k, inner)?;
            let t = b.tanh(arg)?;
            half_x_one_plus(b, x, t)
        })?,
        other => bail!("unknown GELU approximation `{other}` (torch takes \"none\" or \"tanh\")"),
    };
    one(out)
}

/// `0.5 * x * (1 + t)`.
fn half_x_one_plus(b: &mut FunctionBuilder, x: Value, t: Value) -> OpResult<Value> {
    let one_ = support::like(b, x, Scalar::Int(1))?;
    let half = support::like(b, x, Scalar::Float(0.5))?;
    let s = b.add(one_, t)?;
    let hx = b.multiply(half, x)?;
    Ok(b.multiply(hx, s)?)
}

fn silu(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let s = cx.b.logistic(x)?;
    one(cx.b.multiply(x, s)?)
}

fn leaky_relu(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let slope = args.scalar("negative_slope")?;
    let b = &mut *cx.b;
    let zero = support::like(b, x, Scalar::Int(0))?;
    let k = support::like(b, x, slope)?;
    let positive = b.compare(ComparisonDirection::Gt, x, zero)?;
    let scaled = b.multiply(x, k)?;
    one(b.select(positive, x, scaled)?)
}

fn elu(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let alpha = args.scalar("alpha")?;
    let scale = args.scalar("scale")?;
    let input_scale = args.scalar("input_scale")?;
    let b = &mut *cx.b;
    let zero = support::like(b, x, Scalar::Int(0))?;
    let positive = b.compare(ComparisonDirection::Gt, x, zero)?;
    let is = support::like(b, x, input_scale)?;
    let xs = b.multiply(x, is)?;
    let em1 = b.exponential_minus_one(xs)?;
    let a = support::like(b, x, alpha)?;
    let neg = b.multiply(a, em1)?;
    let picked = b.select(positive, x, neg)?;
    let s = support::like(b, x, scale)?;
    one(if scale.is(1.0) {
        picked
    } else {
        b.multiply(picked, s)?
    })
}

/// `log(1 + exp(beta * x)) / beta`, or `x` where `beta * x > threshold`.
fn softplus_value(
    b: &mut FunctionBuilder,
    x: Value,
    beta: Scalar,
    threshold: Scalar,
) -> OpResult<Value> {
    let kb = support::like(b, x, beta)?;
    let bx = support::binary(b, BinaryOp::Multiply, x, kb)?;
    let e = b.exponential(bx)?;
    let l = b.log_plus_one(e)?;
    let soft = support::binary(b, BinaryOp::Divide, l, kb)?;
    let t = support::like(b, x, threshold)?;
    let linear = b.compare(ComparisonDirection::Gt, bx, t)?;
    Ok(b.select(linear, x, soft)?)
}

fn softplus(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let beta = args.scalar("beta")?;
    let threshold = args.scalar("threshold")?;
    one(softplus_value(cx.b, x, beta, threshold)?)
}

/// `x * tanh(softplus(x))`.
fn mish(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let sp = softplus_value(cx.b, x, Scalar::Int(1), Scalar::Int(20))?;
    let t = cx.b.tanh(sp)?;
    one(cx.b.multiply(x, t)?)
}

/// `relu6(x + 3) / 6`.
fn hardsigmoid_value(b: &mut FunctionBuilder, x: Value) -> OpResult<Value> {
    let three = support::like(b, x, Scalar::Int(3))?;
    let zero = support::like(b, x, Scalar::Int(0))?;
    let six = support::like(b, x, Scalar::Int(6))?;
    let shifted = b.add(x, three)?;
    let clamped = b.clamp(zero, shifted, six)?;
    Ok(b.divide(clamped, six)?)
}

fn hardsigmoid(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    one(hardsigmoid_value(cx.b, x)?)
}

fn hardswish(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let h = hardsigmoid_value(cx.b, x)?;
    one(cx.b.multiply(x, h)?)
}

fn atan2(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let operands = binary_operands(args)?;
    promoted(cx, &operands, to_float, |b, v, _| Ok(b.atan2(v[0], v[1])?))
}

/// `log(x) * k` for the logarithm of another base.
fn log_base(cx: &mut Cx<'_>, args: &Args<'_>, base: f64) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let x = support::convert(cx.b, x, to_float(support::dtype(cx.b, x)?))?;
    let l = cx.b.log(x)?;
    let k = support::like(cx.b, l, Scalar::Float(1.0 / base.ln()))?;
    one(cx.b.multiply(l, k)?)
}

fn log2(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    log_base(cx, args, 2.0)
}
fn log10(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    log_base(cx, args, 10.0)
}

fn exp2(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let x = support::convert(cx.b, x, to_float(support::dtype(cx.b, x)?))?;
    let two = support::like(cx.b, x, Scalar::Int(2))?;
    one(cx.b.power(two, x)?)
}

fn square(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    // `x * x`, with bools promoted to int64 as torch's `pow(x, 2)` does.
    let x = if support::dtype(cx.b, x)? == DType::Bool {
        support::convert(cx.b, x, DType::I64)?
    } else {
        x
    };
    one(cx.b.multiply(x, x)?)
}

/// A float classification; for integers (never NaN or infinite) the constant `integer`.
fn classify(
    cx: &mut Cx<'_>,
    args: &Args<'_>,
    test: fn(&mut FunctionBuilder, Value) -> OpResult<Value>,
    integer: bool,
) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    if !support::element(cx.b, x)?.is_float() {
        let shape = support::shape(cx.b, x)?;
        return one(support::splat(
            cx.b,
            DType::Bool,
            &shape,
            Scalar::Bool(integer),
        )?);
    }
    one(test(cx.b, x)?)
}

fn isnan_value(b: &mut FunctionBuilder, x: Value) -> OpResult<Value> {
    Ok(b.compare(ComparisonDirection::Ne, x, x)?)
}

fn isfinite_value(b: &mut FunctionBuilder, x: Value) -> OpResult<Value> {
    Ok(b.is_finite(x)?)
}

fn isinf_value(b: &mut FunctionBuilder, x: Value) -> OpResult<Value> {
    let abs = b.abs(x)?;
    let inf = support::like(b, x, Scalar::Float(f64::INFINITY))?;
    Ok(b.compare(ComparisonDirection::Eq, abs, inf)?)
}

fn isnan(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    classify(cx, args, isnan_value, false)
}
fn isinf(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    classify(cx, args, isinf_value, false)
}
fn isfinite(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    classify(cx, args, isfinite_value, true)
}

/// `where(mask, value, self)` in `self`'s dtype and shape.
fn masked_fill(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let mask = args.tensor("mask")?;
    let value = args.operand("value")?;
    let dtype = support::dtype(cx.b, x)?;
    // The mask may broadcast the input to a larger shape (torch allows it out of place).
    let shape = support::broadcast_shapes(&support::shape(cx.b, x)?, &support::shape(cx.b, mask)?)?;
    let x = support::broadcast_to(cx.b, x, &shape)?;
    let mask = truthy(cx.b, mask)?;
    let mask = support::broadcast_to(cx.b, mask, &shape)?;
    let fill = support::materialize(cx.b, value, dtype, &shape)?;
    one(cx.b.select(mask, fill, x)?)
}
