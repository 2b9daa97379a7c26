//! Element types of stored tensors, keyed by torch's `ScalarType` codes.

use std::fmt;

use serde::Serialize;

/// The element type of a tensor, as numbered by `torch._export.serde.schema.ScalarType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(into = "&'static str")]
pub enum DType {
    Bool,
    U8,
    I8,
    I16,
    I32,
    I64,
    U16,
    U32,
    U64,
    F16,
    BF16,
    F32,
    F64,
    /// complex32: two f16.
    C32,
    /// complex64: two f32.
    C64,
    /// complex128: two f64.
    C128,
    F8E4M3FN,
    F8E5M2,
    F8E4M3FNUZ,
    F8E5M2FNUZ,
    F8E8M0FNU,
    /// `torch.int4`, held one value per byte (as `ml_dtypes.int4` and XLA's host buffers hold
    /// it). The export schema has no code for it: it is the type of int4 weights that torchao
    /// keeps in int8 and tpuc narrows.
    I4,
    /// `torch.uint4`, held one value per byte like [`DType::I4`]; StableHLO's `ui4`.
    U4,
}

impl DType {
    /// Every dtype: the schema's in code order, then int4 and uint4.
    pub const ALL: [DType; 23] = [
        DType::U8,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::F16,
        DType::F32,
        DType::F64,
        DType::C32,
        DType::C64,
        DType::C128,
        DType::Bool,
        DType::BF16,
        DType::U16,
        DType::F8E4M3FN,
        DType::F8E5M2,
        DType::F8E4M3FNUZ,
        DType::F8E5M2FNUZ,
        DType::F8E8M0FNU,
        DType::U32,
        DType::U64,
        DType::I4,
        DType::U4,
    ];

    /// Maps a schema `ScalarType` code; `None` for 0 (UNKNOWN) and codes this reader does not know.
    pub fn from_code(code: i64) -> Option<DType> {
        Some(match code {
            1 => DType::U8,
            2 => DType::I8,
            3 => DType::I16,
            4 => DType::I32,
            5 => DType::I64,
            6 => DType::F16,
            7 => DType::F32,
            8 => DType::F64,
            9 => DType::C32,
            10 => DType::C64,
            11 => DType::C128,
            12 => DType::Bool,
            13 => DType::BF16,
            28 => DType::U16,
            29 => DType::F8E4M3FN,
            30 => DType::F8E5M2,
            31 => DType::F8E4M3FNUZ,
            32 => DType::F8E5M2FNUZ,
            33 => DType::F8E8M0FNU,
            34 => DType::U32,
            35 => DType::U64,
            _ => return None,
        })
    }

    /// The schema `ScalarType` code; `None` for int4 and uint4, which the schema does not have.
    pub fn code(self) -> Option<i64> {
        Some(match self {
            DType::U8 => 1,
            DType::I8 => 2,
            DType::I16 => 3,
            DType::I32 => 4,
            DType::I64 => 5,
            DType::F16 => 6,
            DType::F32 => 7,
            DType::F64 => 8,
            DType::C32 => 9,
            DType::C64 => 10,
            DType::C128 => 11,
            DType::Bool => 12,
            DType::BF16 => 13,
            DType::U16 => 28,
            DType::F8E4M3FN => 29,
            DType::F8E5M2 => 30,
            DType::F8E4M3FNUZ => 31,
            DType::F8E5M2FNUZ => 32,
            DType::F8E8M0FNU => 33,
            DType::U32 => 34,
            DType::U64 => 35,
            DType::I4 | DType::U4 => return None,
        })
    }

    /// Bytes per element.
    pub fn itemsize(self) -> usize {
        match self {
            DType::Bool
            | DType::U8
            | DType::I8
            | DType::F8E4M3FN
            | DType::F8E5M2
            | DType::F8E4M3FNUZ
            | DType::F8E5M2FNUZ
            | DType::F8E8M0FNU
            | DType::I4
            | DType::U4 => 1,
            DType::I16 | DType::U16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::U32 | DType::F32 | DType::C32 => 4,
            DType::I64 | DType::U64 | DType::F64 | DType::C64 => 8,
            DType::C128 => 16,
        }
    }

    /// The attribute name in the `torch` module: `torch.float32` → `"float32"`.
    pub fn torch_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "uint8",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::U16 => "uint16",
            DType::U32 => "uint32",
            DType::U64 => "uint64",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::C32 => "complex32",
            DType::C64 => "complex64",
            DType::C128 => "complex128",
            DType::F8E4M3FN => "float8_e4m3fn",
            DType::F8E5M2 => "float8_e5m2",
            DType::F8E4M3FNUZ => "float8_e4m3fnuz",
            DType::F8E5M2FNUZ => "float8_e5m2fnuz",
            DType::F8E8M0FNU => "float8_e8m0fnu",
            DType::I4 => "int4",
            DType::U4 => "uint4",
        }
    }

    /// The numpy dtype name (`ml_dtypes` names for bfloat16 and the float8 types);
    /// `None` for complex32, which numpy lacks.
    pub fn numpy_name(self) -> Option<&'static str> {
        match self {
            DType::C32 => None,
            other => Some(other.torch_name()),
        }
    }

    /// Parses a torch or numpy name (`"float32"`, `"torch.float32"`, `"bf16"`-style short names too).
    pub fn from_name(name: &str) -> Option<DType> {
        let name = name.strip_prefix("torch.").unwrap_or(name);
        let short = match name {
            "bool" => Some(DType::Bool),
            "u8" => Some(DType::U8),
            "i8" => Some(DType::I8),
            "i16" => Some(DType::I16),
            "i32" => Some(DType::I32),
            "i64" => Some(DType::I64),
            "u16" => Some(DType::U16),
            "u32" => Some(DType::U32),
            "u64" => Some(DType::U64),
            "f16" | "half" => Some(DType::F16),
            "bf16" => Some(DType::BF16),
            "f32" | "float" => Some(DType::F32),
            "f64" | "double" => Some(DType::F64),
            "long" => Some(DType::I64),
            "int" => Some(DType::I32),
            _ => None,
        };
        short.or_else(|| DType::ALL.into_iter().find(|d| d.torch_name() == name))
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            DType::F16
                | DType::BF16
                | DType::F32
                | DType::F64
                | DType::F8E4M3FN
                | DType::F8E5M2
                | DType::F8E4M3FNUZ
                | DType::F8E5M2FNUZ
                | DType::F8E8M0FNU
        )
    }

    pub fn is_complex(self) -> bool {
        matches!(self, DType::C32 | DType::C64 | DType::C128)
    }
}

impl From<DType> for &'static str {
    fn from(dtype: DType) -> Self {
        dtype.torch_name()
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.torch_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_names_are_unique() {
        for dtype in DType::ALL {
            if let Some(code) = dtype.code() {
                assert_eq!(DType::from_code(code), Some(dtype));
            }
            assert_eq!(DType::from_name(dtype.torch_name()), Some(dtype));
        }
        assert_eq!(DType::from_code(0), None);
        assert_eq!(DType::from_code(14), None);
        assert_eq!(DType::from_code(36), None);
        assert_eq!(DType::from_name("torch.bfloat16"), Some(DType::BF16));
    }

    #[test]
    fn itemsizes() {
        assert_eq!(DType::C32.itemsize(), 4);
        assert_eq!(DType::C128.itemsize(), 16);
        assert_eq!(DType::BF16.itemsize(), 2);
        assert_eq!(DType::F8E8M0FNU.itemsize(), 1);
    }
}
