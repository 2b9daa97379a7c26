//! PyTorch's type promotion (`c10::promoteTypes` and `at::native::result_type`).
//!
//! Operands fall in three priority classes: tensors with dimensions, zero-dim tensors, and
//! wrapped numbers (Python scalars). A lower class only decides the result when it belongs to a
//! higher category (bool < integer < floating < complex) than every higher class. A wrapped
//! Python float counts as the default dtype (float32), a Python int as int64.

use tpuc_pt2::DType;

use crate::dtype::{is_integral, is_unsigned};
use crate::error::{OpError, OpResult};

/// torch's default floating dtype (`torch.get_default_dtype()`).
pub(crate) const DEFAULT_FLOAT: DType = DType::F32;

/// The dtype of an op that computes only in floats (`exp`, `logsumexp`): integers and bools
/// promote to the default float, floats stay.
pub(crate) fn to_float(dtype: DType) -> DType {
    if is_integral(dtype) || dtype == DType::Bool {
        DEFAULT_FLOAT
    } else {
        dtype
    }
}

/// A Python scalar.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
    /// Real and imaginary parts.
    Complex(f64, f64),
}

impl Scalar {
    /// The dtype torch gives this scalar as a wrapped number.
    pub fn wrapped_dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::I64,
            Scalar::Float(_) => DEFAULT_FLOAT,
            Scalar::Complex(..) => complex_for(DEFAULT_FLOAT),
        }
    }

    /// The value; of a complex number its real part, as torch converts complex to real.
    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as i64 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
            Scalar::Complex(re, _) => re,
        }
    }

    pub fn is_complex(self) -> bool {
        matches!(self, Scalar::Complex(..))
    }

    /// Whether the value equals `value` (used to drop multiplications by one and the like).
    pub fn is(self, value: f64) -> bool {
        match self {
            Scalar::Complex(re, im) => re == value && im == 0.0,
            real => real.as_f64() == value,
        }
    }
}

/// One operand as type promotion sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Participant {
    /// A tensor; `zero_dim` when it has no dimensions.
    Tensor { dtype: DType, zero_dim: bool },
    /// A Python scalar (a wrapped number).
    Wrapped(Scalar),
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Category {
    Bool,
    Integer,
    Floating,
    Complex,
}

fn category(dtype: DType) -> Category {
    if dtype == DType::Bool {
        Category::Bool
    } else if is_integral(dtype) {
        Category::Integer
    } else if dtype.is_complex() {
        Category::Complex
    } else {
        Category::Floating
    }
}

fn is_float8(dtype: DType) -> bool {
    matches!(
        dtype,
        DType::F8E4M3FN | DType::F8E5M2 | DType::F8E4M3FNUZ | DType::F8E5M2FNUZ | DType::F8E8M0FNU
    )
}

fn float_rank(dtype: DType) -> u8 {
    match dtype {
        DType::F16 | DType::BF16 => 1,
        DType::F32 => 2,
        _ => 3,
    }
}

fn complex_for(float: DType) -> DType {
    match float {
        DType::F16 => DType::C32,
        DType::F64 => DType::C128,
        _ => DType::C64,
    }
}

/// The type of a complex type's parts; a real type itself.
pub(crate) fn real_part(dtype: DType) -> DType {
    if dtype.is_complex() {
        complex_part(dtype)
    } else {
        dtype
    }
}

fn complex_part(complex: DType) -> DType {
    match complex {
        DType::C32 => DType::F16,
        DType::C128 => DType::F64,
        _ => DType::F32,
    }
}

/// `torch.promote_types(a, b)`.
pub(crate) fn promote_types(a: DType, b: DType) -> OpResult<DType> {
    if a == b {
        return Ok(a);
    }
    if a == DType::Bool {
        return Ok(b);
    }
    if b == DType::Bool {
        return Ok(a);
    }
    let unsupported = || {
        OpError::new(format!(
            "torch does not promote {a} with {b}; add an explicit conversion"
        ))
    };
    if is_float8(a) || is_float8(b) {
        return Err(unsupported());
    }
    let wide_unsigned = |d: DType| matches!(d, DType::U16 | DType::U32 | DType::U64);
    if wide_unsigned(a) || wide_unsigned(b) {
        return Err(unsupported());
    }
    Ok(match (category(a), category(b)) {
        (Category::Integer, Category::Integer) => {
            let width = |d: DType| d.itemsize();
            match (is_unsigned(a), is_unsigned(b)) {
                // Only uint8 remains here: it promotes with a signed type to a signed type wide
                // enough for both.
                (true, false) => pick_signed(width(b).max(2)),
                (false, true) => pick_signed(width(a).max(2)),
                _ => pick_signed(width(a).max(width(b))),
            }
        }
        (Category::Integer, _) => b,
        (_, Category::Integer) => a,
        (Category::Floating, Category::Floating) => {
            if float_rank(a) == float_rank(b) {
                // float16 with bfloat16.
                DType::F32
            } else if float_rank(a) > float_rank(b) {
                a
            } else {
                b
            }
        }
        (Category::Complex, Category::Complex) => {
            complex_for(promote_types(complex_part(a), complex_part(b))?)
        }
        (Category::Complex, _) => complex_for(promote_types(complex_part(a), b)?),
        (_, Category::Complex) => complex_for(promote_types(a, complex_part(b))?),
        _ => return Err(unsupported()),
    })
}

fn pick_signed(bytes: usize) -> DType {
    match bytes {
        1 => DType::I8,
        2 => DType::I16,
        4 => DType::I32,
        _ => DType::I64,
    }
}

/// c10's `combine_categories`: the higher-priority class wins unless the lower one is of a
/// higher category.
fn combine(higher: Option<DType>, lower: Option<DType>) -> OpResult<Option<DType>> {
    let (Some(h), Some(l)) = (higher, lower) else {
        return Ok(higher.or(lower));
    };
    Ok(Some(match (category(h), category(l)) {
        (Category::Complex, _) => h,
        (Category::Floating, Category::Complex) => complex_for(h),
        (_, Category::Complex) => l,
        (Category::Floating, _) => h,
        (Category::Bool, _) | (_, Category::Floating) => promote_types(h, l)?,
        _ => h,
    }))
}

/// `torch.result_type` of the operands of an elementwise op.
pub(crate) fn result_type(participants: &[Participant]) -> OpResult<DType> {
    let mut dim: Option<DType> = None;
    let mut zero: Option<DType> = None;
    let mut wrapped: Option<DType> = None;
    for participant in participants {
        let (slot, dtype) = match *participant {
            Participant::Tensor {
                dtype,
                zero_dim: false,
            } => (&mut dim, dtype),
            Participant::Tensor {
                dtype,
                zero_dim: true,
            } => (&mut zero, dtype),
            Participant::Wrapped(scalar) => (&mut wrapped, scalar.wrapped_dtype()),
        };
        *slot = Some(match *slot {
            Some(current) => promote_types(current, dtype)?,
            None => dtype,
        });
    }
    combine(dim, combine(zero, wrapped)?)?
        .ok_or_else(|| OpError::new("type promotion needs at least one operand"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    fn t(dtype: DType) -> Participant {
        Participant::Tensor {
            dtype,
            zero_dim: false,
        }
    }
    fn z(dtype: DType) -> Participant {
        Participant::Tensor {
            dtype,
            zero_dim: true,
        }
    }
    fn int(v: i64) -> Participant {
        Participant::Wrapped(Scalar::Int(v))
    }
    fn float(v: f64) -> Participant {
        Participant::Wrapped(Scalar::Float(v))
    }
    fn complex(re: f64, im: f64) -> Participant {
        Participant::Wrapped(Scalar::Complex(re, im))
    }
    fn boolean(v: bool) -> Participant {
        Participant::Wrapped(Scalar::Bool(v))
    }

    /// Each row: operands and the dtype `torch.result_type` gives (torch 2.x semantics).
    #[test]
    fn result_type_matches_torch() {
        let cases: &[(&[Participant], DType)] = &[
            (&[t(F32), t(F32)], F32),
            (&[t(I64), float(2.5)], F32),
            (&[t(I32), float(2.5)], F32),
            (&[t(BF16), float(2.5)], BF16),
            (&[t(F16), float(2.5)], F16),
            (&[t(I64), int(3)], I64),
            (&[t(I32), int(3)], I32),
            (&[t(U8), int(300)], U8),
            (&[t(I8), int(3)], I8),
            (&[t(Bool), int(1)], I64),
            (&[t(Bool), float(1.0)], F32),
            (&[t(Bool), boolean(true)], Bool),
            (&[t(F32), boolean(true)], F32),
            (&[t(I64), boolean(true)], I64),
            (&[t(F32), t(F64)], F64),
            (&[t(F32), z(F64)], F32),
            (&[t(I64), z(F64)], F64),
            (&[t(I32), z(I64)], I32),
            (&[t(BF16), z(F32)], BF16),
            (&[z(BF16), float(2.0)], BF16),
            (&[z(I64), float(2.0)], F32),
            (&[z(I32), z(I64)], I64),
            (&[t(U8), t(I8)], I16),
            (&[t(U8), t(I16)], I16),
            (&[t(U8), t(I32)], I32),
            (&[t(I16), t(I32)], I32),
            (&[t(F16), t(BF16)], F32),
            (&[t(BF16), t(F32)], F32),
            (&[t(I64), t(F16)], F16),
            (&[t(Bool), t(U8)], U8),
            (&[t(C64), t(F64)], C128),
            (&[t(F32), complex(1.0, 2.0)], C64),
            (&[t(F64), complex(1.0, 2.0)], C128),
            (&[t(I64), complex(0.0, 1.0)], C64),
            (&[t(F64), z(C64)], C128),
            (&[t(F32), Participant::Wrapped(Scalar::Float(1e300))], F32),
            (&[int(1), float(2.0)], F32),
            (&[int(1), int(2)], I64),
        ];
        for (operands, expected) in cases {
            assert_eq!(
                result_type(operands).unwrap(),
                *expected,
                "result_type({operands:?})"
            );
        }
    }

    #[test]
    fn unsupported_promotions_are_errors() {
        assert!(promote_types(U16, I32).is_err());
        assert!(promote_types(F8E4M3FN, F8E5M2).is_err());
        assert_eq!(promote_types(U16, Bool).unwrap(), U16);
    }
}
