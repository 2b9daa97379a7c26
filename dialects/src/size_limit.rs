//! The largest tensor tpuc accepts. Types come from untrusted text and graphs, and a shape such
//! as `tensor<99999999999x99999999999xf32>` overflows 64-bit element counts; the verifier
//! rejects such types before anything computes with them or hands them to a device.

use crate::types::{Dim, TensorType, Type};

/// The most bytes one tensor may occupy: 2^40 (1 TiB). It is beyond the memory any single
/// accelerator addresses today, and keeps element counts and byte sizes far from overflowing
/// 64-bit arithmetic (and `usize` on 64-bit hosts).
pub const MAX_TENSOR_BYTES: u64 = 1 << 40;

/// Why `ty` (or a tensor inside a tuple) is too large, if it is. Dynamic dimensions count as 1:
/// only what the type states is checked.
pub fn check(ty: &Type) -> Result<(), String> {
    match ty {
        Type::Tensor(tensor) => check_tensor(tensor),
        Type::Token => Ok(()),
        Type::Tuple(elements) => elements.iter().try_for_each(check),
    }
}

fn check_tensor(tensor: &TensorType) -> Result<(), String> {
    let elements = tensor
        .shape
        .iter()
        .try_fold(1u64, |count, dim| match dim {
            Dim::Static(size) => count.checked_mul(*size),
            Dim::Dynamic => Some(count),
        })
        .ok_or_else(|| format!("the element count of {tensor} overflows 64 bits"))?;
    let bits = elements
        .checked_mul(u64::from(tensor.element.bit_width()))
        .ok_or_else(|| format!("the size in bits of {tensor} overflows 64 bits"))?;
    let bytes = bits.div_ceil(8);
    if bytes > MAX_TENSOR_BYTES {
        return Err(format!(
            "{tensor} takes {bytes} bytes, more than the limit of {MAX_TENSOR_BYTES} (2^40)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ElementType;

    #[test]
    fn overflowing_and_oversized_tensors_are_refused() {
        let huge = TensorType::of(&[99_999_999_999, 99_999_999_999], ElementType::F32);
        assert!(
            check(&huge.into())
                .unwrap_err()
                .contains("overflows 64 bits")
        );
        let too_big = TensorType::of(&[1 << 20, 1 << 19], ElementType::F32);
        assert!(check(&too_big.into()).unwrap_err().contains("2^40"));
        let at_limit = TensorType::of(&[1 << 20, 1 << 18], ElementType::F32);
        assert_eq!(check(&at_limit.into()), Ok(()));
        let tuple = Type::Tuple(vec![Type::Token, huge_tensor()]);
        assert!(check(&tuple).is_err());
    }

    fn huge_tensor() -> Type {
        TensorType::of(&[u64::MAX, 2], ElementType::I8).into()
    }
}
