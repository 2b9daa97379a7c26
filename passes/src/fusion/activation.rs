//! Activations: GELU (tanh and erf forms), SiLU and SwiGLU (`silu(gate) * up`).

use std::f64::consts::{FRAC_1_SQRT_2, PI};

use tpuc_ir::{Attribute, BinaryOp, Function, NamedAttrs, OpId, OpKind, UnaryOp, Value};

use super::matcher::{Taker, is_rounded, splat_value};
use super::names;
use super::outline::{Match, Operand};

/// `0.5 * x * (1 + t)` in any association and operand order, `t` being what `inner` accepts
/// (given `x`).
fn half_x_one_plus<'f>(
    t: &mut Taker<'f>,
    root: Value,
    inner: impl Fn(&mut Taker<'f>, Value, Value) -> Option<()>,
) -> Option<Value> {
    let (a, b) = t.peek_binary(root, BinaryOp::Multiply)?;
    t.binary(root, BinaryOp::Multiply)?;
    let mut factors = Vec::new();
    let mut half = None;
    for side in [a, b] {
        match t.with_splat(side, BinaryOp::Multiply) {
            Some((y, c)) if half.is_none() => {
                half = Some(c);
                factors.push(y);
            }
            _ => factors.push(side),
        }
    }
    if half != Some(0.5) {
        return None;
    }
    let [p, q] = factors[..] else { return None };
    for (one_plus, x) in [(p, q), (q, p)] {
        let mut attempt = t.fork();
        let Some((inner_t, one)) = attempt.with_splat(one_plus, BinaryOp::Add) else {
            continue;
        };
        if one == 1.0 && inner(&mut attempt, inner_t, x).is_some() {
            *t = attempt;
            return Some(x);
        }
    }
    None
}

/// `x * x * x` in either association.
fn cube(t: &mut Taker<'_>, value: Value, x: Value) -> Option<()> {
    let other = t.binary_with(value, BinaryOp::Multiply, x)?;
    let square = t.binary_with(other, BinaryOp::Multiply, x)?;
    (square == x).then_some(())
}

/// `tanh(sqrt(2/pi) * (x + 0.044715 * x^3))`.
fn tanh_inner(t: &mut Taker<'_>, value: Value, x: Value) -> Option<()> {
    let arg = t.unary(value, UnaryOp::Tanh)?;
    let (inner, k) = t.with_splat(arg, BinaryOp::Multiply)?;
    if !is_rounded(t.f, k, (2.0 / PI).sqrt(), arg) {
        return None;
    }
    let cubic = t.binary_with(inner, BinaryOp::Add, x)?;
    let (x3, c) = t.with_splat(cubic, BinaryOp::Multiply)?;
    if !is_rounded(t.f, c, 0.044715, cubic) {
        return None;
    }
    cube(t, x3, x)
}

/// `erf(x / sqrt(2))`, erf being `custom_call @mhlo.erf` (how XLA's own erf travels).
fn erf_inner(t: &mut Taker<'_>, value: Value, x: Value) -> Option<()> {
    let erf = t.take(
        value,
        |k| matches!(k, OpKind::CustomCall { target, .. } if target == "mhlo.erf"),
    )?;
    let [arg] = erf.operands[..] else { return None };
    if let Some((y, k)) = t.with_splat(arg, BinaryOp::Multiply) {
        return (y == x && is_rounded(t.f, k, FRAC_1_SQRT_2, arg)).then_some(());
    }
    let (y, d) = t.binary(arg, BinaryOp::Divide)?;
    let d = splat_value(t.f, d)?;
    (y == x && is_rounded(t.f, d, 2f64.sqrt(), arg)).then_some(())
}

fn gelu(f: &Function, root: OpId, approximate: &str) -> Option<Match> {
    let mut t = Taker::new(f);
    let out = *f.op(root).results.first()?;
    let x = if approximate == "tanh" {
        half_x_one_plus(&mut t, out, tanh_inner)?
    } else {
        half_x_one_plus(&mut t, out, erf_inner)?
    };
    Some(Match {
        name: names::GELU,
        version: 1,
        attributes: NamedAttrs::new()
            .with("approximate", Attribute::String(approximate.to_owned())),
        ops: t.ops,
        operands: vec![Operand::plain(x)],
        results: vec![out],
        result_perm: None,
        result_shape: None,
    })
}

pub fn gelu_tanh(f: &Function, root: OpId) -> Option<Match> {
    gelu(f, root, "tanh")
}

pub fn gelu_erf(f: &Function, root: OpId) -> Option<Match> {
    gelu(f, root, "none")
}

/// `x * logistic(x)`: `x`.
fn silu_of(t: &mut Taker<'_>, value: Value) -> Option<Value> {
    let (a, b) = t.peek_binary(value, BinaryOp::Multiply)?;
    for (x, s) in [(a, b), (b, a)] {
        let mut attempt = t.fork();
        if attempt.unary(s, UnaryOp::Logistic) == Some(x) {
            attempt.binary(value, BinaryOp::Multiply)?;
            *t = attempt;
            return Some(x);
        }
    }
    None
}

/// `convert(silu(convert(x)))` back to `x`'s type: a SiLU computed in a wider type (torch's
/// half-precision `silu` decomposition); `x`.
fn upcast_silu_of(t: &mut Taker<'_>, value: Value) -> Option<Value> {
    let mut attempt = t.fork();
    let wide = attempt.convert(value)?;
    let widened = silu_of(&mut attempt, wide)?;
    let x = attempt.convert(widened)?;
    if attempt.f.value_type(x) != attempt.f.value_type(value) {
        return None;
    }
    *t = attempt;
    Some(x)
}

pub fn silu(f: &Function, root: OpId) -> Option<Match> {
    let mut t = Taker::new(f);
    let out = *f.op(root).results.first()?;
    let x = silu_of(&mut t, out)?;
    Some(Match {
        name: names::SILU,
        version: 1,
        attributes: NamedAttrs::new(),
        ops: t.ops,
        operands: vec![Operand::plain(x)],
        results: vec![out],
        result_perm: None,
        result_shape: None,
    })
}

pub fn swiglu(f: &Function, root: OpId) -> Option<Match> {
    let out = *f.op(root).results.first()?;
    for (gated, up) in Taker::new(f).both_orders(out, BinaryOp::Multiply)? {
        let mut t = Taker::new(f);
        t.binary(out, BinaryOp::Multiply)?;
        let gate = silu_of(&mut t, gated).or_else(|| upcast_silu_of(&mut t, gated));
        if let Some(gate) = gate {
            return Some(Match {
                name: names::SWIGLU,
                version: 1,
                attributes: NamedAttrs::new(),
                ops: t.ops,
                operands: vec![Operand::plain(gate), Operand::plain(up)],
                results: vec![out],
                result_perm: None,
                result_shape: None,
            });
        }
    }
    None
}
