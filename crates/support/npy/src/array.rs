//! [`Array`]: a dense C-order array with little-endian elements, and its `.npy` encoding.

use std::fs;
use std::path::Path;

use crate::convert::{bf16_to_f32, f16_to_f32, f32_to_bf16};
use crate::dtype::{ByteOrder, Dtype};
use crate::error::{IN_MEMORY, NpyError, Problem};
use crate::header;

/// A dense array: C order, little-endian elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Array {
    dtype: Dtype,
    shape: Vec<usize>,
    data: Vec<u8>,
}

impl Array {
    /// An array over `data`, which must hold exactly `product(shape)` little-endian elements in
    /// C order.
    pub fn new(dtype: Dtype, shape: Vec<usize>, data: Vec<u8>) -> Result<Array, NpyError> {
        let expected = byte_len(dtype, &shape)
            .ok_or_else(|| problem(Problem::TooLarge(shape.iter().map(|&d| d as u64).collect())))?;
        if data.len() != expected {
            return Err(problem(Problem::DataLength {
                dtype: dtype.name(),
                shape,
                expected,
                actual: data.len(),
            }));
        }
        Ok(Array { dtype, shape, data })
    }

    /// A float32 array holding the exact values of bfloat16 `bits` (little-endian pairs).
    pub fn from_bf16(shape: Vec<usize>, bits: &[u8]) -> Result<Array, NpyError> {
        if !bits.len().is_multiple_of(2) {
            return Err(problem(Problem::Conversion(
                "bfloat16 data must be an even number of bytes".to_owned(),
            )));
        }
        let data = bits
            .chunks_exact(2)
            .flat_map(|pair| bf16_to_f32(u16::from_le_bytes([pair[0], pair[1]])).to_le_bytes())
            .collect();
        Array::new(Dtype::F32, shape, data)
    }

    /// Reads a `.npy` file.
    pub fn read(path: impl AsRef<Path>) -> Result<Array, NpyError> {
        let path = path.as_ref();
        let bytes = fs::read(path).map_err(|e| NpyError::new(path, e.into()))?;
        Array::decode(&bytes).map_err(|problem| NpyError::new(path, problem))
    }

    /// Decodes the bytes of a `.npy` file.
    pub fn from_npy_bytes(bytes: &[u8]) -> Result<Array, NpyError> {
        Array::decode(bytes).map_err(problem)
    }

    fn decode(bytes: &[u8]) -> Result<Array, Problem> {
        let (header, data) = header::parse(bytes)?;
        let too_large = || Problem::TooLarge(header.shape.clone());
        let shape = header
            .shape
            .iter()
            .map(|&d| usize::try_from(d).map_err(|_| too_large()))
            .collect::<Result<Vec<usize>, _>>()?;
        let expected = byte_len(header.dtype, &shape).ok_or_else(too_large)?;
        if data.len() != expected {
            return Err(Problem::DataLength {
                dtype: header.dtype.name(),
                shape,
                expected,
                actual: data.len(),
            });
        }
        let mut data = data.to_vec();
        if header.order == ByteOrder::Big {
            let width = header.dtype.swap_width();
            data.chunks_exact_mut(width).for_each(<[u8]>::reverse);
        }
        if header.fortran_order {
            data = fortran_to_c(&data, &shape, header.dtype.itemsize());
        }
        if header.dtype == Dtype::Bool && data.iter().any(|&b| b > 1) {
            return Err(Problem::Conversion(
                "a bool array holds a byte other than 0 or 1".to_owned(),
            ));
        }
        Ok(Array {
            dtype: header.dtype,
            shape,
            data,
        })
    }

    /// The bytes `numpy.save` writes for this array.
    pub fn to_npy_bytes(&self) -> Vec<u8> {
        let mut out = header::format(self.dtype, &self.shape);
        out.extend_from_slice(&self.data);
        out
    }

    pub fn dtype(&self) -> Dtype {
        self.dtype
    }

    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The elements: C order, little-endian.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    pub fn into_data(self) -> Vec<u8> {
        self.data
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements of a float32 array rounded to bfloat16 (nearest, ties to even), as
    /// little-endian 16-bit patterns.
    pub fn to_bf16(&self) -> Result<Vec<u8>, NpyError> {
        if self.dtype != Dtype::F32 {
            return Err(problem(Problem::Conversion(format!(
                "only float32 arrays convert to bfloat16, not {}",
                self.dtype
            ))));
        }
        Ok(self
            .data
            .chunks_exact(4)
            .flat_map(|b| f32_to_bf16(f32::from_le_bytes([b[0], b[1], b[2], b[3]])).to_le_bytes())
            .collect())
    }

    /// Every element as f64, in order; each complex element gives two values (real, imaginary).
    /// Exact except for 64-bit integers beyond 2^53.
    pub fn to_f64(&self) -> Vec<f64> {
        let width = self.dtype.swap_width();
        self.data
            .chunks_exact(width)
            .map(|b| match self.dtype {
                Dtype::Bool | Dtype::U8 => f64::from(b[0]),
                Dtype::I8 => f64::from(b[0] as i8),
                Dtype::I16 => f64::from(i16::from_le_bytes([b[0], b[1]])),
                Dtype::U16 => f64::from(u16::from_le_bytes([b[0], b[1]])),
                Dtype::F16 => f64::from(f16_to_f32(u16::from_le_bytes([b[0], b[1]]))),
                Dtype::I32 => f64::from(i32::from_le_bytes(array(b))),
                Dtype::U32 => f64::from(u32::from_le_bytes(array(b))),
                Dtype::F32 | Dtype::C64 => f64::from(f32::from_le_bytes(array(b))),
                Dtype::I64 => i64::from_le_bytes(array(b)) as f64,
                Dtype::U64 => u64::from_le_bytes(array(b)) as f64,
                Dtype::F64 | Dtype::C128 => f64::from_le_bytes(array(b)),
            })
            .collect()
    }
}

fn array<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0; N];
    out.copy_from_slice(bytes);
    out
}

fn problem(problem: Problem) -> NpyError {
    NpyError::new(IN_MEMORY, problem)
}

/// Bytes of a dense array, `None` on overflow.
fn byte_len(dtype: Dtype, shape: &[usize]) -> Option<usize> {
    shape
        .iter()
        .try_fold(dtype.itemsize(), |total, &dim| total.checked_mul(dim))
        .filter(|&total| isize::try_from(total).is_ok())
}

/// Reorders column-major elements into row-major order.
fn fortran_to_c(data: &[u8], shape: &[usize], itemsize: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let count: usize = shape.iter().product();
    // Column-major strides, in elements.
    let mut strides = Vec::with_capacity(shape.len());
    let mut stride = 1;
    for &dim in shape {
        strides.push(stride);
        stride *= dim;
    }
    let mut index = vec![0usize; shape.len()];
    for _ in 0..count {
        let offset: usize = index.iter().zip(&strides).map(|(i, s)| i * s).sum();
        out.extend_from_slice(&data[offset * itemsize..(offset + 1) * itemsize]);
        for d in (0..shape.len()).rev() {
            index[d] += 1;
            if index[d] < shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    out
}
