//! Torch dtypes and StableHLO element types.

use tpuc_ir::ElementType;
use tpuc_pt2::DType;

use crate::error::{OpError, OpResult};

/// The element type that holds a torch dtype.
pub(crate) fn element_type(dtype: DType) -> OpResult<ElementType> {
    Ok(match dtype {
        DType::Bool => ElementType::I1,
        DType::U8 => ElementType::UI8,
        DType::I4 => ElementType::I4,
        DType::U4 => ElementType::UI4,
        DType::I8 => ElementType::I8,
        DType::I16 => ElementType::I16,
        DType::I32 => ElementType::I32,
        DType::I64 => ElementType::I64,
        DType::U16 => ElementType::UI16,
        DType::U32 => ElementType::UI32,
        DType::U64 => ElementType::UI64,
        DType::F16 => ElementType::F16,
        DType::BF16 => ElementType::BF16,
        DType::F32 => ElementType::F32,
        DType::F64 => ElementType::F64,
        DType::C64 => ElementType::ComplexF32,
        DType::C128 => ElementType::ComplexF64,
        DType::F8E4M3FN => ElementType::F8E4M3FN,
        DType::F8E5M2 => ElementType::F8E5M2,
        DType::F8E4M3FNUZ => ElementType::F8E4M3FNUZ,
        DType::F8E5M2FNUZ => ElementType::F8E5M2FNUZ,
        DType::F8E8M0FNU => ElementType::F8E8M0FNU,
        DType::C32 => {
            return Err(OpError::new(format!(
                "StableHLO has no element type for torch.{dtype}"
            )));
        }
    })
}

/// The torch dtype of an element type (the inverse of [`element_type`]).
pub(crate) fn dtype_of(element: ElementType) -> OpResult<DType> {
    Ok(match element {
        ElementType::I1 => DType::Bool,
        ElementType::UI8 => DType::U8,
        ElementType::I4 => DType::I4,
        ElementType::UI4 => DType::U4,
        ElementType::I8 => DType::I8,
        ElementType::I16 => DType::I16,
        ElementType::I32 => DType::I32,
        ElementType::I64 => DType::I64,
        ElementType::UI16 => DType::U16,
        ElementType::UI32 => DType::U32,
        ElementType::UI64 => DType::U64,
        ElementType::F16 => DType::F16,
        ElementType::BF16 => DType::BF16,
        ElementType::F32 => DType::F32,
        ElementType::F64 => DType::F64,
        ElementType::ComplexF32 => DType::C64,
        ElementType::ComplexF64 => DType::C128,
        ElementType::F8E4M3FN => DType::F8E4M3FN,
        ElementType::F8E5M2 => DType::F8E5M2,
        ElementType::F8E4M3FNUZ => DType::F8E4M3FNUZ,
        ElementType::F8E5M2FNUZ => DType::F8E5M2FNUZ,
        ElementType::F8E8M0FNU => DType::F8E8M0FNU,
        other => return Err(OpError::new(format!("torch has no dtype for {other}"))),
    })
}

pub(crate) fn is_integral(dtype: DType) -> bool {
    matches!(
        dtype,
        DType::U8
            | DType::I4
            | DType::U4
            | DType::I8
            | DType::I16
            | DType::I32
            | DType::I64
            | DType::U16
            | DType::U32
            | DType::U64
    )
}

pub(crate) fn is_unsigned(dtype: DType) -> bool {
    matches!(dtype, DType::U8 | DType::U16 | DType::U32 | DType::U64)
}
