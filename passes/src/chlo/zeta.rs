//! `chlo.zeta` (Hurwitz's `ζ(x, q) = Σₙ (q + n)^-x`) and `chlo.polygamma`, as XLA computes
//! them after Cephes: the first terms summed, the tail by Euler–Maclaurin,
//! `ζ ≈ Σₙ₌₀ᴺ (q+n)^-x + w^(1-x)/(x-1) - w^-x/2 + Σₖ B₂ₖ/(2k)! x(x+1)…(x+2k-2) w^(-x-2k+1)`
//! with `w = q + N`; `ψ⁽ⁿ⁾(x) = (-1)ⁿ⁺¹ n! ζ(n+1, x)`, `ψ⁽⁰⁾ = digamma`.

use tpuc_ir::{ComparisonDirection, IrError, OpBuilder, Value};

use super::gamma::{digamma, lgamma};
use super::{select_where, splat_like};

/// Terms summed before the Euler–Maclaurin tail.
const TERMS: usize = 9;

/// The Bernoulli numbers `B₂ … B₂₄` as fractions.
const BERNOULLI: [(f64, f64); 12] = [
    (1.0, 6.0),
    (-1.0, 30.0),
    (1.0, 42.0),
    (-1.0, 30.0),
    (5.0, 66.0),
    (-691.0, 2730.0),
    (7.0, 6.0),
    (-3617.0, 510.0),
    (43867.0, 798.0),
    (-174611.0, 330.0),
    (854513.0, 138.0),
    (-236364091.0, 2730.0),
];

/// `B₂ₖ / (2k)!` for k = 1..=12.
fn tail_coefficients() -> impl Iterator<Item = f64> {
    BERNOULLI.iter().enumerate().map(|(i, &(num, den))| {
        let factorial: f64 = (1..=2 * (i as u64 + 1)).map(|v| v as f64).product();
        num / (den * factorial)
    })
}

pub(super) fn zeta(b: &mut OpBuilder<'_>, x: Value, q: Value) -> Result<Value, IrError> {
    let one = splat_like(b, x, 1.0)?;
    let neg_x = b.negate(x)?;
    let mut sum = b.power(q, neg_x)?;
    let mut w = q;
    let mut last = sum;
    for _ in 0..TERMS {
        w = b.add(w, one)?;
        last = b.power(w, neg_x)?;
        sum = b.add(sum, last)?;
    }
    // `last` is w^-x, counted whole in the sum; the trapezoid rule wants half of it.
    let x_minus_one = b.subtract(x, one)?;
    let scaled = b.multiply(last, w)?;
    let integral = b.divide(scaled, x_minus_one)?;
    sum = b.add(sum, integral)?;
    let half = splat_like(b, x, 0.5)?;
    let half_last = b.multiply(half, last)?;
    sum = b.subtract(sum, half_last)?;
    let mut rising = one;
    let mut power = last;
    let mut k = 0.0;
    for coefficient in tail_coefficients() {
        let shift = splat_like(b, x, k)?;
        let factor = b.add(x, shift)?;
        rising = b.multiply(rising, factor)?;
        power = b.divide(power, w)?;
        let product = b.multiply(rising, power)?;
        let coefficient = splat_like(b, x, coefficient)?;
        let term = b.multiply(product, coefficient)?;
        sum = b.add(sum, term)?;
        let shift = splat_like(b, x, k + 1.0)?;
        let factor = b.add(x, shift)?;
        rising = b.multiply(rising, factor)?;
        power = b.divide(power, w)?;
        k += 2.0;
    }
    domain(b, x, q, sum)
}

/// The value where the series does not apply: `+inf` at `x = 1`, NaN for `x < 1` and for
/// `q ≤ 0` with `x` not an integer; at the poles (integer `q ≤ 0`) `+inf` for even `x`,
/// else NaN.
fn domain(b: &mut OpBuilder<'_>, x: Value, q: Value, value: Value) -> Result<Value, IrError> {
    let one = splat_like(b, x, 1.0)?;
    let zero = splat_like(b, x, 0.0)?;
    let two = splat_like(b, x, 2.0)?;
    let inf = splat_like(b, x, f64::INFINITY)?;
    let nan = splat_like(b, x, f64::NAN)?;
    let value = select_where(b, x, ComparisonDirection::Eq, one, inf, value)?;
    let value = select_where(b, x, ComparisonDirection::Lt, one, nan, value)?;
    let q_not_positive = b.compare(ComparisonDirection::Le, q, zero)?;
    let x_floor = b.floor(x)?;
    let x_fractional = b.compare(ComparisonDirection::Ne, x, x_floor)?;
    let undefined = b.and(q_not_positive, x_fractional)?;
    let value = b.select(undefined, nan, value)?;
    let q_floor = b.floor(q)?;
    let q_integer = b.compare(ComparisonDirection::Eq, q, q_floor)?;
    let at_pole = b.and(q_not_positive, q_integer)?;
    let x_half = b.remainder(x, two)?;
    let x_even = b.compare(ComparisonDirection::Eq, x_half, zero)?;
    let x_integer = b.not(x_fractional)?;
    let x_even_integer = b.and(x_even, x_integer)?;
    let pole = b.select(x_even_integer, inf, nan)?;
    b.select(at_pole, pole, value)
}

pub(super) fn polygamma(b: &mut OpBuilder<'_>, n: Value, x: Value) -> Result<Value, IrError> {
    let one = splat_like(b, x, 1.0)?;
    let two = splat_like(b, x, 2.0)?;
    let zero = splat_like(b, x, 0.0)?;
    let n_plus_one = b.add(n, one)?;
    let log_factorial = lgamma(b, n_plus_one)?;
    let factorial = b.exponential(log_factorial)?;
    // (-1)^(n+1): 1 for odd n, -1 for even n.
    let parity = b.remainder(n, two)?;
    let doubled = b.multiply(parity, two)?;
    let sign = b.subtract(doubled, one)?;
    let series = zeta(b, n_plus_one, x)?;
    let scaled = b.multiply(sign, factorial)?;
    let value = b.multiply(scaled, series)?;
    let psi = digamma(b, x)?;
    let value = select_where(b, n, ComparisonDirection::Eq, zero, psi, value)?;
    let n_floor = b.floor(n)?;
    let fractional = b.compare(ComparisonDirection::Ne, n, n_floor)?;
    let negative = b.compare(ComparisonDirection::Lt, n, zero)?;
    let invalid = b.or(fractional, negative)?;
    let nan = splat_like(b, x, f64::NAN)?;
    b.select(invalid, nan, value)
}
