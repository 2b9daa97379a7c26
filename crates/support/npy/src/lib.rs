//! NumPy `.npy` files (format versions 1.0, 2.0 and 3.0): decode and encode dense arrays.
//!
//! An [`Array`] always holds its elements in C order as little-endian bytes, whatever the file
//! had: big-endian files are byte-swapped and Fortran-order files transposed on read.
//! [`Array::to_npy_bytes`] produces the bytes `numpy.save` writes for the same array.
//!
//! The header is parsed as data, never evaluated: only the dictionary literal numpy writes
//! (`descr`, `fortran_order`, `shape`) is accepted, its length is bounded by
//! [`MAX_HEADER_LEN`], the shape's element and byte counts are checked for overflow, and the
//! data must be exactly as long as the header says.
//!
//! ```
//! use tpuc_npy::{Array, Dtype};
//! let array = Array::new(Dtype::F32, vec![2], [1.0f32, 2.0].iter().flat_map(|v| v.to_le_bytes()).collect())?;
//! let bytes = array.to_npy_bytes();
//! assert_eq!(Array::from_npy_bytes(&bytes)?, array);
//! # Ok::<(), tpuc_npy::NpyError>(())
//! ```

mod array;
mod convert;
mod dtype;
mod error;
mod header;

pub use array::Array;
pub use convert::{bf16_to_f32, f16_to_f32, f32_to_bf16};
pub use dtype::Dtype;
pub use error::{NpyError, Problem};
pub use header::MAX_HEADER_LEN;
