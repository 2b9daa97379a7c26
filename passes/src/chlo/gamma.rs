//! `chlo.lgamma` and `chlo.digamma` by Lanczos' approximation (g = 7, n = 9), with Euler's
//! reflection below ½, as XLA computes them (f16/bf16 in f32):
//! `lgamma(z + 1) = log(2π)/2 + (z + ½) log t - t + log a(z)`, `t = z + g + ½`,
//! `a(z) = c₀ + Σ cₖ / (z + k)`; `digamma(z + 1) = log t + a'(z)/a(z) - g/t`.

// The published coefficients, digit for digit (more than f64 holds).
#![allow(clippy::excessive_precision)]

use std::f64::consts::PI;

use tpuc_ir::{ComparisonDirection, IrError, OpBuilder, Value};

use super::predicates::is_inf;
use super::{select_where, splat_like};

const LANCZOS_GAMMA: f64 = 7.0;
const LANCZOS_BASE: f64 = 0.99999999999980993227684700473478;
const LANCZOS_COEFFICIENTS: [f64; 8] = [
    676.520368121885098567009190444019,
    -1259.13921672240287047156078755283,
    771.3234287776530788486528258894,
    -176.61502916214059906584551354,
    12.507343278686904814458936853,
    -0.13857109526572011689554707,
    9.984369578019570859563e-6,
    1.50563273514931155834e-7,
];

/// What both functions share: whether `x` reflects, `z` (`-x` or `x - 1`), `t`, `log t`,
/// `a(z)` and `a'(z)`.
struct Lanczos {
    reflect: Value,
    z: Value,
    t: Value,
    log_t: Value,
    a: Value,
    a_prime: Value,
}

fn lanczos(b: &mut OpBuilder<'_>, x: Value) -> Result<Lanczos, IrError> {
    let half = splat_like(b, x, 0.5)?;
    let reflect = b.compare(ComparisonDirection::Lt, x, half)?;
    let negated = b.negate(x)?;
    let one = splat_like(b, x, 1.0)?;
    let shifted = b.subtract(x, one)?;
    let z = b.select(reflect, negated, shifted)?;
    let mut a = splat_like(b, x, LANCZOS_BASE)?;
    let mut a_prime = splat_like(b, x, 0.0)?;
    for (i, &c) in LANCZOS_COEFFICIENTS.iter().enumerate() {
        let k = splat_like(b, x, (i + 1) as f64)?;
        let c = splat_like(b, x, c)?;
        let denominator = b.add(z, k)?;
        let term = b.divide(c, denominator)?;
        a = b.add(a, term)?;
        let squared = b.multiply(denominator, denominator)?;
        let derivative = b.divide(c, squared)?;
        a_prime = b.subtract(a_prime, derivative)?;
    }
    // log t = log(g + ½) + log1p(z / (g + ½)): exact where log is not.
    let g_half = splat_like(b, x, LANCZOS_GAMMA + 0.5)?;
    let t = b.add(g_half, z)?;
    let ratio = b.divide(z, g_half)?;
    let log1p = b.log_plus_one(ratio)?;
    let log_g_half = splat_like(b, x, (LANCZOS_GAMMA + 0.5).ln())?;
    let log_t = b.add(log_g_half, log1p)?;
    Ok(Lanczos {
        reflect,
        z,
        t,
        log_t,
        a,
        a_prime,
    })
}

pub(super) fn lgamma(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let l = lanczos(b, x)?;
    let half = splat_like(b, x, 0.5)?;
    let one = splat_like(b, x, 1.0)?;
    // (z + ½) log t - t, as (z + ½ - t / log t) log t so that it does not overflow.
    let t_over_log = b.divide(l.t, l.log_t)?;
    let z_half = b.add(l.z, half)?;
    let factor = b.subtract(z_half, t_over_log)?;
    let r = b.multiply(factor, l.log_t)?;
    let log_a = b.log(l.a)?;
    let log_sqrt_two_pi = splat_like(b, x, (2f64.ln() + PI.ln()) / 2.0)?;
    let partial = b.add(log_sqrt_two_pi, r)?;
    let direct = b.add(partial, log_a)?;

    // lgamma(x) = log π - lgamma(1 - x) - log|sin(π x)|, with |sin(π x)| from the fractional
    // part of |x| folded into [0, ½] (exact zeros at integers, no overflow of π x).
    let a = b.abs(x)?;
    let floor = b.floor(a)?;
    let fraction = b.subtract(a, floor)?;
    let complement = b.subtract(one, fraction)?;
    let fraction = select_where(
        b,
        half,
        ComparisonDirection::Lt,
        fraction,
        complement,
        fraction,
    )?;
    let pi = splat_like(b, x, PI)?;
    let angle = b.multiply(pi, fraction)?;
    let sine = b.sine(angle)?;
    let log_sine = b.log(sine)?;
    let log_pi = splat_like(b, x, PI.ln())?;
    let reflected = b.subtract(log_pi, log_sine)?;
    let reflected = b.subtract(reflected, direct)?;
    let finite = b.is_finite(log_sine)?;
    let pole = b.negate(log_sine)?;
    let reflected = b.select(finite, reflected, pole)?;
    let value = b.select(l.reflect, reflected, direct)?;

    let infinite = is_inf(b, x)?;
    let inf = splat_like(b, x, f64::INFINITY)?;
    b.select(infinite, inf, value)
}

pub(super) fn digamma(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let l = lanczos(b, x)?;
    let ratio = b.divide(l.a_prime, l.a)?;
    let g = splat_like(b, x, LANCZOS_GAMMA)?;
    let g_over_t = b.divide(g, l.t)?;
    let sum = b.add(l.log_t, ratio)?;
    let direct = b.subtract(sum, g_over_t)?;

    // digamma(x) = digamma(1 - x) - π cot(π x), with x moved into [-½, ½] first.
    let half = splat_like(b, x, 0.5)?;
    let shifted = b.add(x, half)?;
    let floor = b.floor(shifted)?;
    let offset = b.abs(floor)?;
    let reduced = b.add(x, offset)?;
    let pi = splat_like(b, x, PI)?;
    let angle = b.multiply(pi, reduced)?;
    let cosine = b.cosine(angle)?;
    let sine = b.sine(angle)?;
    let pi_cos = b.multiply(pi, cosine)?;
    let cot = b.divide(pi_cos, sine)?;
    let reflected = b.subtract(direct, cot)?;
    let value = b.select(l.reflect, reflected, direct)?;

    // Poles: NaN at negative integers, -inf at zero.
    let zero = splat_like(b, x, 0.0)?;
    let is_zero = b.compare(ComparisonDirection::Eq, x, zero)?;
    let negative = b.compare(ComparisonDirection::Lt, x, zero)?;
    let whole = b.floor(x)?;
    let integral = b.compare(ComparisonDirection::Eq, x, whole)?;
    let negative_integer = b.and(negative, integral)?;
    let nan = splat_like(b, x, f64::NAN)?;
    let value = b.select(negative_integer, nan, value)?;
    let minus_inf = splat_like(b, x, f64::NEG_INFINITY)?;
    b.select(is_zero, minus_inf, value)
}
