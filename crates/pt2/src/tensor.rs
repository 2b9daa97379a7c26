//! Stored tensors: a validated view (dtype, sizes, strides, offset, all in elements) onto the
//! storage bytes of a payload file, and its materialisation as contiguous bytes.

use std::borrow::Cow;
use std::convert::Infallible;
use std::io::{self, Write};

use serde::Serialize;

use crate::DType;
use crate::error::{Pt2Error, Result};

/// How a stored tensor enters the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum WeightKind {
    /// An `nn.Parameter` (in `data/weights/`).
    Parameter,
    /// A registered buffer: persistent ones are in `data/weights/`, others in `data/constants/`.
    Buffer {
        /// Saved in the state dict (`register_buffer(..., persistent=True)`).
        persistent: bool,
    },
    /// A lifted tensor constant (in `data/constants/`).
    Constant,
}

impl WeightKind {
    /// `parameter`, `buffer` or `constant`.
    pub fn name(self) -> &'static str {
        match self {
            WeightKind::Parameter => "parameter",
            WeightKind::Buffer { .. } => "buffer",
            WeightKind::Constant => "constant",
        }
    }
}

/// A validated view of a stored tensor, ready to read. Only [`crate::Archive::view`] makes one,
/// after checking that every element it reads lies inside `storage`.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct TensorView<'a> {
    /// The state-dict or constant name.
    pub fqn: &'a str,
    /// Element type.
    pub dtype: DType,
    /// Sizes, in elements.
    pub sizes: &'a [usize],
    /// Strides, in elements.
    pub strides: &'a [usize],
    /// Offset of the first element, in elements.
    pub storage_offset: usize,
    /// The whole storage the view reads from. Empty for a 0-byte payload, which torch writes for
    /// tensors without data: such a view reads as zeros.
    pub storage: &'a [u8],
}

/// Largest [`TensorView::to_contiguous_bytes`] result when the view reads more bytes than its
/// storage holds (stride-0 broadcasts, 0-byte payloads): 64 MiB.
pub const MAX_EXPANDED_BYTES: u64 = 64 << 20;

impl<'a> TensorView<'a> {
    /// Number of elements (validated not to overflow when the archive was opened).
    pub fn numel(&self) -> usize {
        self.sizes.iter().product()
    }

    /// Byte length of the contiguous tensor.
    pub fn nbytes(&self) -> usize {
        self.numel() * self.dtype.itemsize()
    }

    /// Whether the view reads as zeros because its payload is empty.
    pub fn is_zero_filled(&self) -> bool {
        self.storage.is_empty() && self.numel() > 0
    }

    /// Whether the elements are laid out row-major without gaps from `storage_offset` on.
    pub fn is_contiguous(&self) -> bool {
        let mut expected = 1usize;
        for (&size, &stride) in self.sizes.iter().zip(self.strides).rev() {
            if size != 1 && stride != expected {
                return false;
            }
            expected *= size;
        }
        true
    }

    /// The tensor's bytes without copying, when the view is contiguous.
    pub fn contiguous_slice(&self) -> Option<&'a [u8]> {
        if self.numel() == 0 {
            return Some(&[]);
        }
        if !self.is_contiguous() || self.storage.is_empty() {
            return None;
        }
        let start = self.storage_offset * self.dtype.itemsize();
        self.storage.get(start..start + self.nbytes())
    }

    /// The tensor as contiguous row-major little-endian bytes: borrowed when the view already is,
    /// copied otherwise. Refuses views that would expand a small storage beyond
    /// [`MAX_EXPANDED_BYTES`]; [`TensorView::write_contiguous`] streams those.
    pub fn to_contiguous_bytes(&self) -> Result<Cow<'a, [u8]>> {
        if let Some(bytes) = self.contiguous_slice() {
            return Ok(Cow::Borrowed(bytes));
        }
        let nbytes = self.nbytes() as u64;
        if nbytes > self.storage.len() as u64 && nbytes > MAX_EXPANDED_BYTES {
            return Err(Pt2Error::ViewTooLarge {
                fqn: self.fqn.to_owned(),
                bytes: nbytes,
                limit: MAX_EXPANDED_BYTES,
            });
        }
        let mut out = Vec::with_capacity(self.nbytes());
        let done: std::result::Result<(), Infallible> = self.for_each_run(|run| {
            out.extend_from_slice(run);
            Ok(())
        });
        match done {
            Ok(()) => Ok(Cow::Owned(out)),
        }
    }

    /// Writes the contiguous bytes to `out`, one run of adjacent elements at a time.
    pub fn write_contiguous(&self, out: &mut dyn Write) -> io::Result<()> {
        self.for_each_run(|run| out.write_all(run))
    }

    /// Calls `f` with consecutive pieces of the contiguous bytes.
    fn for_each_run<E>(
        &self,
        mut f: impl FnMut(&[u8]) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let itemsize = self.dtype.itemsize();
        if self.numel() == 0 {
            return Ok(());
        }
        if self.storage.is_empty() {
            let zeros = [0u8; 4096];
            let mut left = self.nbytes();
            while left > 0 {
                let n = left.min(zeros.len());
                f(&zeros[..n])?;
                left -= n;
            }
            return Ok(());
        }
        // Merge the innermost dimensions that are contiguous into one run.
        let rank = self.sizes.len();
        let mut run_dims = 0;
        let mut run_elems = 1usize;
        while run_dims < rank {
            let d = rank - 1 - run_dims;
            if self.sizes[d] != 1 && self.strides[d] != run_elems {
                break;
            }
            run_elems *= self.sizes[d];
            run_dims += 1;
        }
        let outer = &self.sizes[..rank - run_dims];
        let outer_strides = &self.strides[..rank - run_dims];
        let run_bytes = run_elems * itemsize;
        let mut index = vec![0usize; outer.len()];
        let mut offset = self.storage_offset;
        loop {
            let start = offset * itemsize;
            f(&self.storage[start..start + run_bytes])?;
            // Odometer increment over the outer dimensions.
            let mut d = outer.len();
            loop {
                if d == 0 {
                    return Ok(());
                }
                d -= 1;
                index[d] += 1;
                offset += outer_strides[d];
                if index[d] < outer[d] {
                    break;
                }
                offset -= outer_strides[d] * outer[d];
                index[d] = 0;
            }
        }
    }
}

/// Checks a view's geometry with checked arithmetic: `None` if the element count, byte count or
/// the largest storage element it reads overflows; otherwise that largest element
/// (`storage_offset + Σ (size_i - 1) * stride_i`), `Some(None)` for an empty tensor.
pub(crate) fn extent(
    sizes: &[usize],
    strides: &[usize],
    storage_offset: usize,
    itemsize: usize,
) -> Option<Option<u64>> {
    let mut numel: u64 = 1;
    let mut last = storage_offset as u64;
    for (&size, &stride) in sizes.iter().zip(strides) {
        numel = numel.checked_mul(size as u64)?;
        if size > 0 {
            last = last.checked_add((size as u64 - 1).checked_mul(stride as u64)?)?;
        }
    }
    let nbytes = numel.checked_mul(itemsize as u64)?;
    // Keep every later `usize` product in range.
    usize::try_from(nbytes).ok()?;
    usize::try_from(last.checked_add(1)?.checked_mul(itemsize as u64)?).ok()?;
    Some((numel > 0).then_some(last))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view<'a>(
        sizes: &'a [usize],
        strides: &'a [usize],
        offset: usize,
        storage: &'a [u8],
    ) -> TensorView<'a> {
        TensorView {
            fqn: "t",
            dtype: DType::U8,
            sizes,
            strides,
            storage_offset: offset,
            storage,
        }
    }

    #[test]
    fn contiguous_views_borrow() {
        let storage: Vec<u8> = (0..12).collect();
        let v = view(&[2, 3], &[3, 1], 4, &storage);
        assert!(v.is_contiguous());
        assert!(
            matches!(v.to_contiguous_bytes().unwrap(), Cow::Borrowed(b) if b == [4, 5, 6, 7, 8, 9])
        );
    }

    #[test]
    fn strided_views_copy() {
        let storage: Vec<u8> = (0..12).collect();
        // Transpose of a 3x4 matrix.
        let v = view(&[4, 3], &[1, 4], 0, &storage);
        assert!(!v.is_contiguous());
        assert_eq!(
            &*v.to_contiguous_bytes().unwrap(),
            [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]
        );
        // Every other row; rows are contiguous runs.
        let storage: Vec<u8> = (0..16).collect();
        let v = view(&[2, 4], &[8, 1], 1, &storage);
        assert_eq!(
            &*v.to_contiguous_bytes().unwrap(),
            [1, 2, 3, 4, 9, 10, 11, 12]
        );
        // A stride-0 broadcast.
        let v = view(&[3, 2], &[0, 1], 2, &storage);
        let mut streamed = Vec::new();
        v.write_contiguous(&mut streamed).unwrap();
        assert_eq!(streamed, [2, 3, 2, 3, 2, 3]);
        assert_eq!(&*v.to_contiguous_bytes().unwrap(), streamed.as_slice());
    }

    #[test]
    fn empty_payload_reads_as_zeros() {
        let v = view(&[2, 2], &[2, 1], 0, &[]);
        assert!(v.is_zero_filled());
        assert_eq!(&*v.to_contiguous_bytes().unwrap(), [0, 0, 0, 0]);
        let huge = view(&[1 << 40], &[1], 0, &[]);
        assert!(matches!(
            huge.to_contiguous_bytes(),
            Err(Pt2Error::ViewTooLarge { .. })
        ));
    }

    #[test]
    fn extent_checks_overflow() {
        assert_eq!(extent(&[2, 3], &[3, 1], 4, 4), Some(Some(9)));
        assert_eq!(extent(&[0, 3], &[3, 1], 4, 4), Some(None));
        assert!(extent(&[usize::MAX, 2], &[1, 1], 0, 1).is_none());
        assert!(extent(&[2], &[usize::MAX], 0, 1).is_none());
        assert!(extent(&[1 << 62], &[1], 0, 8).is_none());
    }
}
