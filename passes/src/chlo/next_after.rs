//! `chlo.next_after`: the next representable value of `x` towards `y`, as C's `nextafter`,
//! on the bits: one step up or down the integer holding `x`'s sign and magnitude; from zero,
//! the smallest subnormal with `y`'s sign; `y` when `x == y`; NaN when either is.

use tpuc_ir::{ComparisonDirection, ElementType, IrError, OpBuilder, Value};

/// `None` for float types without an integer of their width (the 8-bit ones).
pub(super) fn next_after(
    b: &mut OpBuilder<'_>,
    x: Value,
    y: Value,
) -> Result<Option<Value>, IrError> {
    let ty = b.tensor_type(x)?.clone();
    let (bits, sign_bit) = match ty.element {
        ElementType::F64 => (ElementType::I64, i64::MIN),
        ElementType::F32 => (ElementType::I32, i64::from(i32::MIN)),
        ElementType::F16 | ElementType::BF16 => (ElementType::I16, i64::from(i16::MIN)),
        _ => return Ok(None),
    };
    let int_ty = ty.with_element(bits);
    let shape = ty.shape.clone();
    let x_bits = b.bitcast_convert(x, int_ty.clone())?;
    let y_bits = b.bitcast_convert(y, int_ty)?;
    let sign_mask = b.splat_i64(bits, shape.clone(), sign_bit)?;
    let magnitude_mask = b.splat_i64(bits, shape.clone(), !sign_bit)?;
    let one = b.splat_i64(bits, shape.clone(), 1)?;
    let minus_one = b.splat_i64(bits, shape.clone(), -1)?;
    let zero = b.splat_i64(bits, shape, 0)?;

    let x_magnitude = b.and(x_bits, magnitude_mask)?;
    let x_is_zero = b.compare(ComparisonDirection::Eq, x_magnitude, zero)?;
    let y_sign = b.and(y_bits, sign_mask)?;
    let smallest_towards_y = b.or(y_sign, one)?;

    let x_sign = b.and(x_bits, sign_mask)?;
    let x_negative = b.compare(ComparisonDirection::Ne, x_sign, zero)?;
    let upwards = b.compare(ComparisonDirection::Lt, x, y)?;
    let grows = b.xor(x_negative, upwards)?;
    let step = b.select(grows, one, minus_one)?;
    let stepped = b.add(x_bits, step)?;
    let next_bits = b.select(x_is_zero, smallest_towards_y, stepped)?;
    let next = b.bitcast_convert(next_bits, ty)?;

    let equal = b.compare(ComparisonDirection::Eq, x, y)?;
    let next = b.select(equal, y, next)?;
    let x_nan = b.compare(ComparisonDirection::Ne, x, x)?;
    let y_nan = b.compare(ComparisonDirection::Ne, y, y)?;
    let either_nan = b.or(x_nan, y_nan)?;
    let nan = b.add(x, y)?;
    Ok(Some(b.select(either_nan, nan, next)?))
}
