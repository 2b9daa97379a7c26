//! `chlo.bessel_i1e`, the exponentially scaled modified Bessel function of the first kind,
//! order one, `i1e(x) = exp(-|x|) I₁(x)`, by Cephes' Chebyshev expansions (as XLA computes it):
//! `|x| A(|x|/2 - 2)` for `|x| ≤ 8`, `B(32/|x| - 2) / sqrt|x|` above, with the sign of `x`.
//! f32 uses Cephes' single-precision tables, f64 the double-precision ones.

// The published coefficients, digit for digit (more than f32 holds).
#![allow(clippy::excessive_precision)]

use tpuc_ir::{ComparisonDirection, ElementType, IrError, OpBuilder, Value};

use super::{select_where, splat_like};

const A_F32: [f64; 17] = [
    9.38153738649577178388E-9,
    -4.44505912879632808065E-8,
    2.00329475355213526229E-7,
    -8.56872026469545474066E-7,
    3.47025130813767847674E-6,
    -1.32731636560394358279E-5,
    4.78156510755005422638E-5,
    -1.61760815825896745588E-4,
    5.12285956168575772895E-4,
    -1.51357245063125314899E-3,
    4.15642294431288815669E-3,
    -1.05640848946261981558E-2,
    2.47264490306265168283E-2,
    -5.29459812080949914269E-2,
    1.02643658689847095384E-1,
    -1.76416518357834055153E-1,
    2.52587186443633654823E-1,
];

const B_F32: [f64; 7] = [
    -3.83538038596423702205E-9,
    -2.63146884688951950684E-8,
    -2.51223623787020892529E-7,
    -3.88256480887769039346E-6,
    -1.10588938762623716291E-4,
    -9.76109749136146840777E-3,
    7.78576235018280120474E-1,
];

/// The double-precision table of `|x| ≤ 8`: twelve leading terms, then the f32 table.
const A_F64_LEADING: [f64; 12] = [
    2.77791411276104639959E-18,
    -2.11142121435816608115E-17,
    1.55363195773620046921E-16,
    -1.10559694773538630805E-15,
    7.60068429473540693410E-15,
    -5.04218550472791168711E-14,
    3.22379336594557470981E-13,
    -1.98397439776494371520E-12,
    1.17361862988909016308E-11,
    -6.66348972350202774223E-11,
    3.62559028155211703701E-10,
    -1.88724975172282928790E-9,
];

/// The double-precision table of `|x| > 8`: eighteen leading terms, then the f32 table.
const B_F64_LEADING: [f64; 18] = [
    7.51729631084210481353E-18,
    4.41434832307170791151E-18,
    -4.65030536848935832153E-17,
    -3.20952592199342395980E-17,
    2.96262899764595013876E-16,
    3.30820231092092828324E-16,
    -1.88035477551078244854E-15,
    -3.81440307243700780478E-15,
    1.04202769841288027642E-14,
    4.27244001671195135429E-14,
    -2.10154184277266431302E-14,
    -4.08355111109219731823E-13,
    -7.19855177624590851209E-13,
    2.03562854414708950722E-12,
    1.41258074366137813316E-11,
    3.25260358301548823856E-11,
    -1.89749581235054123450E-11,
    -5.58974346219658380687E-10,
];

/// `Σ' cₖ Tₖ(x/2)` by Clenshaw's recurrence, Cephes' `chbevl`: `b₀ = x b₁ - b₂ + c` over
/// the coefficients, then `(b₀ - b₂) / 2`.
fn chebyshev(b: &mut OpBuilder<'_>, x: Value, coefficients: &[f64]) -> Result<Value, IrError> {
    let mut b0 = splat_like(b, x, 0.0)?;
    let mut b1 = b0;
    let mut b2 = b0;
    for &c in coefficients {
        b2 = b1;
        b1 = b0;
        let scaled = b.multiply(x, b1)?;
        let shifted = b.subtract(scaled, b2)?;
        let c = splat_like(b, x, c)?;
        b0 = b.add(shifted, c)?;
    }
    let difference = b.subtract(b0, b2)?;
    let half = splat_like(b, x, 0.5)?;
    b.multiply(difference, half)
}

pub(super) fn bessel_i1e(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let (near, far): (Vec<f64>, Vec<f64>) = if b.tensor_type(x)?.element == ElementType::F64 {
        (
            [&A_F64_LEADING[..], &A_F32].concat(),
            [&B_F64_LEADING[..], &B_F32].concat(),
        )
    } else {
        (A_F32.to_vec(), B_F32.to_vec())
    };
    let z = b.abs(x)?;
    let half = splat_like(b, x, 0.5)?;
    let two = splat_like(b, x, 2.0)?;
    let halved = b.multiply(half, z)?;
    let near_arg = b.subtract(halved, two)?;
    let near_sum = chebyshev(b, near_arg, &near)?;
    let near_value = b.multiply(z, near_sum)?;
    let thirty_two = splat_like(b, x, 32.0)?;
    let inverse = b.divide(thirty_two, z)?;
    let far_arg = b.subtract(inverse, two)?;
    let far_sum = chebyshev(b, far_arg, &far)?;
    let root = b.sqrt(z)?;
    let far_value = b.divide(far_sum, root)?;
    let eight = splat_like(b, x, 8.0)?;
    let magnitude = select_where(b, z, ComparisonDirection::Le, eight, near_value, far_value)?;
    let sign = b.sign(x)?;
    b.multiply(sign, magnitude)
}
