//! A minimal zip reader for `.pt2` archives: end-of-central-directory (with the zip64 locator and
//! record torch always writes), the central directory, and local headers to find where each
//! entry's bytes start. Only uncompressed (STORED) data is handed out, as a slice of the mapped file.
//!
//! Nothing the local header says is trusted on its own: its name, method, sizes and CRC-32 must
//! agree with the central directory, its extra field must be well formed, and the data it points
//! at must end before the next record starts (at the data descriptor, when it has one). The
//! CRC-32 of the data itself is checked by whoever reads the bytes: [`ZipIndex::data`] at once,
//! weights on their first use.
//!
//! Hand-written rather than the `zip` crate: the reader needs nothing but bounds-checked offsets
//! into one byte slice, every field that comes from the file is checked before use, and nothing
//! is allocated from a count the file claims.

use std::collections::HashMap;
use std::path::Path;

use crate::error::{Pt2Error, Result};

const EOCD_SIGNATURE: u32 = 0x0605_4b50;
const EOCD_LEN: usize = 22;
const ZIP64_LOCATOR_SIGNATURE: u32 = 0x0706_4b50;
const ZIP64_LOCATOR_LEN: usize = 20;
const ZIP64_EOCD_SIGNATURE: u32 = 0x0606_4b50;
const ZIP64_EOCD_LEN: usize = 56;
const CENTRAL_SIGNATURE: u32 = 0x0201_4b50;
const CENTRAL_LEN: usize = 46;
const LOCAL_SIGNATURE: u32 = 0x0403_4b50;
const LOCAL_LEN: usize = 30;
const DESCRIPTOR_SIGNATURE: u32 = 0x0807_4b50;
const ZIP64_EXTRA_ID: u16 = 0x0001;
const MAX_COMMENT: usize = u16::MAX as usize;

/// Zip method 0: the data is stored uncompressed.
pub(crate) const METHOD_STORED: u16 = 0;
const FLAG_ENCRYPTED: u16 = 1;
/// Bit 3: the CRC-32 and sizes follow the data in a descriptor; the local header may hold zeros.
const FLAG_DESCRIPTOR: u16 = 1 << 3;

/// One central-directory record.
#[derive(Clone, Debug)]
pub(crate) struct ZipEntry {
    pub name: String,
    pub method: u16,
    pub flags: u16,
    pub crc32: u32,
    pub compressed_size: u64,
    pub size: u64,
    pub local_header_offset: u64,
    /// Where the next record (local header or central directory) starts: this entry's header,
    /// data and descriptor must end there or before.
    pub region_end: u64,
}

/// The entries of an archive, in file order, with a name index.
#[derive(Debug)]
pub(crate) struct ZipIndex {
    entries: Vec<ZipEntry>,
    by_name: HashMap<String, usize>,
    /// Start of the central directory: entry data must end before it.
    data_end: u64,
}

/// Little-endian field reads from a bounds-checked slice.
struct Fields<'a>(&'a [u8]);

impl Fields<'_> {
    fn u16(&self, at: usize) -> u16 {
        u16::from_le_bytes([self.0[at], self.0[at + 1]])
    }
    fn u32(&self, at: usize) -> u32 {
        u32::from_le_bytes([self.0[at], self.0[at + 1], self.0[at + 2], self.0[at + 3]])
    }
    fn u64(&self, at: usize) -> u64 {
        let mut bytes = [0; 8];
        bytes.copy_from_slice(&self.0[at..at + 8]);
        u64::from_le_bytes(bytes)
    }
}

/// `len` bytes at `offset`, if they are inside `bytes`.
fn slice_at(bytes: &[u8], offset: u64, len: u64) -> Option<&[u8]> {
    let start = usize::try_from(offset).ok()?;
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    bytes.get(start..end)
}

impl ZipIndex {
    /// Reads the central directory of `bytes`.
    pub fn read(archive: &Path, bytes: &[u8]) -> Result<ZipIndex> {
        let corrupt = |reason: String| Pt2Error::CorruptZip {
            archive: archive.to_owned(),
            reason,
        };
        let eocd_at = find_eocd(bytes).ok_or_else(|| Pt2Error::NotAZip {
            archive: archive.to_owned(),
            reason: if bytes.len() < EOCD_LEN {
                format!("the file is only {} bytes long", bytes.len())
            } else {
                "no end-of-central-directory record".to_owned()
            },
        })?;
        let eocd = Fields(&bytes[eocd_at..eocd_at + EOCD_LEN]);
        if eocd.u16(4) != 0 || eocd.u16(6) != 0 {
            return Err(corrupt("multi-disk archives are not supported".into()));
        }
        let mut count = u64::from(eocd.u16(10));
        let mut cd_size = u64::from(eocd.u32(12));
        let mut cd_offset = u64::from(eocd.u32(16));
        let mut directory_end = eocd_at as u64;

        if let Some(locator_at) = eocd_at.checked_sub(ZIP64_LOCATOR_LEN)
            && Fields(&bytes[locator_at..]).u32(0) == ZIP64_LOCATOR_SIGNATURE
        {
            let locator = Fields(&bytes[locator_at..eocd_at]);
            let record_at = locator.u64(8);
            let record = slice_at(bytes, record_at, ZIP64_EOCD_LEN as u64)
                .filter(|_| record_at + ZIP64_EOCD_LEN as u64 <= locator_at as u64)
                .ok_or_else(|| {
                    corrupt(format!(
                        "zip64 record offset {record_at} is outside the file"
                    ))
                })?;
            let record = Fields(record);
            if record.u32(0) != ZIP64_EOCD_SIGNATURE {
                return Err(corrupt(
                    "bad zip64 end-of-central-directory signature".into(),
                ));
            }
            if record.u32(16) != 0 || record.u32(20) != 0 {
                return Err(corrupt("multi-disk archives are not supported".into()));
            }
            count = record.u64(32);
            cd_size = record.u64(40);
            cd_offset = record.u64(48);
            directory_end = record_at;
        } else if count == 0xFFFF || cd_size == 0xFFFF_FFFF || cd_offset == 0xFFFF_FFFF {
            return Err(corrupt("zip64 values without a zip64 locator".into()));
        }

        cd_offset
            .checked_add(cd_size)
            .filter(|&end| end <= directory_end)
            .ok_or_else(|| {
                corrupt(format!(
                    "central directory ({cd_size} bytes at offset {cd_offset}) extends past its end record at {directory_end}"
                ))
            })?;
        let directory = slice_at(bytes, cd_offset, cd_size)
            .ok_or_else(|| corrupt("central directory is outside the file".into()))?;

        let mut entries = Vec::new();
        let mut by_name = HashMap::new();
        let mut pos = 0usize;
        while pos < directory.len() {
            let (entry, len) = read_central_entry(archive, &directory[pos..])?;
            pos += len;
            if by_name.insert(entry.name.clone(), entries.len()).is_some() {
                return Err(Pt2Error::DuplicateEntry {
                    archive: archive.to_owned(),
                    entry: entry.name,
                });
            }
            entries.push(entry);
        }
        if entries.len() as u64 != count {
            return Err(corrupt(format!(
                "the end record counts {count} entries, the central directory holds {}",
                entries.len()
            )));
        }
        let mut by_offset: Vec<usize> = (0..entries.len()).collect();
        by_offset.sort_unstable_by_key(|&i| entries[i].local_header_offset);
        for (k, &i) in by_offset.iter().enumerate() {
            entries[i].region_end = by_offset
                .get(k + 1)
                .map_or(cd_offset, |&next| entries[next].local_header_offset);
        }
        Ok(ZipIndex {
            entries,
            by_name,
            data_end: cd_offset,
        })
    }

    pub fn entries(&self) -> &[ZipEntry] {
        &self.entries
    }

    pub fn get(&self, name: &str) -> Option<&ZipEntry> {
        self.index(name).map(|i| &self.entries[i])
    }

    /// Position of the named entry in [`ZipIndex::entries`].
    pub fn index(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// The bytes of a STORED entry, found through its local header, with their CRC-32 checked.
    pub fn data<'a>(&self, archive: &Path, bytes: &'a [u8], entry: &ZipEntry) -> Result<&'a [u8]> {
        let data = &bytes[self.data_range(archive, bytes, entry)?];
        check_crc(archive, entry, crc32fast::hash(data))?;
        Ok(data)
    }

    /// Where a STORED entry's bytes are in `bytes`, after checking its local header against the
    /// central directory. The bytes themselves are not read: their CRC-32 is the caller's to check
    /// ([`check_crc`]) before use.
    pub fn data_range(
        &self,
        archive: &Path,
        bytes: &[u8],
        entry: &ZipEntry,
    ) -> Result<std::ops::Range<usize>> {
        if entry.flags & FLAG_ENCRYPTED != 0 {
            return Err(Pt2Error::EncryptedEntry {
                archive: archive.to_owned(),
                entry: entry.name.clone(),
            });
        }
        if entry.method != METHOD_STORED {
            return Err(Pt2Error::CompressedEntry {
                archive: archive.to_owned(),
                entry: entry.name.clone(),
                method: entry.method,
            });
        }
        let out_of_bounds = |reason: String| Pt2Error::EntryOutOfBounds {
            archive: archive.to_owned(),
            entry: entry.name.clone(),
            reason,
        };
        let mismatch = |reason: String| Pt2Error::LocalHeaderMismatch {
            archive: archive.to_owned(),
            entry: entry.name.clone(),
            reason,
        };
        if entry.compressed_size != entry.size {
            return Err(Pt2Error::CorruptZip {
                archive: archive.to_owned(),
                reason: format!(
                    "stored entry `{}` has compressed size {} but size {}",
                    entry.name, entry.compressed_size, entry.size
                ),
            });
        }
        let region_end = entry.region_end.min(self.data_end);
        let header = slice_at(bytes, entry.local_header_offset, LOCAL_LEN as u64)
            .filter(|_| entry.local_header_offset + LOCAL_LEN as u64 <= region_end)
            .ok_or_else(|| {
                out_of_bounds(format!(
                    "local header offset {} is past the entry data area",
                    entry.local_header_offset
                ))
            })?;
        let header = Fields(header);
        if header.u32(0) != LOCAL_SIGNATURE {
            return Err(Pt2Error::CorruptZip {
                archive: archive.to_owned(),
                reason: format!("bad local header signature for `{}`", entry.name),
            });
        }
        let flags = header.u16(6);
        let method = header.u16(8);
        let name_len = u64::from(header.u16(26));
        let extra_len = u64::from(header.u16(28));
        let name_at = entry.local_header_offset + LOCAL_LEN as u64;
        if slice_at(bytes, name_at, name_len) != Some(entry.name.as_bytes()) {
            return Err(Pt2Error::CorruptZip {
                archive: archive.to_owned(),
                reason: format!("local header name differs from `{}`", entry.name),
            });
        }
        if method != entry.method || flags & FLAG_ENCRYPTED != 0 {
            return Err(mismatch(format!(
                "method {method} with flags {flags:#06x}, the central directory says method {} with flags {:#06x}",
                entry.method, entry.flags
            )));
        }
        let extra = slice_at(bytes, name_at + name_len, extra_len)
            .filter(|_| name_at + name_len + extra_len <= region_end)
            .ok_or_else(|| {
                mismatch(format!(
                    "its {extra_len}-byte extra field reaches past the start of the next record at {region_end}"
                ))
            })?;
        if !extra_is_well_formed(extra) {
            return Err(mismatch(format!(
                "its {extra_len}-byte extra field is not a sequence of extra records"
            )));
        }
        // With a data descriptor, the local header may leave the CRC-32 and sizes as zeros.
        let deferred = flags & FLAG_DESCRIPTOR != 0;
        let agrees = |local: u64, central: u64| local == central || (deferred && local == 0);
        let crc = header.u32(14);
        if !agrees(u64::from(crc), u64::from(entry.crc32)) {
            return Err(mismatch(format!(
                "CRC-32 {crc:#010x}, the central directory says {:#010x}",
                entry.crc32
            )));
        }
        let (size, compressed_size) = local_sizes(&header, extra).ok_or_else(|| {
            mismatch("zip64 sizes without a well-formed zip64 extra field".to_owned())
        })?;
        if !agrees(size, entry.size) || !agrees(compressed_size, entry.compressed_size) {
            return Err(mismatch(format!(
                "sizes {compressed_size} (stored) and {size}, the central directory says {} and {}",
                entry.compressed_size, entry.size
            )));
        }

        let data_start = name_at + name_len + extra_len;
        let range = data_start
            .checked_add(entry.size)
            .filter(|&end| end <= region_end && end <= bytes.len() as u64)
            .map(|end| data_start as usize..end as usize)
            .ok_or_else(|| {
                let reason = format!(
                    "{} bytes at offset {data_start} reach past the start of the next record at {region_end}",
                    entry.size
                );
                if data_start + entry.size <= self.data_end {
                    mismatch(reason)
                } else {
                    out_of_bounds(reason)
                }
            })?;
        if deferred {
            // The descriptor repeats the CRC-32 right after the data (after an optional signature):
            // a data offset that is off by any amount lands on other bytes.
            let at = range.end as u64;
            let field = |offset: u64| {
                slice_at(bytes, at + offset, 4)
                    .filter(|_| at + offset + 4 <= region_end)
                    .map(|b| Fields(b).u32(0))
            };
            let descriptor_crc = match field(0) {
                Some(DESCRIPTOR_SIGNATURE) => field(4),
                other => other,
            };
            if descriptor_crc != Some(entry.crc32) {
                return Err(mismatch(format!(
                    "the data descriptor after {} bytes at offset {data_start} does not repeat the CRC-32 {:#010x}",
                    entry.size, entry.crc32
                )));
            }
        }
        Ok(range)
    }
}

/// Checks the CRC-32 computed over an entry's bytes against the central directory's.
pub(crate) fn check_crc(archive: &Path, entry: &ZipEntry, actual: u32) -> Result<()> {
    if actual == entry.crc32 {
        return Ok(());
    }
    Err(Pt2Error::ChecksumMismatch {
        archive: archive.to_owned(),
        entry: entry.name.clone(),
        expected: entry.crc32,
        actual,
    })
}

/// The uncompressed and stored sizes of a local header, from its zip64 extra field if it has one.
fn local_sizes(header: &Fields<'_>, extra: &[u8]) -> Option<(u64, u64)> {
    let (size, compressed_size) = (header.u32(22), header.u32(18));
    if size != 0xFFFF_FFFF && compressed_size != 0xFFFF_FFFF {
        return Some((u64::from(size), u64::from(compressed_size)));
    }
    // In a local header, the zip64 field holds both sizes, uncompressed first.
    let zip64 = zip64_extra(extra)?;
    Some((
        Fields(zip64.get(..8)?).u64(0),
        Fields(zip64.get(8..16)?).u64(0),
    ))
}

/// Whether `extra` is a sequence of (id, length, data) records that fills it exactly.
fn extra_is_well_formed(mut extra: &[u8]) -> bool {
    while !extra.is_empty() {
        if extra.len() < 4 {
            return false;
        }
        let len = 4 + usize::from(Fields(extra).u16(2));
        let Some(rest) = extra.get(len..) else {
            return false;
        };
        extra = rest;
    }
    true
}

/// Offset of the end-of-central-directory record: the last signature whose comment fits the file.
fn find_eocd(bytes: &[u8]) -> Option<usize> {
    let last = bytes.len().checked_sub(EOCD_LEN)?;
    let first = last.saturating_sub(MAX_COMMENT);
    (first..=last).rev().find(|&at| {
        let record = Fields(&bytes[at..at + EOCD_LEN]);
        record.u32(0) == EOCD_SIGNATURE
            && at + EOCD_LEN + usize::from(record.u16(20)) <= bytes.len()
    })
}

/// Parses one central-directory record at the start of `bytes`; returns it and its length.
fn read_central_entry(archive: &Path, bytes: &[u8]) -> Result<(ZipEntry, usize)> {
    let corrupt = |reason: &str| Pt2Error::CorruptZip {
        archive: archive.to_owned(),
        reason: reason.to_owned(),
    };
    if bytes.len() < CENTRAL_LEN {
        return Err(corrupt("truncated central directory record"));
    }
    let fields = Fields(bytes);
    if fields.u32(0) != CENTRAL_SIGNATURE {
        return Err(corrupt("bad central directory record signature"));
    }
    let name_len = usize::from(fields.u16(28));
    let extra_len = usize::from(fields.u16(30));
    let comment_len = usize::from(fields.u16(32));
    let len = CENTRAL_LEN + name_len + extra_len + comment_len;
    if bytes.len() < len {
        return Err(corrupt("central directory record runs past the directory"));
    }
    let name_bytes = &bytes[CENTRAL_LEN..CENTRAL_LEN + name_len];
    let extra = &bytes[CENTRAL_LEN + name_len..CENTRAL_LEN + name_len + extra_len];
    let name = std::str::from_utf8(name_bytes)
        .map_err(|_| Pt2Error::UnsafeEntryName {
            archive: archive.to_owned(),
            entry: String::from_utf8_lossy(name_bytes).into_owned(),
            reason: "not UTF-8",
        })?
        .to_owned();
    check_name(&name).map_err(|reason| Pt2Error::UnsafeEntryName {
        archive: archive.to_owned(),
        entry: name.clone(),
        reason,
    })?;

    let mut size = u64::from(fields.u32(24));
    let mut compressed_size = u64::from(fields.u32(20));
    let mut local_header_offset = u64::from(fields.u32(42));
    if size == 0xFFFF_FFFF || compressed_size == 0xFFFF_FFFF || local_header_offset == 0xFFFF_FFFF {
        let mut zip64 = zip64_extra(extra)
            .ok_or_else(|| corrupt("zip64 sizes without a zip64 extra field"))?
            .chunks_exact(8)
            .map(|chunk| Fields(chunk).u64(0));
        let mut take = |value: &mut u64| -> Result<()> {
            if *value == 0xFFFF_FFFF {
                *value = zip64
                    .next()
                    .ok_or_else(|| corrupt("zip64 extra field is too short"))?;
            }
            Ok(())
        };
        take(&mut size)?;
        take(&mut compressed_size)?;
        take(&mut local_header_offset)?;
    }
    Ok((
        ZipEntry {
            name,
            method: fields.u16(10),
            flags: fields.u16(8),
            crc32: fields.u32(16),
            compressed_size,
            size,
            local_header_offset,
            region_end: 0,
        },
        len,
    ))
}

/// The data of the zip64 extended-information extra field, if present.
fn zip64_extra(mut extra: &[u8]) -> Option<&[u8]> {
    while extra.len() >= 4 {
        let fields = Fields(extra);
        let (id, len) = (fields.u16(0), usize::from(fields.u16(2)));
        let data = extra.get(4..4 + len)?;
        if id == ZIP64_EXTRA_ID {
            return Some(data);
        }
        extra = &extra[4 + len..];
    }
    None
}

/// Rejects names that could escape a directory if a tool extracted the archive.
fn check_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("empty name");
    }
    if name.contains('\0') {
        return Err("contains a NUL byte");
    }
    if name.contains('\\') {
        return Err("contains a backslash");
    }
    if name.starts_with('/') {
        return Err("absolute path");
    }
    let bytes = name.as_bytes();
    if bytes.len() >= 2 && bytes[1] == b':' && bytes[0].is_ascii_alphabetic() {
        return Err("absolute path with a drive letter");
    }
    if name.split('/').any(|part| part == "..") {
        return Err("`..` path component");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// A one-entry archive whose central record keeps its sizes and offset in a zip64 extra field.
    fn zip64_archive(data: &[u8]) -> Vec<u8> {
        let name = b"r/a";
        let crc = crc32fast::hash(data).to_le_bytes();
        let mut out = Vec::new();
        out.extend_from_slice(&LOCAL_SIGNATURE.to_le_bytes());
        out.extend_from_slice(&[0; 10]); // version, flags, method, time, date
        out.extend_from_slice(&crc);
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(name);
        out.extend_from_slice(data);
        let cd_offset = out.len();
        let mut extra = Vec::new();
        extra.extend_from_slice(&ZIP64_EXTRA_ID.to_le_bytes());
        extra.extend_from_slice(&24u16.to_le_bytes());
        for value in [data.len() as u64, data.len() as u64, 0] {
            extra.extend_from_slice(&value.to_le_bytes());
        }
        out.extend_from_slice(&CENTRAL_SIGNATURE.to_le_bytes());
        out.extend_from_slice(&[0; 12]); // versions, flags, method, time, date
        out.extend_from_slice(&crc);
        out.extend_from_slice(&[0xFF; 8]); // sizes in zip64 extra
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&(extra.len() as u16).to_le_bytes());
        out.extend_from_slice(&[0; 10]); // comment length, disk, attributes
        out.extend_from_slice(&[0xFF; 4]); // local header offset in zip64 extra
        out.extend_from_slice(name);
        out.extend_from_slice(&extra);
        let cd_size = out.len() - cd_offset;
        let record_at = out.len();
        out.extend_from_slice(&ZIP64_EOCD_SIGNATURE.to_le_bytes());
        out.extend_from_slice(&44u64.to_le_bytes());
        out.extend_from_slice(&[0; 12]); // versions, disk numbers
        for value in [1u64, 1, cd_size as u64, cd_offset as u64] {
            out.extend_from_slice(&value.to_le_bytes());
        }
        out.extend_from_slice(&ZIP64_LOCATOR_SIGNATURE.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(record_at as u64).to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
        out.extend_from_slice(&EOCD_SIGNATURE.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&[0xFF; 4]); // entry counts in the zip64 record
        out.extend_from_slice(&[0xFF; 8]); // directory size and offset in the zip64 record
        out.extend_from_slice(&0u16.to_le_bytes());
        out
    }

    #[test]
    fn zip64_fields_are_read() {
        let bytes = zip64_archive(b"hello");
        let path = Path::new("zip64.pt2");
        let index = ZipIndex::read(path, &bytes).unwrap();
        let entry = index.get("r/a").unwrap();
        assert_eq!(
            (entry.size, entry.compressed_size, entry.local_header_offset),
            (5, 5, 0)
        );
        assert_eq!(index.data(path, &bytes, entry).unwrap(), b"hello");
    }

    #[test]
    fn every_truncation_is_refused() {
        let bytes = zip64_archive(b"hello");
        for len in 0..bytes.len() {
            assert!(
                ZipIndex::read(Path::new("cut"), &bytes[..len]).is_err(),
                "{len}"
            );
        }
    }

    #[test]
    fn entry_data_past_the_directory_is_refused() {
        let mut bytes = zip64_archive(b"hello");
        // Grow the zip64 size fields of the central record, and the local sizes to match, past
        // the directory start.
        let extra_at = bytes.len() - 22 - 20 - 56 - 24;
        bytes[extra_at..extra_at + 8].copy_from_slice(&64u64.to_le_bytes());
        bytes[extra_at + 8..extra_at + 16].copy_from_slice(&64u64.to_le_bytes());
        bytes[18..26].copy_from_slice(&[64, 0, 0, 0, 64, 0, 0, 0]);
        let path = Path::new("long.pt2");
        let index = ZipIndex::read(path, &bytes).unwrap();
        let entry = index.get("r/a").unwrap();
        assert!(matches!(
            index.data(path, &bytes, entry),
            Err(Pt2Error::EntryOutOfBounds { .. })
        ));
    }

    #[test]
    fn local_header_must_agree_with_the_central_directory() {
        let intact = zip64_archive(b"hello");
        let path = Path::new("local.pt2");
        // (what is edited, offset into the local header, new bytes)
        let edits: [(&str, usize, &[u8]); 5] = [
            ("method", 8, &[8, 0]),
            ("encryption flag", 6, &[1, 0]),
            ("CRC-32", 14, &[0, 0, 0, 0]),
            ("stored size", 18, &[4, 0, 0, 0]),
            ("extra length", 28, &[4, 0]),
        ];
        for (what, at, value) in edits {
            let mut bytes = intact.clone();
            bytes[at..at + value.len()].copy_from_slice(value);
            let index = ZipIndex::read(path, &bytes).unwrap();
            let entry = index.get("r/a").unwrap();
            let error = index.data_range(path, &bytes, entry).unwrap_err();
            assert!(
                matches!(&error, Pt2Error::LocalHeaderMismatch { entry, .. } if entry == "r/a"),
                "{what}: {error}"
            );
        }
    }

    #[test]
    fn data_checks_the_crc() {
        let mut bytes = zip64_archive(b"hello");
        let path = Path::new("crc.pt2");
        let data_at = LOCAL_LEN + 3;
        bytes[data_at] ^= 0x20;
        let index = ZipIndex::read(path, &bytes).unwrap();
        let entry = index.get("r/a").unwrap();
        // The range is still well formed; the bytes are not the ones written.
        assert!(index.data_range(path, &bytes, entry).is_ok());
        let error = index.data(path, &bytes, entry).unwrap_err();
        assert!(
            matches!(
                &error,
                Pt2Error::ChecksumMismatch { entry, expected, actual, .. }
                    if entry == "r/a"
                        && *expected == crc32fast::hash(b"hello")
                        && *actual == crc32fast::hash(b"Hello")
            ),
            "{error}"
        );
    }

    #[test]
    fn names() {
        assert!(check_name("model/data/weights/weight_0").is_ok());
        assert!(check_name("model/..data").is_ok());
        for bad in [
            "",
            "/etc/passwd",
            "a/../b",
            "..",
            "a\\b",
            "C:/x",
            "a\0b",
            "model/..",
        ] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
    }
}
