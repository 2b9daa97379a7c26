//! Host tensors: the bytes handed to and read back from a device, and their `.npy` forms.

use std::borrow::Cow;

use tpuc_ir::{DenseElements, ElementType, TensorType};
use tpuc_npy::{Array, Dtype};
use tpuc_pt2::DType;

/// A dense, row-major, little-endian host array, borrowed (a weight in the mapped archive) or
/// owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostTensor<'a> {
    pub dtype: DType,
    pub shape: Vec<i64>,
    pub bytes: Cow<'a, [u8]>,
}

impl<'a> HostTensor<'a> {
    /// The same tensor, its bytes borrowed from this one when it owns them.
    pub fn borrowed(&self) -> HostTensor<'_> {
        HostTensor {
            dtype: self.dtype,
            shape: self.shape.clone(),
            bytes: Cow::Borrowed(&self.bytes),
        }
    }
}

/// The `.npy` element type that holds a torch dtype as is; `None` for bfloat16 (stored as
/// float32) and the types numpy lacks.
pub fn npy_dtype(dtype: DType) -> Option<Dtype> {
    Some(match dtype {
        DType::Bool => Dtype::Bool,
        DType::U8 => Dtype::U8,
        DType::I8 => Dtype::I8,
        DType::I16 => Dtype::I16,
        DType::I32 => Dtype::I32,
        DType::I64 => Dtype::I64,
        DType::U16 => Dtype::U16,
        DType::U32 => Dtype::U32,
        DType::U64 => Dtype::U64,
        DType::F16 => Dtype::F16,
        DType::F32 => Dtype::F32,
        DType::F64 => Dtype::F64,
        DType::C64 => Dtype::C64,
        DType::C128 => Dtype::C128,
        DType::BF16
        | DType::C32
        | DType::F8E4M3FN
        | DType::F8E5M2
        | DType::F8E4M3FNUZ
        | DType::F8E5M2FNUZ
        | DType::F8E8M0FNU
        | DType::I4
        | DType::U4 => return None,
    })
}

/// The dtype of a `.npy` file that feeds an input of `dtype`: the same type, or float32 for
/// bfloat16.
pub fn npy_dtype_for_input(dtype: DType) -> Option<Dtype> {
    match dtype {
        DType::BF16 => Some(Dtype::F32),
        other => npy_dtype(other),
    }
}

impl HostTensor<'static> {
    /// A tensor of zeros.
    pub fn zeros(dtype: DType, shape: Vec<i64>) -> Self {
        let count: usize = shape.iter().map(|&d| d.max(0) as usize).product();
        HostTensor {
            dtype,
            shape,
            bytes: Cow::Owned(vec![0; count * dtype.itemsize()]),
        }
    }
}

impl HostTensor<'_> {
    pub fn numel(&self) -> usize {
        self.shape.iter().map(|&d| d.max(0) as usize).product()
    }

    /// The tensor as a `.npy` array. Types numpy lacks are widened exactly: bfloat16 and the
    /// float8 types to float32, int4 to int8, uint4 to uint8; `None` for complex32.
    pub fn to_npy(&self) -> Option<Array> {
        let shape = self.shape.iter().map(|&d| d.max(0) as usize).collect();
        let array = match (self.dtype, npy_dtype(self.dtype)) {
            (DType::BF16, _) => Array::from_bf16(shape, &self.bytes),
            // One value per byte, in its low nibble: sign-extended.
            (DType::I4, _) => Array::new(
                Dtype::I8,
                shape,
                self.bytes
                    .iter()
                    .map(|&b| (((b << 4) as i8) >> 4) as u8)
                    .collect(),
            ),
            (DType::U4, _) => Array::new(
                Dtype::U8,
                shape,
                self.bytes.iter().map(|&b| b & 0x0f).collect(),
            ),
            (_, Some(dtype)) => Array::new(dtype, shape, self.bytes.to_vec()),
            (dtype, None) => {
                let element = narrow_float(dtype)?;
                let f32s = self
                    .bytes
                    .iter()
                    .flat_map(|&byte| (float_of(element, byte) as f32).to_le_bytes())
                    .collect();
                Array::new(Dtype::F32, shape, f32s)
            }
        };
        // The device returned exactly `numel` elements, so the lengths agree.
        array.ok()
    }
}

impl<'a> HostTensor<'a> {
    /// The same values in a narrower type the program stores them in: zeros in any type
    /// (a cache stored by `--kv-dtype`), float32 as bfloat16, and int8 values in [-8, 7] as
    /// int4 (torchao's int4 weights held in int8), whose host form is the same bytes; `None`
    /// otherwise.
    pub(crate) fn narrowed(self, dtype: DType) -> Option<HostTensor<'a>> {
        match (self.dtype, dtype) {
            (DType::I8, DType::I4) => {
                let fits = self.bytes.iter().all(|&b| (-8..=7).contains(&(b as i8)));
                fits.then_some(HostTensor { dtype, ..self })
            }
            _ if self.bytes.iter().all(|&byte| byte == 0) => {
                Some(HostTensor::zeros(dtype, self.shape.clone()))
            }
            (DType::F32, DType::BF16) => Some(from_npy(&self.to_npy()?, dtype)),
            _ => None,
        }
    }
}

/// An input of `dtype` made from a `.npy` array whose dtype and shape were checked against it:
/// float32 rounded to bfloat16 when `dtype` is bfloat16, the bytes as they are otherwise.
pub(crate) fn from_npy(array: &Array, dtype: DType) -> HostTensor<'static> {
    let shape = array.shape().iter().map(|&d| d as i64).collect();
    let bytes = match dtype {
        DType::BF16 => array
            .to_bf16()
            .expect("bfloat16 inputs are checked to come from float32"),
        _ => array.data().to_vec(),
    };
    HostTensor {
        dtype,
        shape,
        bytes: Cow::Owned(bytes),
    }
}

/// The one-byte float types, which `.npy` files hold as float32.
fn narrow_float(dtype: DType) -> Option<ElementType> {
    Some(match dtype {
        DType::F8E4M3FN => ElementType::F8E4M3FN,
        DType::F8E5M2 => ElementType::F8E5M2,
        DType::F8E4M3FNUZ => ElementType::F8E4M3FNUZ,
        DType::F8E5M2FNUZ => ElementType::F8E5M2FNUZ,
        DType::F8E8M0FNU => ElementType::F8E8M0FNU,
        _ => return None,
    })
}

/// The value of one byte of a one-byte float type (NaN and infinities included).
fn float_of(element: ElementType, byte: u8) -> f64 {
    let ty = TensorType::of(&[1], element);
    DenseElements::from_bytes(&ty, vec![byte])
        .ok()
        .and_then(|data| data.float_at(element, 0))
        .unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_round_trips_through_float32() {
        let f32s: Vec<u8> = [1.0f32, 1.0 + 3.0 / 256.0, -0.5]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let array = Array::new(Dtype::F32, vec![3], f32s).unwrap();
        let tensor = from_npy(&array, DType::BF16);
        assert_eq!(tensor.bytes.as_ref(), [0x80, 0x3f, 0x82, 0x3f, 0x00, 0xbf]);
        let back = tensor.to_npy().unwrap();
        assert_eq!(back.dtype(), Dtype::F32);
        assert_eq!(back.to_f64(), [1.0, 1.0 + 4.0 / 256.0, -0.5]);
    }

    #[test]
    fn int8_values_of_int4_range_are_passed_as_int4_and_others_are_refused() {
        let int8 = |values: &[i8]| HostTensor {
            dtype: DType::I8,
            shape: vec![values.len() as i64],
            bytes: Cow::Owned(values.iter().map(|&v| v as u8).collect()),
        };
        let narrowed = int8(&[-8, 7, 0, -1]).narrowed(DType::I4).unwrap();
        assert_eq!(narrowed.dtype, DType::I4);
        assert_eq!(narrowed.bytes.as_ref(), [0xf8, 0x07, 0x00, 0xff]);
        assert!(int8(&[-9, 0]).narrowed(DType::I4).is_none());
        assert!(int8(&[8]).narrowed(DType::I4).is_none());
        assert!(int8(&[1]).narrowed(DType::BF16).is_none());
    }

    #[test]
    fn int4_and_float8_are_written_widened_exactly() {
        let tensor = |dtype, bytes: &[u8]| HostTensor {
            dtype,
            shape: vec![bytes.len() as i64],
            bytes: Cow::Owned(bytes.to_vec()),
        };
        let int4 = tensor(DType::I4, &[0x08, 0x07, 0x0f, 0xf9])
            .to_npy()
            .unwrap();
        assert_eq!(int4.dtype(), Dtype::I8);
        assert_eq!(int4.to_f64(), [-8.0, 7.0, -1.0, -7.0]);
        let uint4 = tensor(DType::U4, &[0x0f, 0x00, 0x07]).to_npy().unwrap();
        assert_eq!(uint4.dtype(), Dtype::U8);
        assert_eq!(uint4.to_f64(), [15.0, 0.0, 7.0]);
        // e4m3fn: 0x38 is 1.0, 0xC4 is -3.0, 0x7F NaN, 0x01 the smallest subnormal (2^-9).
        let f8 = tensor(DType::F8E4M3FN, &[0x38, 0xc4, 0x7f, 0x01])
            .to_npy()
            .unwrap();
        assert_eq!(f8.dtype(), Dtype::F32);
        let values = f8.to_f64();
        assert_eq!(values[..2], [1.0, -3.0]);
        assert!(values[2].is_nan());
        assert_eq!(values[3], 2f64.powi(-9));
        // e8m0: 0x7F is 1.0, 0xFF NaN.
        let e8m0 = tensor(DType::F8E8M0FNU, &[0x7f, 0x80]).to_npy().unwrap();
        assert_eq!(e8m0.to_f64(), [1.0, 2.0]);
        // e5m2: 0x7C is infinity.
        let e5m2 = tensor(DType::F8E5M2, &[0x7c]).to_npy().unwrap();
        assert_eq!(e5m2.to_f64(), [f64::INFINITY]);
    }

    #[test]
    fn every_numpy_type_has_a_torch_twin() {
        for dtype in DType::ALL {
            if let Some(npy) = npy_dtype(dtype) {
                assert_eq!(npy.itemsize(), dtype.itemsize(), "{dtype}");
                assert_eq!(npy.name(), dtype.torch_name(), "{dtype}");
            }
        }
        assert_eq!(npy_dtype_for_input(DType::BF16), Some(Dtype::F32));
        assert_eq!(npy_dtype(DType::C32), None);
    }
}
