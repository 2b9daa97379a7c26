//! Dense constant data: raw little-endian bytes, canonically a splat when every element is equal.

use crate::error::{IrError, Result};
use crate::types::{ElementType, FloatFormat, TensorType};

/// The elements of a dense constant. Each element takes [`ElementType::storage_bytes`] bytes,
/// little-endian; `i1` is one byte holding 0 or 1, 4-bit integers one byte holding the low nibble.
/// A constant whose elements are all equal is always stored as a splat (one element), so equal
/// constants compare and print equal.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DenseElements {
    bytes: Vec<u8>,
    splat: bool,
}

/// One decoded element.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ElementValue {
    Bool(bool),
    Signed(i64),
    Unsigned(u64),
    /// `None` for NaN and infinities, with their raw bits.
    Float(FloatBits),
    Complex(FloatBits, FloatBits),
}

/// A float element: its raw bits, and its value when finite.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloatBits {
    pub bits: u64,
    pub value: Option<f64>,
}

impl DenseElements {
    /// Data for a tensor of static shape `ty`: one element (a splat) or one per element.
    pub fn from_bytes(ty: &TensorType, bytes: Vec<u8>) -> Result<Self> {
        let width = ty.element.storage_bytes();
        let count = ty.num_elements().ok_or_else(|| {
            IrError::constant(format!("constant type {ty} must have a static shape"))
        })?;
        if count == 0 && bytes.len() <= width {
            // A tensor without elements holds nothing, written `dense<>` or as a splat.
            if !bytes.is_empty() {
                check_element(ty.element, &bytes)?;
            }
            return Ok(Self {
                bytes: Vec::new(),
                splat: false,
            });
        }
        if bytes.len() == width {
            return Self::splat_bytes(ty.element, bytes);
        }
        if count.checked_mul(width as u64) != Some(bytes.len() as u64) {
            return Err(IrError::constant(format!(
                "{} bytes do not hold {count} elements of {} ({width} bytes each)",
                bytes.len(),
                ty.element
            )));
        }
        for chunk in bytes.chunks(width) {
            check_element(ty.element, chunk)?;
        }
        let splat = count >= 1 && bytes.chunks(width).all(|c| c == &bytes[..width]);
        let bytes = if splat {
            bytes[..width].to_vec()
        } else {
            bytes
        };
        Ok(Self { bytes, splat })
    }

    /// One element repeated over the whole tensor.
    pub fn splat_bytes(element: ElementType, bytes: Vec<u8>) -> Result<Self> {
        if bytes.len() != element.storage_bytes() {
            return Err(IrError::constant(format!(
                "a splat of {element} takes {} bytes, got {}",
                element.storage_bytes(),
                bytes.len()
            )));
        }
        check_element(element, &bytes)?;
        Ok(Self { bytes, splat: true })
    }

    /// A splat of `value` converted to `element` (rounded to nearest even for floats, truncated
    /// for integers, nonzero is true for `i1`; complex types get a zero imaginary part).
    pub fn splat_f64(element: ElementType, value: f64) -> Self {
        let mut bytes = Vec::new();
        encode_f64(element, value, &mut bytes);
        Self { bytes, splat: true }
    }

    /// A splat of an integer `value` wrapped to `element`'s width (floats get the nearest value).
    pub fn splat_i64(element: ElementType, value: i64) -> Self {
        let mut bytes = Vec::new();
        encode_i64(element, value, &mut bytes);
        Self { bytes, splat: true }
    }

    /// One value per element of `ty`, converted as in [`DenseElements::splat_f64`].
    pub fn from_f64s(ty: &TensorType, values: &[f64]) -> Result<Self> {
        let mut bytes = Vec::with_capacity(values.len() * ty.element.storage_bytes());
        for &value in values {
            encode_f64(ty.element, value, &mut bytes);
        }
        Self::from_bytes(ty, bytes)
    }

    /// One value per element of `ty`, converted as in [`DenseElements::splat_i64`].
    pub fn from_i64s(ty: &TensorType, values: &[i64]) -> Result<Self> {
        let mut bytes = Vec::with_capacity(values.len() * ty.element.storage_bytes());
        for &value in values {
            encode_i64(ty.element, value, &mut bytes);
        }
        Self::from_bytes(ty, bytes)
    }

    pub fn is_splat(&self) -> bool {
        self.splat
    }

    /// The stored bytes: one element for a splat, all of them otherwise.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Number of stored elements (1 for a splat).
    pub fn stored_len(&self, element: ElementType) -> usize {
        self.bytes.len() / element.storage_bytes()
    }

    /// Decodes stored element `index`.
    pub fn value(&self, element: ElementType, index: usize) -> ElementValue {
        let width = element.storage_bytes();
        decode(element, &self.bytes[index * width..(index + 1) * width])
    }

    /// Float element `index` as an `f64`, infinities and NaN included; `None` for other types.
    pub fn float_at(&self, element: ElementType, index: usize) -> Option<f64> {
        let ElementValue::Float(float) = self.value(element, index) else {
            return None;
        };
        Some(
            float
                .value
                .unwrap_or_else(|| float_special(element, float.bits)),
        )
    }

    /// Whether the data fits a tensor of type `ty`.
    pub fn fits(&self, ty: &TensorType) -> bool {
        let width = ty.element.storage_bytes();
        if !self.bytes.len().is_multiple_of(width) {
            return false;
        }
        match ty.num_elements() {
            // A splat fills any static shape, one with no elements too (`dense<2> : tensor<2x0xi32>`).
            Some(_) if self.splat => self.bytes.len() == width,
            Some(count) => count.checked_mul(width as u64) == Some(self.bytes.len() as u64),
            None => false,
        }
    }
}

fn check_element(element: ElementType, bytes: &[u8]) -> Result<()> {
    let ok = match element {
        ElementType::I1 => bytes[0] <= 1,
        ElementType::I4 | ElementType::UI4 | ElementType::F4E2M1FN => bytes[0] <= 0xF,
        ElementType::I2 | ElementType::UI2 => bytes[0] <= 0x3,
        ElementType::F6E2M3FN | ElementType::F6E3M2FN => bytes[0] <= 0x3F,
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(IrError::constant(format!(
            "byte {:#04x} is not a valid {element} element",
            bytes[0]
        )))
    }
}

fn le_u64(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .rev()
        .fold(0u64, |acc, &byte| (acc << 8) | u64::from(byte))
}

fn decode(element: ElementType, bytes: &[u8]) -> ElementValue {
    if let Some(part) = element.complex_part() {
        let half = bytes.len() / 2;
        return ElementValue::Complex(
            decode_float(part, le_u64(&bytes[..half])),
            decode_float(part, le_u64(&bytes[half..])),
        );
    }
    let raw = le_u64(bytes);
    if element.is_bool() {
        ElementValue::Bool(raw != 0)
    } else if element.is_float() {
        ElementValue::Float(decode_float(element, raw))
    } else if element.is_signed_integer() {
        let width = element.bit_width();
        let shift = 64 - width;
        ElementValue::Signed(((raw << shift) as i64) >> shift)
    } else {
        ElementValue::Unsigned(raw)
    }
}

pub(crate) fn decode_float(element: ElementType, bits: u64) -> FloatBits {
    let value = match element {
        ElementType::F32 => Some(f64::from(f32::from_bits(bits as u32))),
        ElementType::F64 => Some(f64::from_bits(bits)),
        _ => element
            .float_format()
            .and_then(|format| decode_narrow(format, bits)),
    };
    FloatBits {
        bits,
        value: value.filter(|v| v.is_finite()),
    }
}

/// The infinity or NaN that the bits of a non-finite float encode.
fn float_special(element: ElementType, bits: u64) -> f64 {
    match element {
        ElementType::F32 => f64::from(f32::from_bits(bits as u32)),
        ElementType::F64 => f64::from_bits(bits),
        _ => match element.float_format() {
            Some(format)
                if format.ieee_specials && bits & ((1 << format.mantissa_bits) - 1) == 0 =>
            {
                let width = 1 + format.exponent_bits + format.mantissa_bits;
                if (bits >> (width - 1)) & 1 == 1 {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            }
            _ => f64::NAN,
        },
    }
}

fn decode_narrow(format: FloatFormat, bits: u64) -> Option<f64> {
    if format.unsigned {
        let max = (1u64 << format.exponent_bits) - 1;
        return (bits != max).then(|| 2f64.powi(bits as i32 - format.bias));
    }
    let width = 1 + format.exponent_bits + format.mantissa_bits;
    let sign = (bits >> (width - 1)) & 1 == 1;
    let exponent = ((bits >> format.mantissa_bits) & ((1 << format.exponent_bits) - 1)) as i32;
    let mantissa = bits & ((1 << format.mantissa_bits) - 1);
    let max_exponent = (1 << format.exponent_bits) - 1;
    if format.nan_is_negative_zero && sign && exponent == 0 && mantissa == 0 {
        return None;
    }
    if format.ieee_specials && exponent == max_exponent {
        return None;
    }
    if !format.ieee_specials
        && !format.nan_is_negative_zero
        && !format.finite_only
        && exponent == max_exponent
        && mantissa == (1 << format.mantissa_bits) - 1
    {
        return None;
    }
    let scale = 2f64.powi(-(format.mantissa_bits as i32));
    let magnitude = if exponent == 0 {
        mantissa as f64 * scale * 2f64.powi(1 - format.bias)
    } else {
        (1.0 + mantissa as f64 * scale) * 2f64.powi(exponent - format.bias)
    };
    Some(if sign { -magnitude } else { magnitude })
}

fn push_le(bits: u64, width_bytes: usize, out: &mut Vec<u8>) {
    out.extend_from_slice(&bits.to_le_bytes()[..width_bytes]);
}

pub(crate) fn encode_f64(element: ElementType, value: f64, out: &mut Vec<u8>) {
    if let Some(part) = element.complex_part() {
        encode_f64(part, value, out);
        encode_f64(part, 0.0, out);
        return;
    }
    match element {
        ElementType::F32 => push_le(u64::from((value as f32).to_bits()), 4, out),
        ElementType::F64 => push_le(value.to_bits(), 8, out),
        ElementType::I1 => out.push(u8::from(value != 0.0)),
        _ => match element.float_format() {
            Some(format) => push_le(encode_narrow(format, value), element.storage_bytes(), out),
            None => encode_i64(element, value as i64, out),
        },
    }
}

pub(crate) fn encode_i64(element: ElementType, value: i64, out: &mut Vec<u8>) {
    match element {
        ElementType::I1 => out.push(u8::from(value != 0)),
        ElementType::I4 | ElementType::UI4 => out.push((value & 0xF) as u8),
        ElementType::I2 | ElementType::UI2 => out.push((value & 0x3) as u8),
        _ if element.is_integer() => push_le(value as u64, element.storage_bytes(), out),
        _ => encode_f64(element, value as f64, out),
    }
}

/// Rounds `value` to nearest even in a narrow float format and returns its bits.
pub(crate) fn encode_narrow(format: FloatFormat, value: f64) -> u64 {
    if format.unsigned {
        let max = (1u64 << format.exponent_bits) - 1;
        if value.is_nan() || value <= 0.0 || value.is_infinite() {
            return max;
        }
        // The nearest power of two, ties (the geometric midpoint) away from zero.
        let exponent =
            (value.log2().round() as i64 + i64::from(format.bias)).clamp(0, max as i64 - 1);
        return exponent as u64;
    }
    let width = 1 + format.exponent_bits + format.mantissa_bits;
    let sign_bit = 1u64 << (width - 1);
    let max_exponent = (1i32 << format.exponent_bits) - 1;
    let mantissa_scale = 2f64.powi(format.mantissa_bits as i32);
    let nan = if format.nan_is_negative_zero {
        sign_bit
    } else if format.ieee_specials {
        ((max_exponent as u64) << format.mantissa_bits) | (1 << (format.mantissa_bits - 1))
    } else {
        (1u64 << (width - 1)) - 1
    };
    if value.is_nan() {
        return nan;
    }
    let sign = if value.is_sign_negative() && !format.nan_is_negative_zero {
        sign_bit
    } else {
        0
    };
    let sign_if_nonzero = if value.is_sign_negative() {
        sign_bit
    } else {
        0
    };
    let overflow = if format.ieee_specials {
        sign_if_nonzero | ((max_exponent as u64) << format.mantissa_bits)
    } else if format.finite_only {
        // Saturated: the all-ones pattern is the largest value.
        sign_if_nonzero | nan
    } else {
        nan
    };
    let magnitude = value.abs();
    if magnitude == 0.0 {
        return sign;
    }
    if magnitude.is_infinite() {
        return overflow;
    }
    let (largest_exponent, largest_mantissa) = if format.ieee_specials {
        (max_exponent - 1, (1u64 << format.mantissa_bits) - 1)
    } else if format.nan_is_negative_zero || format.finite_only {
        (max_exponent, (1u64 << format.mantissa_bits) - 1)
    } else {
        (max_exponent, (1u64 << format.mantissa_bits) - 2)
    };
    let exponent = magnitude.log2().floor() as i32;
    // log2 can be off by one near powers of two; fix it with exact comparisons.
    let exponent = if 2f64.powi(exponent) > magnitude {
        exponent - 1
    } else if 2f64.powi(exponent + 1) <= magnitude {
        exponent + 1
    } else {
        exponent
    };
    let biased = exponent + format.bias;
    let (biased, mantissa) = if biased >= 1 {
        let fraction = magnitude / 2f64.powi(exponent) - 1.0;
        let mantissa = (fraction * mantissa_scale).round_ties_even() as u64;
        if mantissa == 1 << format.mantissa_bits {
            (biased + 1, 0)
        } else {
            (biased, mantissa)
        }
    } else {
        let units = magnitude / 2f64.powi(1 - format.bias) * mantissa_scale;
        let mantissa = units.round_ties_even() as u64;
        if mantissa == 1 << format.mantissa_bits {
            (1, 0)
        } else {
            (0, mantissa)
        }
    };
    if biased > largest_exponent || (biased == largest_exponent && mantissa > largest_mantissa) {
        return overflow;
    }
    if biased == 0 && mantissa == 0 {
        return sign;
    }
    sign_if_nonzero | ((biased as u64) << format.mantissa_bits) | mantissa
}
