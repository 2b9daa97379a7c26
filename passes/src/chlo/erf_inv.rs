//! `chlo.erf_inv` by Giles' single-precision approximation ("Approximating the erfinv
//! function", GPU Computing Gems, 2011), as XLA computes f32: with `w = -log(1 - x²)`,
//! `erfinv(x) = x p(w - 2.5)` for `w < 5`, `x q(sqrt(w) - 3)` above; `±inf` at `x = ±1`.
//! f64 starts from the same formula and takes two Newton steps on `erf(y) = x`.

// The published coefficients, digit for digit.
#![allow(clippy::excessive_precision)]

use std::f64::consts::PI;

use tpuc_ir::{ComparisonDirection, IrError, OpBuilder, Value};

use super::erf::erf_f64;
use super::{polynomial, select_where, splat_like};

const CENTRAL: [f64; 9] = [
    2.81022636e-08,
    3.43273939e-07,
    -3.5233877e-06,
    -4.39150654e-06,
    0.00021858087,
    -0.00125372503,
    -0.00417768164,
    0.246640727,
    1.50140941,
];

const TAIL: [f64; 9] = [
    -0.000200214257,
    0.000100950558,
    0.00134934322,
    -0.00367342844,
    0.00573950773,
    -0.0076224613,
    0.00943887047,
    1.00167406,
    2.83297682,
];

pub(super) fn erf_inv_f32(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let square = b.multiply(x, x)?;
    let negated = b.negate(square)?;
    let log = b.log_plus_one(negated)?;
    let w = b.negate(log)?;
    let two_and_half = splat_like(b, x, 2.5)?;
    let central_arg = b.subtract(w, two_and_half)?;
    let central = polynomial(b, central_arg, &CENTRAL)?;
    let root = b.sqrt(w)?;
    let three = splat_like(b, x, 3.0)?;
    let tail_arg = b.subtract(root, three)?;
    let tail = polynomial(b, tail_arg, &TAIL)?;
    let five = splat_like(b, x, 5.0)?;
    let p = select_where(b, w, ComparisonDirection::Lt, five, central, tail)?;
    let value = b.multiply(p, x)?;
    let magnitude = b.abs(x)?;
    let one = splat_like(b, x, 1.0)?;
    let inf = splat_like(b, x, f64::INFINITY)?;
    let pole = b.multiply(x, inf)?;
    select_where(b, magnitude, ComparisonDirection::Eq, one, pole, value)
}

pub(super) fn erf_inv_f64(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let guess = erf_inv_f32(b, x)?;
    let mut y = guess;
    for _ in 0..2 {
        y = newton_step(b, x, y)?;
    }
    // At ±1 the guess is ±inf and a Newton step would make it NaN; outside, NaN already.
    let finite = b.is_finite(guess)?;
    b.select(finite, y, guess)
}

/// `y - (erf(y) - x) / erf'(y)`, `erf'(y) = 2/√π exp(-y²)`.
fn newton_step(b: &mut OpBuilder<'_>, x: Value, y: Value) -> Result<Value, IrError> {
    let erf = erf_f64(b, y)?;
    let residual = b.subtract(erf, x)?;
    let square = b.multiply(y, y)?;
    let negated = b.negate(square)?;
    let gaussian = b.exponential(negated)?;
    let scale = splat_like(b, x, 2.0 / PI.sqrt())?;
    let slope = b.multiply(scale, gaussian)?;
    let step = b.divide(residual, slope)?;
    b.subtract(y, step)
}
