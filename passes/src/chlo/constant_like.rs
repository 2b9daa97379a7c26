//! `chlo.constant_like`: the scalar splat to the operand's shape; a constant when the shape
//! is static, else the scalar broadcast to the operand's runtime dimensions
//! (`get_dimension_size` per dimension, `dynamic_broadcast_in_dim`).

use tpuc_ir::{Attribute, Dim, ElementType, IrError, OpBuilder, Value};

use super::Built;

/// A scalar value as the splat it makes.
#[derive(Clone, Copy)]
enum Scalar {
    Float(f64),
    Int(i64),
}

impl Scalar {
    fn of(value: &Attribute) -> Option<Self> {
        match *value {
            Attribute::Float { value, .. } => Some(Self::Float(value)),
            Attribute::Int { value, .. } => Some(Self::Int(value)),
            Attribute::Bool(value) => Some(Self::Int(i64::from(value))),
            _ => None,
        }
    }

    fn splat(
        self,
        b: &mut OpBuilder<'_>,
        element: ElementType,
        shape: Vec<Dim>,
    ) -> Result<Value, IrError> {
        match self {
            Self::Float(value) => b.splat(element, shape, value),
            Self::Int(value) => b.splat_i64(element, shape, value),
        }
    }
}

pub(super) fn constant_like(b: &mut OpBuilder<'_>, value: &Attribute, like: Value) -> Built {
    // The verifier accepts only scalars; anything else is left alone.
    let Some(scalar) = Scalar::of(value) else {
        return Ok(None);
    };
    let ty = b.tensor_type(like)?.clone();
    if ty.is_static() {
        return Ok(Some(vec![scalar.splat(b, ty.element, ty.shape.clone())?]));
    }
    let point = scalar.splat(b, ty.element, Vec::new())?;
    let mut sizes = Vec::with_capacity(ty.rank());
    for dimension in 0..ty.rank() as i64 {
        let size = b.get_dimension_size(like, dimension)?;
        sizes.push(b.reshape(size, [1])?);
    }
    let shape = b.concatenate(&sizes, 0)?;
    let broadcast = b.dynamic_broadcast_in_dim(point, shape, &[], ty)?;
    Ok(Some(vec![broadcast]))
}
