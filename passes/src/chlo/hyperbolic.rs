//! Hyperbolic ops and their inverses, as XLA computes them:
//! - `sinh`: `(e^x - e^-x) / 2` as `e^(x + log ½) - e^(-x + log ½)` (no overflow while the
//!   result is finite); for |x| < 1 from `expm1` to keep precision near 0;
//! - `cosh`: `e^(x + log ½) + e^(-x + log ½)`;
//! - `asinh(x) = sign(x) log1p(|x| + x² / (1 + sqrt(x² + 1)))`, `log|x| + log 2` once `x²`
//!   would overflow;
//! - `acosh(x) = log(x + sqrt((x + 1)(x - 1)))`, `log x + log 2` once that would overflow,
//!   NaN below -1;
//! - `atanh(x) = (log1p(x) - log1p(-x)) / 2`, NaN where |x| > 1.

use std::f64::consts::LN_2;

use tpuc_ir::{ComparisonDirection, ElementType, IrError, OpBuilder, Value};

use super::{select_where, splat_like};

/// e^(x + log ½) and e^(-x + log ½).
fn half_exponentials(b: &mut OpBuilder<'_>, x: Value) -> Result<(Value, Value), IrError> {
    let log_half = splat_like(b, x, 0.5f64.ln())?;
    let up = b.add(x, log_half)?;
    let down = b.subtract(log_half, x)?;
    Ok((b.exponential(up)?, b.exponential(down)?))
}

pub(super) fn sinh(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let (up, down) = half_exponentials(b, x)?;
    let large = b.subtract(up, down)?;
    let em1 = b.exponential_minus_one(x)?;
    let one = splat_like(b, x, 1.0)?;
    let e = b.add(em1, one)?;
    let ratio = b.divide(em1, e)?;
    let sum = b.add(em1, ratio)?;
    let half = splat_like(b, x, 0.5)?;
    let small = b.multiply(sum, half)?;
    let magnitude = b.abs(x)?;
    select_where(b, magnitude, ComparisonDirection::Lt, one, small, large)
}

pub(super) fn cosh(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let (up, down) = half_exponentials(b, x)?;
    b.add(up, down)
}

/// `sqrt(largest finite value)` of the element type: beyond it `x²` overflows.
fn overflow_threshold(element: ElementType) -> f64 {
    let max = match element {
        ElementType::F64 => f64::MAX,
        ElementType::F16 => 65504.0,
        _ => f64::from(f32::MAX),
    };
    max.sqrt()
}

/// `log(a) + log 2`, the limit of `log(a + sqrt(a² ± 1))` for large `a`.
fn log_twice(b: &mut OpBuilder<'_>, a: Value) -> Result<Value, IrError> {
    let log = b.log(a)?;
    let ln2 = splat_like(b, a, LN_2)?;
    b.add(log, ln2)
}

pub(super) fn asinh(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let element = b.tensor_type(x)?.element;
    let a = b.abs(x)?;
    let one = splat_like(b, x, 1.0)?;
    let square = b.multiply(a, a)?;
    let square_plus_one = b.add(square, one)?;
    let root = b.sqrt(square_plus_one)?;
    let denominator = b.add(one, root)?;
    let ratio = b.divide(square, denominator)?;
    let argument = b.add(a, ratio)?;
    let moderate = b.log_plus_one(argument)?;
    let large = log_twice(b, a)?;
    let threshold = splat_like(b, x, overflow_threshold(element))?;
    let magnitude = select_where(b, a, ComparisonDirection::Ge, threshold, large, moderate)?;
    let sign = b.sign(x)?;
    b.multiply(sign, magnitude)
}

pub(super) fn acosh(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let element = b.tensor_type(x)?.element;
    let one = splat_like(b, x, 1.0)?;
    let above = b.add(x, one)?;
    let below = b.subtract(x, one)?;
    let product = b.multiply(above, below)?;
    let root = b.sqrt(product)?;
    let sum = b.add(x, root)?;
    let moderate = b.log(sum)?;
    let large = log_twice(b, x)?;
    let threshold = splat_like(b, x, overflow_threshold(element))?;
    let value = select_where(b, x, ComparisonDirection::Ge, threshold, large, moderate)?;
    let minus_one = splat_like(b, x, -1.0)?;
    let nan = splat_like(b, x, f64::NAN)?;
    select_where(b, x, ComparisonDirection::Lt, minus_one, nan, value)
}

pub(super) fn atanh(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let up = b.log_plus_one(x)?;
    let negated = b.negate(x)?;
    let down = b.log_plus_one(negated)?;
    let difference = b.subtract(up, down)?;
    let half = splat_like(b, x, 0.5)?;
    let value = b.multiply(difference, half)?;
    let a = b.abs(x)?;
    let one = splat_like(b, x, 1.0)?;
    let nan = splat_like(b, x, f64::NAN)?;
    select_where(b, a, ComparisonDirection::Gt, one, nan, value)
}
