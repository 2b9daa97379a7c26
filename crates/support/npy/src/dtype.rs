//! Element types and their `descr` strings (`'<f4'`, `'|b1'`, ...).

use std::fmt;

/// The element types a `.npy` file may hold here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dtype {
    Bool,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    F16,
    F32,
    F64,
    /// Two little-endian f32: real, imaginary.
    C64,
    /// Two little-endian f64: real, imaginary.
    C128,
}

/// Byte order of the elements in a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ByteOrder {
    Little,
    Big,
}

impl Dtype {
    pub const ALL: [Dtype; 14] = [
        Dtype::Bool,
        Dtype::I8,
        Dtype::I16,
        Dtype::I32,
        Dtype::I64,
        Dtype::U8,
        Dtype::U16,
        Dtype::U32,
        Dtype::U64,
        Dtype::F16,
        Dtype::F32,
        Dtype::F64,
        Dtype::C64,
        Dtype::C128,
    ];

    /// Bytes per element.
    pub fn itemsize(self) -> usize {
        match self {
            Dtype::Bool | Dtype::I8 | Dtype::U8 => 1,
            Dtype::I16 | Dtype::U16 | Dtype::F16 => 2,
            Dtype::I32 | Dtype::U32 | Dtype::F32 => 4,
            Dtype::I64 | Dtype::U64 | Dtype::F64 | Dtype::C64 => 8,
            Dtype::C128 => 16,
        }
    }

    /// Width of the units whose bytes a byte-order swap reverses: the element, or each part of
    /// a complex number.
    pub(crate) fn swap_width(self) -> usize {
        match self {
            Dtype::C64 => 4,
            Dtype::C128 => 8,
            other => other.itemsize(),
        }
    }

    /// numpy's name for the type (`float32`, `complex64`, `bool`).
    pub fn name(self) -> &'static str {
        match self {
            Dtype::Bool => "bool",
            Dtype::I8 => "int8",
            Dtype::I16 => "int16",
            Dtype::I32 => "int32",
            Dtype::I64 => "int64",
            Dtype::U8 => "uint8",
            Dtype::U16 => "uint16",
            Dtype::U32 => "uint32",
            Dtype::U64 => "uint64",
            Dtype::F16 => "float16",
            Dtype::F32 => "float32",
            Dtype::F64 => "float64",
            Dtype::C64 => "complex64",
            Dtype::C128 => "complex128",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Dtype::F16 | Dtype::F32 | Dtype::F64)
    }

    pub fn is_complex(self) -> bool {
        matches!(self, Dtype::C64 | Dtype::C128)
    }

    fn kind_code(self) -> char {
        match self {
            Dtype::Bool => 'b',
            Dtype::I8 | Dtype::I16 | Dtype::I32 | Dtype::I64 => 'i',
            Dtype::U8 | Dtype::U16 | Dtype::U32 | Dtype::U64 => 'u',
            Dtype::F16 | Dtype::F32 | Dtype::F64 => 'f',
            Dtype::C64 | Dtype::C128 => 'c',
        }
    }

    /// The `descr` numpy writes for this type on a little-endian machine.
    pub(crate) fn descr(self) -> String {
        let order = if self.itemsize() == 1 { '|' } else { '<' };
        format!("{order}{}{}", self.kind_code(), self.itemsize())
    }

    /// Parses a `descr` such as `<f4`, `>i8`, `|b1` or `=u2`; `None` for anything else
    /// (structured, string, object, datetime, ... types).
    pub(crate) fn from_descr(descr: &str) -> Option<(Dtype, ByteOrder)> {
        let native = if cfg!(target_endian = "big") {
            ByteOrder::Big
        } else {
            ByteOrder::Little
        };
        let (order, rest) = match descr.as_bytes().first()? {
            b'<' => (Some(ByteOrder::Little), &descr[1..]),
            b'>' => (Some(ByteOrder::Big), &descr[1..]),
            b'|' | b'=' => (None, &descr[1..]),
            _ => (None, descr),
        };
        let mut chars = rest.chars();
        let kind = chars.next()?;
        let size: usize = chars.as_str().parse().ok()?;
        let dtype = Dtype::ALL
            .into_iter()
            .find(|d| d.kind_code() == kind && d.itemsize() == size)?;
        Some((dtype, order.unwrap_or(native)))
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descrs_round_trip() {
        for dtype in Dtype::ALL {
            assert_eq!(
                Dtype::from_descr(&dtype.descr()),
                Some((dtype, ByteOrder::Little)),
                "{dtype}"
            );
        }
        assert_eq!(Dtype::Bool.descr(), "|b1");
        assert_eq!(Dtype::C128.descr(), "<c16");
        assert_eq!(Dtype::from_descr(">f8"), Some((Dtype::F64, ByteOrder::Big)));
        for bad in ["", "<f3", "<U8", "|O", "<M8[ns]", "<f", "<f4x", "<V2"] {
            assert_eq!(Dtype::from_descr(bad), None, "{bad}");
        }
    }
}
