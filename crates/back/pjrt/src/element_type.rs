//! Array element types (`PJRT_Buffer_Type`) and their host representations.

use crate::ffi;

/// Declares [`ElementType`] and `BY_CODE` (its variants in `PJRT_Buffer_Type` order, starting
/// at 1; 0 is `INVALID`) from one list.
macro_rules! element_types {
    ($($variant:ident),* $(,)?) => {
        /// The element type of a buffer, as PJRT numbers them.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ElementType {
            $($variant,)*
        }

        const BY_CODE: &[ElementType] = &[$(ElementType::$variant,)*];
    };
}

element_types! {
    Pred,
    S8,
    S16,
    S32,
    S64,
    U8,
    U16,
    U32,
    U64,
    F16,
    F32,
    F64,
    Bf16,
    C64,
    C128,
    F8E5M2,
    F8E4M3FN,
    F8E4M3B11FNUZ,
    F8E5M2FNUZ,
    F8E4M3FNUZ,
    S4,
    U4,
    Token,
    S2,
    U2,
    F8E4M3,
    F8E3M4,
    F8E8M0FNU,
    F4E2M1FN,
    S1,
    U1,
}

impl ElementType {
    pub(crate) fn to_raw(self) -> ffi::PJRT_Buffer_Type {
        let index = BY_CODE.iter().position(|&ty| ty == self).unwrap_or(0);
        // `index < BY_CODE.len()`, so the code fits.
        index as ffi::PJRT_Buffer_Type + 1
    }

    pub(crate) fn from_raw(code: ffi::PJRT_Buffer_Type) -> Option<Self> {
        let index = usize::try_from(code).ok()?.checked_sub(1)?;
        BY_CODE.get(index).copied()
    }

    /// Bytes per element in a dense host buffer: 4-bit integers take a byte each (the low
    /// nibble, as XLA unpacks them); `None` for the other sub-byte types and tokens, which have
    /// no plain host representation here.
    pub fn byte_width(self) -> Option<usize> {
        use ElementType::*;
        match self {
            Pred | S8 | U8 | F8E5M2 | F8E4M3FN | F8E4M3B11FNUZ | F8E5M2FNUZ | F8E4M3FNUZ
            | F8E4M3 | F8E3M4 | F8E8M0FNU => Some(1),
            S16 | U16 | F16 | Bf16 => Some(2),
            S32 | U32 | F32 => Some(4),
            S64 | U64 | F64 | C64 => Some(8),
            C128 => Some(16),
            S4 | U4 => Some(1),
            S2 | U2 | S1 | U1 | F4E2M1FN | Token => None,
        }
    }

    /// The MLIR spelling of the type (`f32`, `i1` for predicates, `ui8`, `complex<f32>`, ...).
    pub fn mlir_name(self) -> &'static str {
        use ElementType::*;
        match self {
            Pred => "i1",
            S8 => "i8",
            S16 => "i16",
            S32 => "i32",
            S64 => "i64",
            U8 => "ui8",
            U16 => "ui16",
            U32 => "ui32",
            U64 => "ui64",
            F16 => "f16",
            F32 => "f32",
            F64 => "f64",
            Bf16 => "bf16",
            C64 => "complex<f32>",
            C128 => "complex<f64>",
            F8E5M2 => "f8E5M2",
            F8E4M3FN => "f8E4M3FN",
            F8E4M3B11FNUZ => "f8E4M3B11FNUZ",
            F8E5M2FNUZ => "f8E5M2FNUZ",
            F8E4M3FNUZ => "f8E4M3FNUZ",
            S4 => "i4",
            U4 => "ui4",
            Token => "!stablehlo.token",
            S2 => "i2",
            U2 => "ui2",
            F8E4M3 => "f8E4M3",
            F8E3M4 => "f8E3M4",
            F8E8M0FNU => "f8E8M0FNU",
            F4E2M1FN => "f4E2M1FN",
            S1 => "si1",
            U1 => "ui1",
        }
    }
}

/// Rust types that map one-to-one onto an element type, for typed host transfers.
pub trait HostElement: Copy {
    const TYPE: ElementType;
    fn append_bytes(self, out: &mut Vec<u8>);
    /// Decodes one element from exactly `byte_width` native-endian bytes.
    fn from_bytes(bytes: &[u8]) -> Self;
}

macro_rules! host_numbers {
    ($($ty:ty => $element:ident),*) => {$(
        impl HostElement for $ty {
            const TYPE: ElementType = ElementType::$element;
            fn append_bytes(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_ne_bytes());
            }
            fn from_bytes(bytes: &[u8]) -> Self {
                let mut raw = [0; size_of::<$ty>()];
                raw.copy_from_slice(bytes);
                <$ty>::from_ne_bytes(raw)
            }
        }
    )*};
}

host_numbers!(
    i8 => S8, i16 => S16, i32 => S32, i64 => S64,
    u8 => U8, u16 => U16, u32 => U32, u64 => U64,
    f32 => F32, f64 => F64
);

impl HostElement for bool {
    const TYPE: ElementType = ElementType::Pred;
    fn append_bytes(self, out: &mut Vec<u8>) {
        out.push(u8::from(self));
    }
    fn from_bytes(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_match_the_header() {
        assert_eq!(ElementType::Pred.to_raw(), 1);
        assert_eq!(ElementType::F32.to_raw(), 11);
        assert_eq!(ElementType::Bf16.to_raw(), 13);
        assert_eq!(ElementType::C128.to_raw(), 15);
        assert_eq!(ElementType::U1.to_raw(), 31);
        for &ty in BY_CODE {
            assert_eq!(ElementType::from_raw(ty.to_raw()), Some(ty));
        }
        assert_eq!(ElementType::from_raw(0), None);
        assert_eq!(ElementType::from_raw(32), None);
    }
}
