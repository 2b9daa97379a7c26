//! Stored tensors: a validated view (dtype, sizes, strides, offset, all in elements) onto the
//! storage bytes of a payload file, and its materialisation as contiguous bytes.

use std::borrow::Cow;
use std::convert::Infallible;
use std::io::{self, Write};
use std::path::Path;
use std::sync::OnceLock;

use serde::Serialize;

use crate::DType;
use crate::error::{Pt2Error, Result};
use crate::zip::{ZipEntry, check_crc};

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
/// after checking that every element it reads lies inside its storage. The storage bytes are
/// handed out only after their CRC-32 matched the archive's (checked once per storage record, on
/// first read), so every byte accessor returns a `Result`.
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
    storage: StorageBytes<'a>,
}

/// The bytes of a storage record and what is needed to check them before use.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StorageBytes<'a> {
    pub archive: &'a Path,
    pub entry: &'a ZipEntry,
    pub bytes: &'a [u8],
    /// The CRC-32 of `bytes`, computed on first use and shared by every view of the record.
    pub crc32: &'a OnceLock<u32>,
}

impl<'a> StorageBytes<'a> {
    fn checked(&self) -> Result<&'a [u8]> {
        let actual = *self.crc32.get_or_init(|| crc32fast::hash(self.bytes));
        check_crc(self.archive, self.entry, actual)?;
        Ok(self.bytes)
    }
}

/// Largest [`TensorView::to_contiguous_bytes`] result when the view reads more bytes than its
/// storage holds (stride-0 broadcasts, 0-byte payloads): 64 MiB.
pub const MAX_EXPANDED_BYTES: u64 = 64 << 20;

impl<'a> TensorView<'a> {
    pub(crate) fn new(
        fqn: &'a str,
        dtype: DType,
        sizes: &'a [usize],
        strides: &'a [usize],
        storage_offset: usize,
        storage: StorageBytes<'a>,
    ) -> TensorView<'a> {
        TensorView {
            fqn,
            dtype,
            sizes,
            strides,
            storage_offset,
            storage,
        }
    }

    /// The whole storage the view reads from, once its CRC-32 is verified (the first call for a
    /// storage record reads all of it). Empty for a 0-byte payload, which torch writes for tensors
    /// without data: such a view reads as zeros.
    pub fn storage(&self) -> Result<&'a [u8]> {
        self.storage.checked()
    }

    /// Byte length of the storage, without reading it.
    pub fn storage_len(&self) -> usize {
        self.storage.bytes.len()
    }

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
        self.storage_len() == 0 && self.numel() > 0
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

    /// The tensor's bytes without copying, when the view is contiguous (`Ok(None)` otherwise).
    pub fn contiguous_slice(&self) -> Result<Option<&'a [u8]>> {
        if self.numel() == 0 {
            return Ok(Some(&[]));
        }
        if !self.is_contiguous() || self.storage_len() == 0 {
            return Ok(None);
        }
        let start = self.storage_offset * self.dtype.itemsize();
        Ok(self.storage()?.get(start..start + self.nbytes()))
    }

    /// The tensor as contiguous row-major little-endian bytes: borrowed when the view already is,
    /// copied otherwise. Refuses views that would expand a small storage beyond
    /// [`MAX_EXPANDED_BYTES`]; [`TensorView::write_contiguous`] streams those.
    pub fn to_contiguous_bytes(&self) -> Result<Cow<'a, [u8]>> {
        if let Some(bytes) = self.contiguous_slice()? {
            return Ok(Cow::Borrowed(bytes));
        }
        let nbytes = self.nbytes() as u64;
        if nbytes > self.storage_len() as u64 && nbytes > MAX_EXPANDED_BYTES {
            return Err(Pt2Error::ViewTooLarge {
                fqn: self.fqn.to_owned(),
                bytes: nbytes,
                limit: MAX_EXPANDED_BYTES,
            });
        }
        let storage = self.storage()?;
        let mut out = Vec::with_capacity(self.nbytes());
        let done: std::result::Result<(), Infallible> = self.for_each_run(storage, |run| {
            out.extend_from_slice(run);
            Ok(())
        });
        match done {
            Ok(()) => Ok(Cow::Owned(out)),
        }
    }

    /// Writes the contiguous bytes to `out`, one run of adjacent elements at a time. A storage
    /// whose CRC-32 does not match is an [`io::ErrorKind::InvalidData`] error wrapping the
    /// [`Pt2Error`].
    pub fn write_contiguous(&self, out: &mut dyn Write) -> io::Result<()> {
        let storage = self
            .storage()
            .map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))?;
        self.for_each_run(storage, |run| out.write_all(run))
    }

    /// Calls `f` with consecutive pieces of the contiguous bytes of the view of `storage`.
    fn for_each_run<E>(
        &self,
        storage: &[u8],
        mut f: impl FnMut(&[u8]) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let itemsize = self.dtype.itemsize();
        if self.numel() == 0 {
            return Ok(());
        }
        if storage.is_empty() {
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
            f(&storage[start..start + run_bytes])?;
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

    /// A view of `storage` as the record `t`, whose recorded CRC-32 is `crc32`.
    fn view_with_crc<'a>(
        sizes: &'a [usize],
        strides: &'a [usize],
        offset: usize,
        storage: &'a [u8],
        crc32: u32,
    ) -> TensorView<'a> {
        let entry = Box::leak(Box::new(ZipEntry {
            name: "t".to_owned(),
            method: 0,
            flags: 0,
            crc32,
            compressed_size: storage.len() as u64,
            size: storage.len() as u64,
            local_header_offset: 0,
            region_end: 0,
        }));
        let storage = StorageBytes {
            archive: Path::new("t.pt2"),
            entry,
            bytes: storage,
            crc32: Box::leak(Box::new(OnceLock::new())),
        };
        TensorView::new("t", DType::U8, sizes, strides, offset, storage)
    }

    fn view<'a>(
        sizes: &'a [usize],
        strides: &'a [usize],
        offset: usize,
        storage: &'a [u8],
    ) -> TensorView<'a> {
        view_with_crc(sizes, strides, offset, storage, crc32fast::hash(storage))
    }

    #[test]
    fn no_byte_of_a_corrupt_storage_is_handed_out() {
        let storage: Vec<u8> = (0..12).collect();
        let wrong = crc32fast::hash(&storage) ^ 1;
        let is_checksum = |error: &Pt2Error| {
            matches!(error, Pt2Error::ChecksumMismatch { entry, expected, .. }
                if entry == "t" && *expected == wrong)
        };
        // Contiguous (borrowed), strided (copied) and broadcast (streamed) reads all check.
        let contiguous = view_with_crc(&[2, 3], &[3, 1], 4, &storage, wrong);
        assert!(is_checksum(&contiguous.storage().unwrap_err()));
        assert!(is_checksum(&contiguous.contiguous_slice().unwrap_err()));
        assert!(is_checksum(&contiguous.to_contiguous_bytes().unwrap_err()));
        let strided = view_with_crc(&[4, 3], &[1, 4], 0, &storage, wrong);
        assert!(is_checksum(&strided.to_contiguous_bytes().unwrap_err()));
        let broadcast = view_with_crc(&[3, 2], &[0, 1], 2, &storage, wrong);
        let error = broadcast.write_contiguous(&mut Vec::new()).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        let inner = error.get_ref().and_then(|e| e.downcast_ref::<Pt2Error>());
        assert!(inner.is_some_and(is_checksum), "{error}");
        // Geometry needs no bytes.
        assert_eq!((contiguous.numel(), contiguous.storage_len()), (6, 12));
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
