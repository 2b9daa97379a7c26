//! The inverse trigonometric functions and the hyperbolic ones but `tanh`: CHLO ops (the
//! driver's `chlo-legalize` expands them), computed in float32 for half types as torch's CPU
//! kernels do, integers and bools promoted to float. CHLO defines them for reals only; of
//! complex numbers they are built from the parts' real functions (`sinh`, `cosh`) or from
//! complex logarithms and square roots, whose principal branches give C99's branch cuts, as
//! torch's.

use std::f64::consts::FRAC_PI_2;

use tpuc_ir::{ChloUnaryOp, ComparisonDirection, FunctionBuilder, Value};

use super::elementwise::in_f32;
use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support;

pub(super) const OPS: &[OpDef] = &[
    aten("acos(Tensor self) -> Tensor", |cx, args| {
        chlo(cx, args, ChloUnaryOp::Acos)
    }),
    aten("asin(Tensor self) -> Tensor", |cx, args| {
        chlo(cx, args, ChloUnaryOp::Asin)
    }),
    aten("atan(Tensor self) -> Tensor", |cx, args| {
        chlo(cx, args, ChloUnaryOp::Atan)
    }),
    aten("acosh(Tensor self) -> Tensor", |cx, args| {
        chlo(cx, args, ChloUnaryOp::Acosh)
    }),
    aten("asinh(Tensor self) -> Tensor", |cx, args| {
        chlo(cx, args, ChloUnaryOp::Asinh)
    }),
    aten("atanh(Tensor self) -> Tensor", |cx, args| {
        chlo(cx, args, ChloUnaryOp::Atanh)
    }),
    aten("cosh(Tensor self) -> Tensor", |cx, args| {
        chlo(cx, args, ChloUnaryOp::Cosh)
    }),
    aten("sinh(Tensor self) -> Tensor", |cx, args| {
        chlo(cx, args, ChloUnaryOp::Sinh)
    }),
];

fn chlo(cx: &mut Cx<'_>, args: &Args<'_>, op: ChloUnaryOp) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    if support::element(cx.b, x)?.is_complex() {
        return one(complex(cx.b, op, x)?);
    }
    one(in_f32(cx.b, x, |b, x| Ok(b.chlo_unary(op, x)?))?)
}

fn complex(b: &mut FunctionBuilder, op: ChloUnaryOp, z: Value) -> OpResult<Value> {
    Ok(match op {
        // sinh(x + iy) = sinh x cos y + i cosh x sin y, cosh(x + iy) = cosh x cos y + i sinh x sin y.
        ChloUnaryOp::Sinh | ChloUnaryOp::Cosh => {
            let (x, y) = (b.real(z)?, b.imag(z)?);
            let sinh = b.chlo_unary(ChloUnaryOp::Sinh, x)?;
            let cosh = b.chlo_unary(ChloUnaryOp::Cosh, x)?;
            let (cos, sin) = (b.cosine(y)?, b.sine(y)?);
            let (re, im) = if op == ChloUnaryOp::Sinh {
                (b.multiply(sinh, cos)?, b.multiply(cosh, sin)?)
            } else {
                (b.multiply(cosh, cos)?, b.multiply(sinh, sin)?)
            };
            b.complex(re, im)?
        }
        ChloUnaryOp::Asinh => asinh(b, z)?,
        ChloUnaryOp::Atanh => atanh(b, z)?,
        // asin z = -i asinh(iz), atan z = -i atanh(iz).
        ChloUnaryOp::Asin | ChloUnaryOp::Atan => {
            let i = support::like(b, z, Scalar::Complex(0.0, 1.0))?;
            let minus_i = support::like(b, z, Scalar::Complex(0.0, -1.0))?;
            let iz = b.multiply(i, z)?;
            let w = if op == ChloUnaryOp::Asin {
                asinh(b, iz)?
            } else {
                atanh(b, iz)?
            };
            b.multiply(minus_i, w)?
        }
        // acosh z = log(z + sqrt(z + 1) sqrt(z - 1)).
        ChloUnaryOp::Acosh => {
            let one = support::like(b, z, Scalar::Int(1))?;
            let above = b.add(z, one)?;
            let above = b.sqrt(above)?;
            let below = b.subtract(z, one)?;
            let below = b.sqrt(below)?;
            let root = b.multiply(above, below)?;
            let sum = b.add(z, root)?;
            b.log(sum)?
        }
        // acos z = π/2 - asin z.
        ChloUnaryOp::Acos => {
            let asin = complex(b, ChloUnaryOp::Asin, z)?;
            let quarter_turn = support::like(b, z, Scalar::Float(FRAC_PI_2))?;
            b.subtract(quarter_turn, asin)?
        }
        other => bail!("{other:?} of complex numbers is not implemented"),
    })
}

/// asinh z = log(z + sqrt(z² + 1)), taken of -z (and negated, asinh being odd) where the real
/// part is negative, so the sum does not cancel.
fn asinh(b: &mut FunctionBuilder, z: Value) -> OpResult<Value> {
    let re = b.real(z)?;
    let zero = support::like(b, re, Scalar::Int(0))?;
    let negative = b.compare(ComparisonDirection::Lt, re, zero)?;
    let minus_z = b.negate(z)?;
    let w = b.select(negative, minus_z, z)?;
    let one = support::like(b, w, Scalar::Int(1))?;
    let square = b.multiply(w, w)?;
    let square = b.add(square, one)?;
    let root = b.sqrt(square)?;
    let sum = b.add(w, root)?;
    let log = b.log(sum)?;
    let minus_log = b.negate(log)?;
    Ok(b.select(negative, minus_log, log)?)
}

/// atanh z = (log(1 + z) - log(1 - z)) / 2.
fn atanh(b: &mut FunctionBuilder, z: Value) -> OpResult<Value> {
    let one = support::like(b, z, Scalar::Int(1))?;
    let above = b.add(one, z)?;
    let above = b.log(above)?;
    let below = b.subtract(one, z)?;
    let below = b.log(below)?;
    let difference = b.subtract(above, below)?;
    let half = support::like(b, z, Scalar::Float(0.5))?;
    Ok(b.multiply(difference, half)?)
}
