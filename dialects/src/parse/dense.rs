//! Dense literals as written (`dense<1.0>`, nested lists, hex bits, `"0x..."` blobs), turned into
//! [`DenseElements`] once the tensor type after them is known.

use crate::dense::{DenseElements, encode_f64, encode_i64};
use crate::types::{ElementType, TensorType};

#[derive(Clone, Debug)]
pub(crate) enum DenseLit {
    List(Vec<DenseLit>),
    Int(i128),
    Float(f64),
    /// `0x7FC00000`: raw bits for float types, the value for integer types.
    Bits(u64),
    Complex(Box<DenseLit>, Box<DenseLit>),
    /// `"0x..."`: little-endian element bytes.
    Blob(Vec<u8>),
}

impl DenseLit {
    pub(crate) fn to_elements(&self, ty: &TensorType) -> Result<DenseElements, String> {
        let shape = ty
            .static_shape()
            .ok_or_else(|| format!("constant type {ty} must have a static shape"))?;
        let element = ty.element;
        let mut bytes = Vec::new();
        match self {
            Self::Blob(blob) => bytes.clone_from(blob),
            // `dense<>` of any shape without elements (`tensor<2x0x3xi4>`).
            Self::List(items) if items.is_empty() && shape.contains(&0) => {}
            Self::List(_) => {
                let dims: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
                self.flatten(element, &dims, &mut bytes)?;
            }
            scalar => scalar.encode(element, &mut bytes)?,
        }
        DenseElements::from_bytes(ty, bytes).map_err(|e| e.message().to_string())
    }

    fn flatten(
        &self,
        element: ElementType,
        dims: &[usize],
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        match (self, dims.split_first()) {
            (Self::List(items), Some((&size, rest))) => {
                if items.len() != size {
                    return Err(format!(
                        "dense literal has {} elements where the type needs {size}",
                        items.len()
                    ));
                }
                items
                    .iter()
                    .try_for_each(|item| item.flatten(element, rest, out))
            }
            (Self::List(_), None) => {
                Err("dense literal is nested deeper than the tensor's rank".to_string())
            }
            (_, Some(_)) => {
                Err("dense literal is nested less deeply than the tensor's rank".to_string())
            }
            (scalar, None) => scalar.encode(element, out),
        }
    }

    fn encode(&self, element: ElementType, out: &mut Vec<u8>) -> Result<(), String> {
        if let Some(part) = element.complex_part() {
            let Self::Complex(re, im) = self else {
                return Err(format!("expected a `(re, im)` element for {element}"));
            };
            re.encode(part, out)?;
            return im.encode(part, out);
        }
        match self {
            Self::Int(value) if element.is_float() => encode_f64(element, *value as f64, out),
            Self::Int(value) => {
                let fits = if element.is_bool() {
                    (0..=1).contains(value)
                } else if element.is_unsigned_integer() {
                    *value >= 0 && *value < (1i128 << element.bit_width())
                } else {
                    let half = 1i128 << (element.bit_width() - 1);
                    (-half..half).contains(value)
                };
                if !fits {
                    return Err(format!("value {value} does not fit {element}"));
                }
                encode_i64(element, *value as i64, out);
            }
            Self::Float(value) if element.is_float() => encode_f64(element, *value, out),
            Self::Float(value) => return Err(format!("float {value} in a constant of {element}")),
            Self::Bits(bits) => {
                let width = element.storage_bytes();
                if width < 8 && *bits >> (width * 8) != 0 {
                    return Err(format!("hex value {bits:#X} does not fit {element}"));
                }
                out.extend_from_slice(&bits.to_le_bytes()[..width]);
            }
            Self::Complex(..) => return Err(format!("complex element in a constant of {element}")),
            Self::List(_) | Self::Blob(_) => {
                return Err("nested literal where an element was expected".to_string());
            }
        }
        Ok(())
    }
}
