//! Inverse trigonometric ops, by the CHLO spec's formulas over `stablehlo.atan2`:
//! `asin(x) = 2 atan2(x, 1 + sqrt(1 - x²))`, `acos(x) = 2 atan2(sqrt(1 - x²), 1 + x)` (π at
//! x = -1), `atan(x) = atan2(x, 1)`. (`chlo.tan` is `stablehlo.tan`.)

use std::f64::consts::PI;

use tpuc_ir::{ComparisonDirection, IrError, OpBuilder, Value};

use super::{select_where, splat_like};

/// `sqrt(1 - x²)`, computed as `sqrt((1 - x)(1 + x))` to keep precision near ±1.
fn cofactor(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let one = splat_like(b, x, 1.0)?;
    let below = b.subtract(one, x)?;
    let above = b.add(one, x)?;
    let product = b.multiply(below, above)?;
    b.sqrt(product)
}

fn twice(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let two = splat_like(b, x, 2.0)?;
    b.multiply(two, x)
}

pub(super) fn asin(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let one = splat_like(b, x, 1.0)?;
    let root = cofactor(b, x)?;
    let denominator = b.add(one, root)?;
    let half_angle = b.atan2(x, denominator)?;
    twice(b, half_angle)
}

pub(super) fn acos(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let one = splat_like(b, x, 1.0)?;
    let root = cofactor(b, x)?;
    let denominator = b.add(one, x)?;
    let half_angle = b.atan2(root, denominator)?;
    let angle = twice(b, half_angle)?;
    let minus_one = splat_like(b, x, -1.0)?;
    let pi = splat_like(b, x, PI)?;
    select_where(b, x, ComparisonDirection::Ne, minus_one, angle, pi)
}

pub(super) fn atan(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let one = splat_like(b, x, 1.0)?;
    b.atan2(x, one)
}
