//! `chlo.erf` and `chlo.erfc` by XLA's approximations: for f32 (and f16/bf16, computed in
//! f32) erf is Eigen's rational approximation on [-4, 4] and erfc Cephes' (`1 - x T(x²)` for
//! |x| < 1, `e^(-x²)/|x| P(1/x²)` beyond); for f64 both use Cephes' f64 rational
//! approximations.

// The published coefficients, digit for digit (more than f64 holds).
#![allow(clippy::excessive_precision)]

use tpuc_ir::{ComparisonDirection, IrError, OpBuilder, Value};

use super::{polynomial, select_where, splat_like};

const ERF_F32_ALPHA: [f64; 7] = [
    -2.72614225801306e-10,
    2.77068142495902e-08,
    -2.10102402082508e-06,
    -5.69250639462346e-05,
    -7.34990630326855e-04,
    -2.95459980854025e-03,
    -1.60960333262415e-02,
];
const ERF_F32_BETA: [f64; 5] = [
    -1.45660718464996e-05,
    -2.13374055278905e-04,
    -1.68282697438203e-03,
    -7.37332916720468e-03,
    -1.42647390514189e-02,
];
/// erf(x) = x T(x²) on |x| <= 1 (Cephes, f32).
const ERF_F32_T: [f64; 7] = [
    7.853861353153693E-5,
    -8.010193625184903E-4,
    5.188327685732524E-3,
    -2.685381193529856E-2,
    1.128358514861418E-1,
    -3.761262582423300E-1,
    1.128379165726710E+0,
];
/// erfc(x) = e^(-x²)/x P(1/x²) on [1, 2) and R(1/x²) beyond (Cephes, f32).
const ERFC_F32_P: [f64; 9] = [
    2.326819970068386E-2,
    -1.387039388740657E-1,
    3.687424674597105E-1,
    -5.824733027278666E-1,
    6.210004621745983E-1,
    -4.944515323274145E-1,
    3.404879937665872E-1,
    -2.741127028184656E-1,
    5.638259427386472E-1,
];
const ERFC_F32_R: [f64; 8] = [
    -1.047766399936249E+1,
    1.297719955372516E+1,
    -7.495518717768503E+0,
    2.921019019210786E+0,
    -1.015265279202700E+0,
    4.218463358204948E-1,
    -2.820767439740514E-1,
    5.641895067754075E-1,
];
/// Below `-MAXLOG`, `e^z` underflows: erfc is 0 (or 2 for negative x).
const MAXLOG_F32: f64 = 88.72283905206835;
const MAXLOG_F64: f64 = 7.09782712893383996843E2;

/// erf(x) = x T(x²) / U(x²) on |x| <= 1 (Cephes, f64).
const ERF_F64_T: [f64; 5] = [
    9.60497373987051638749E0,
    9.00260197203842689217E1,
    2.23200534594684319226E3,
    7.00332514112805075473E3,
    5.55923013010394962768E4,
];
const ERF_F64_U: [f64; 6] = [
    1.00000000000000000000E0,
    3.35617141647503099647E1,
    5.21357949780152679795E2,
    4.59432382970980127987E3,
    2.26290000613890934246E4,
    4.92673942608635921086E4,
];
/// erfc(x) = e^(-x²) P(|x|) / Q(|x|) on [1, 8) and R/S beyond (Cephes, f64).
const ERFC_F64_P: [f64; 9] = [
    2.46196981473530512524E-10,
    5.64189564831068821977E-1,
    7.46321056442269912687E0,
    4.86371970985681366614E1,
    1.96520832956077098242E2,
    5.26445194995477358631E2,
    9.34528527171957607540E2,
    1.02755188689515710272E3,
    5.57535335369399327526E2,
];
const ERFC_F64_Q: [f64; 9] = [
    1.00000000000000000000E0,
    1.32281951154744992508E1,
    8.67072140885989742329E1,
    3.54937778887819891062E2,
    9.75708501743205489753E2,
    1.82390916687909736289E3,
    2.24633760818710981792E3,
    1.65666309194161350182E3,
    5.57535340817727675546E2,
];
const ERFC_F64_R: [f64; 6] = [
    5.64189583547755073984E-1,
    1.27536670759978104416E0,
    5.01905042251180477414E0,
    6.16021097993053585195E0,
    7.40974269950448939160E0,
    2.97886665372100240670E0,
];
const ERFC_F64_S: [f64; 7] = [
    1.00000000000000000000E0,
    2.26052863220117276590E0,
    9.39603524938001434673E0,
    1.20489539808096656605E1,
    1.70814450747565897222E1,
    9.60896809063285878198E0,
    3.36907645100081516050E0,
];

pub(super) fn erf_f32(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let low = splat_like(b, x, -4.0)?;
    let high = splat_like(b, x, 4.0)?;
    let x = b.clamp(low, x, high)?;
    let square = b.multiply(x, x)?;
    let alpha = polynomial(b, square, &ERF_F32_ALPHA)?;
    let beta = polynomial(b, square, &ERF_F32_BETA)?;
    let numerator = b.multiply(x, alpha)?;
    let erf = b.divide(numerator, beta)?;
    let minus_one = splat_like(b, x, -1.0)?;
    let one = splat_like(b, x, 1.0)?;
    b.clamp(minus_one, erf, one)
}

pub(super) fn erfc_f32(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let square = b.multiply(x, x)?;
    let near_zero = polynomial(b, square, &ERF_F32_T)?;
    let erf_small = b.multiply(x, near_zero)?;
    let one = splat_like(b, x, 1.0)?;
    let from_erf = b.subtract(one, erf_small)?;

    let a = b.abs(x)?;
    let inverse_square = b.divide(one, square)?;
    let p = polynomial(b, inverse_square, &ERFC_F32_P)?;
    let r = polynomial(b, inverse_square, &ERFC_F32_R)?;
    let two = splat_like(b, x, 2.0)?;
    let tail = select_where(b, a, ComparisonDirection::Lt, two, p, r)?;
    let z = b.negate(square)?;
    let gaussian = b.exponential(z)?;
    let inverse = b.divide(one, a)?;
    let scale = b.multiply(gaussian, inverse)?;
    let large = b.multiply(scale, tail)?;
    let large = reflect_erfc(b, x, z, large, MAXLOG_F32)?;
    select_where(b, a, ComparisonDirection::Lt, one, from_erf, large)
}

/// Zero where `e^z` underflows, and `2 - erfc(|x|)` for negative `x`.
fn reflect_erfc(
    b: &mut OpBuilder<'_>,
    x: Value,
    z: Value,
    erfc_of_magnitude: Value,
    maxlog: f64,
) -> Result<Value, IrError> {
    let zero = splat_like(b, x, 0.0)?;
    let limit = splat_like(b, x, -maxlog)?;
    let clamped = select_where(
        b,
        z,
        ComparisonDirection::Lt,
        limit,
        zero,
        erfc_of_magnitude,
    )?;
    let two = splat_like(b, x, 2.0)?;
    let reflected = b.subtract(two, clamped)?;
    select_where(b, x, ComparisonDirection::Lt, zero, reflected, clamped)
}

/// erf on |x| <= 1 (f64).
fn erf_f64_small(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let square = b.multiply(x, x)?;
    let t = polynomial(b, square, &ERF_F64_T)?;
    let u = polynomial(b, square, &ERF_F64_U)?;
    let numerator = b.multiply(x, t)?;
    b.divide(numerator, u)
}

/// erfc on |x| >= 1 (f64).
fn erfc_f64_large(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let square = b.multiply(x, x)?;
    let z = b.negate(square)?;
    let gaussian = b.exponential(z)?;
    let a = b.abs(x)?;
    let p = polynomial(b, a, &ERFC_F64_P)?;
    let q = polynomial(b, a, &ERFC_F64_Q)?;
    let r = polynomial(b, a, &ERFC_F64_R)?;
    let s = polynomial(b, a, &ERFC_F64_S)?;
    let gp = b.multiply(gaussian, p)?;
    let middle = b.divide(gp, q)?;
    let gr = b.multiply(gaussian, r)?;
    let far = b.divide(gr, s)?;
    let eight = splat_like(b, x, 8.0)?;
    let value = select_where(b, a, ComparisonDirection::Lt, eight, middle, far)?;
    reflect_erfc(b, x, z, value, MAXLOG_F64)
}

pub(super) fn erf_f64(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let small = erf_f64_small(b, x)?;
    let large = erfc_f64_large(b, x)?;
    let one = splat_like(b, x, 1.0)?;
    let from_erfc = b.subtract(one, large)?;
    let a = b.abs(x)?;
    select_where(b, a, ComparisonDirection::Lt, one, small, from_erfc)
}

pub(super) fn erfc_f64(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let small = erf_f64_small(b, x)?;
    let one = splat_like(b, x, 1.0)?;
    let from_erf = b.subtract(one, small)?;
    let large = erfc_f64_large(b, x)?;
    let a = b.abs(x)?;
    select_where(b, a, ComparisonDirection::Lt, one, from_erf, large)
}
