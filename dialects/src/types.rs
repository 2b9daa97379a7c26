//! Value types: ranked tensors of StableHLO element types, tokens and tuples.

use std::fmt;

/// A tensor element type, spelled as MLIR spells it (`i32`, `ui8`, `bf16`, `f8E4M3FN`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElementType {
    /// `i1`, the boolean type.
    I1,
    I2,
    I4,
    I8,
    I16,
    I32,
    I64,
    UI2,
    UI4,
    UI8,
    UI16,
    UI32,
    UI64,
    F4E2M1FN,
    F6E2M3FN,
    F6E3M2FN,
    F8E3M4,
    F8E4M3,
    F8E4M3FN,
    F8E5M2,
    F8E4M3FNUZ,
    F8E5M2FNUZ,
    F8E4M3B11FNUZ,
    /// Powers of two only: 8 exponent bits, no sign, no mantissa, no zero; `0xFF` is NaN.
    F8E8M0FNU,
    BF16,
    F16,
    F32,
    F64,
    /// `complex<f32>`
    ComplexF32,
    /// `complex<f64>`
    ComplexF64,
}

/// Encoding of a floating-point element type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FloatFormat {
    pub exponent_bits: u32,
    pub mantissa_bits: u32,
    pub bias: i32,
    /// IEEE layout: the all-ones exponent holds infinities and NaNs.
    pub ieee_specials: bool,
    /// `FNUZ` types: the only NaN is the negative-zero bit pattern, there is no infinity.
    pub nan_is_negative_zero: bool,
    /// No NaN and no infinity (`f4E2M1FN`, the `f6` types): every bit pattern is a number;
    /// values beyond the largest (NaN too) saturate to it.
    pub finite_only: bool,
    /// No sign bit and no mantissa (`f8E8M0FNU`): powers of two, all-ones is NaN.
    pub unsigned: bool,
}

impl ElementType {
    /// Every element type, in a fixed order.
    pub const ALL: [ElementType; 30] = [
        Self::I1,
        Self::I2,
        Self::I4,
        Self::I8,
        Self::I16,
        Self::I32,
        Self::I64,
        Self::UI2,
        Self::UI4,
        Self::UI8,
        Self::UI16,
        Self::UI32,
        Self::UI64,
        Self::F4E2M1FN,
        Self::F6E2M3FN,
        Self::F6E3M2FN,
        Self::F8E3M4,
        Self::F8E4M3,
        Self::F8E4M3FN,
        Self::F8E5M2,
        Self::F8E4M3FNUZ,
        Self::F8E5M2FNUZ,
        Self::F8E4M3B11FNUZ,
        Self::F8E8M0FNU,
        Self::BF16,
        Self::F16,
        Self::F32,
        Self::F64,
        Self::ComplexF32,
        Self::ComplexF64,
    ];

    /// The MLIR spelling.
    pub fn mnemonic(self) -> &'static str {
        match self {
            Self::I1 => "i1",
            Self::I2 => "i2",
            Self::I4 => "i4",
            Self::I8 => "i8",
            Self::I16 => "i16",
            Self::I32 => "i32",
            Self::I64 => "i64",
            Self::UI2 => "ui2",
            Self::UI4 => "ui4",
            Self::UI8 => "ui8",
            Self::UI16 => "ui16",
            Self::UI32 => "ui32",
            Self::UI64 => "ui64",
            Self::F4E2M1FN => "f4E2M1FN",
            Self::F6E2M3FN => "f6E2M3FN",
            Self::F6E3M2FN => "f6E3M2FN",
            Self::F8E3M4 => "f8E3M4",
            Self::F8E4M3 => "f8E4M3",
            Self::F8E8M0FNU => "f8E8M0FNU",
            Self::F8E4M3FN => "f8E4M3FN",
            Self::F8E5M2 => "f8E5M2",
            Self::F8E4M3FNUZ => "f8E4M3FNUZ",
            Self::F8E5M2FNUZ => "f8E5M2FNUZ",
            Self::F8E4M3B11FNUZ => "f8E4M3B11FNUZ",
            Self::BF16 => "bf16",
            Self::F16 => "f16",
            Self::F32 => "f32",
            Self::F64 => "f64",
            Self::ComplexF32 => "complex<f32>",
            Self::ComplexF64 => "complex<f64>",
        }
    }

    /// Parses an MLIR spelling such as `f32` or `complex<f64>`.
    pub fn from_mnemonic(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|ty| ty.mnemonic() == text)
    }

    /// Width in bits of one element (both parts for complex types).
    pub fn bit_width(self) -> u32 {
        match self {
            Self::I1 => 1,
            Self::I2 | Self::UI2 => 2,
            Self::I4 | Self::UI4 | Self::F4E2M1FN => 4,
            Self::F6E2M3FN | Self::F6E3M2FN => 6,
            Self::F8E3M4 | Self::F8E4M3 | Self::F8E8M0FNU => 8,
            Self::I8
            | Self::UI8
            | Self::F8E4M3FN
            | Self::F8E5M2
            | Self::F8E4M3FNUZ
            | Self::F8E5M2FNUZ
            | Self::F8E4M3B11FNUZ => 8,
            Self::I16 | Self::UI16 | Self::BF16 | Self::F16 => 16,
            Self::I32 | Self::UI32 | Self::F32 => 32,
            Self::I64 | Self::UI64 | Self::F64 | Self::ComplexF32 => 64,
            Self::ComplexF64 => 128,
        }
    }

    /// Bytes one element occupies in a dense constant buffer (sub-byte types take a whole byte).
    pub fn storage_bytes(self) -> usize {
        (self.bit_width() as usize).div_ceil(8)
    }

    pub fn is_bool(self) -> bool {
        self == Self::I1
    }

    /// Signed or unsigned integer, excluding `i1`.
    pub fn is_integer(self) -> bool {
        self.is_signed_integer() || self.is_unsigned_integer()
    }

    pub fn is_signed_integer(self) -> bool {
        matches!(
            self,
            Self::I2 | Self::I4 | Self::I8 | Self::I16 | Self::I32 | Self::I64
        )
    }

    pub fn is_unsigned_integer(self) -> bool {
        matches!(
            self,
            Self::UI2 | Self::UI4 | Self::UI8 | Self::UI16 | Self::UI32 | Self::UI64
        )
    }

    pub fn is_float(self) -> bool {
        self.float_format().is_some()
    }

    pub fn is_complex(self) -> bool {
        matches!(self, Self::ComplexF32 | Self::ComplexF64)
    }

    /// The part type of a complex type.
    pub fn complex_part(self) -> Option<ElementType> {
        match self {
            Self::ComplexF32 => Some(Self::F32),
            Self::ComplexF64 => Some(Self::F64),
            _ => None,
        }
    }

    /// The complex type whose parts are `self`.
    pub fn complex_of(self) -> Option<ElementType> {
        match self {
            Self::F32 => Some(Self::ComplexF32),
            Self::F64 => Some(Self::ComplexF64),
            _ => None,
        }
    }

    pub(crate) fn float_format(self) -> Option<FloatFormat> {
        let (exponent_bits, mantissa_bits, bias, ieee_specials, nan_is_negative_zero) = match self {
            Self::F4E2M1FN => (2, 1, 1, false, false),
            Self::F6E2M3FN => (2, 3, 1, false, false),
            Self::F6E3M2FN => (3, 2, 3, false, false),
            Self::F8E3M4 => (3, 4, 3, true, false),
            Self::F8E4M3 => (4, 3, 7, true, false),
            Self::F8E8M0FNU => (8, 0, 127, false, false),
            Self::F8E4M3FN => (4, 3, 7, false, false),
            Self::F8E5M2 => (5, 2, 15, true, false),
            Self::F8E4M3FNUZ => (4, 3, 8, false, true),
            Self::F8E5M2FNUZ => (5, 2, 16, false, true),
            Self::F8E4M3B11FNUZ => (4, 3, 11, false, true),
            Self::BF16 => (8, 7, 127, true, false),
            Self::F16 => (5, 10, 15, true, false),
            Self::F32 => (8, 23, 127, true, false),
            Self::F64 => (11, 52, 1023, true, false),
            _ => return None,
        };
        Some(FloatFormat {
            exponent_bits,
            mantissa_bits,
            bias,
            ieee_specials,
            nan_is_negative_zero,
            finite_only: matches!(self, Self::F4E2M1FN | Self::F6E2M3FN | Self::F6E3M2FN),
            unsigned: self == Self::F8E8M0FNU,
        })
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.mnemonic())
    }
}

/// One dimension of a tensor shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    Static(u64),
    /// `?`
    Dynamic,
}

impl Dim {
    pub fn as_static(self) -> Option<u64> {
        match self {
            Self::Static(size) => Some(size),
            Self::Dynamic => None,
        }
    }

    /// Two dimensions are compatible when they are equal or either is dynamic.
    pub fn is_compatible(self, other: Dim) -> bool {
        match (self, other) {
            (Self::Static(a), Self::Static(b)) => a == b,
            _ => true,
        }
    }

    /// The more precise of two compatible dimensions.
    pub(crate) fn refine(self, other: Dim) -> Dim {
        match self {
            Self::Static(_) => self,
            Self::Dynamic => other,
        }
    }
}

impl From<u64> for Dim {
    fn from(size: u64) -> Self {
        Self::Static(size)
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Static(size) => write!(f, "{size}"),
            Self::Dynamic => f.write_str("?"),
        }
    }
}

/// A ranked tensor type, `tensor<2x?xf32>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorType {
    pub shape: Vec<Dim>,
    pub element: ElementType,
}

impl TensorType {
    pub fn new(shape: Vec<Dim>, element: ElementType) -> Self {
        Self { shape, element }
    }

    /// A tensor with every dimension static.
    pub fn of(shape: &[u64], element: ElementType) -> Self {
        Self::new(shape.iter().copied().map(Dim::Static).collect(), element)
    }

    /// A rank-0 tensor.
    pub fn scalar(element: ElementType) -> Self {
        Self::new(Vec::new(), element)
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    pub fn is_static(&self) -> bool {
        self.shape.iter().all(|d| matches!(d, Dim::Static(_)))
    }

    /// The static shape, if every dimension is static.
    pub fn static_shape(&self) -> Option<Vec<u64>> {
        self.shape.iter().map(|d| d.as_static()).collect()
    }

    /// Number of elements, if the shape is static.
    pub fn num_elements(&self) -> Option<u64> {
        self.shape
            .iter()
            .try_fold(1u64, |acc, d| acc.checked_mul(d.as_static()?))
    }

    /// The same shape with another element type.
    pub fn with_element(&self, element: ElementType) -> Self {
        Self::new(self.shape.clone(), element)
    }

    /// Same rank, compatible dimensions, same element type.
    pub fn is_compatible(&self, other: &TensorType) -> bool {
        self.element == other.element && shapes_compatible(&self.shape, &other.shape)
    }
}

pub(crate) fn shapes_compatible(a: &[Dim], b: &[Dim]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.is_compatible(*y))
}

impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tensor<")?;
        for dim in &self.shape {
            write!(f, "{dim}x")?;
        }
        write!(f, "{}>", self.element)
    }
}

/// The type of an SSA value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Tensor(TensorType),
    /// `!stablehlo.token`
    Token,
    /// `tuple<...>`
    Tuple(Vec<Type>),
}

impl Type {
    pub fn as_tensor(&self) -> Option<&TensorType> {
        match self {
            Self::Tensor(tensor) => Some(tensor),
            _ => None,
        }
    }

    /// Types are compatible when equal up to dynamic dimensions.
    pub fn is_compatible(&self, other: &Type) -> bool {
        match (self, other) {
            (Self::Tensor(a), Self::Tensor(b)) => a.is_compatible(b),
            (Self::Token, Self::Token) => true,
            (Self::Tuple(a), Self::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.is_compatible(y))
            }
            _ => false,
        }
    }
}

impl From<TensorType> for Type {
    fn from(tensor: TensorType) -> Self {
        Self::Tensor(tensor)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Tensor(tensor) => tensor.fmt(f),
            Self::Token => f.write_str("!stablehlo.token"),
            Self::Tuple(elements) => {
                f.write_str("tuple<")?;
                for (i, element) in elements.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    element.fmt(f)?;
                }
                f.write_str(">")
            }
        }
    }
}
