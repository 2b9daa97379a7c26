//! `chlo.is_inf`, `chlo.is_pos_inf`, `chlo.is_neg_inf`: comparisons with infinity.

use tpuc_ir::{ComparisonDirection, IrError, OpBuilder, Value};

use super::splat_like;

pub(super) fn is_inf(b: &mut OpBuilder<'_>, x: Value) -> Result<Value, IrError> {
    let magnitude = b.abs(x)?;
    is_signed_inf(b, magnitude, 1.0)
}

/// `x == sign * inf`.
pub(super) fn is_signed_inf(b: &mut OpBuilder<'_>, x: Value, sign: f64) -> Result<Value, IrError> {
    let inf = splat_like(b, x, sign * f64::INFINITY)?;
    b.compare(ComparisonDirection::Eq, x, inf)
}
