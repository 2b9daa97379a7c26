//! A small zip writer and a reader for the valid archives torch writes, shared by the
//! malformed-corpus generator (`examples/make_malformed.rs`) and the tests that build archives.
#![allow(dead_code)]

use std::io::{self, Cursor, Seek, SeekFrom, Write};

/// One record of an archive being rewritten.
#[derive(Clone)]
pub struct Entry {
    pub name: String,
    pub data: Vec<u8>,
    /// Zip method to declare; 8 writes a real deflate stream of stored blocks.
    pub method: u16,
    /// Extra zero bytes after `data`, written as a hole (sparse in files); no CRC is computed.
    pub sparse_zeros: u64,
}

impl Entry {
    pub fn new(name: &str, data: Vec<u8>) -> Entry {
        Entry {
            name: name.to_owned(),
            data,
            method: 0,
            sparse_zeros: 0,
        }
    }
}

/// Offsets of the structures of a zip archive (a valid one, as torch or [`write_zip`] writes it).
pub struct Layout {
    /// The end-of-central-directory record.
    pub eocd: usize,
    /// The zip64 end record, which torch always writes.
    pub zip64_record: Option<usize>,
    pub central_directory: usize,
    /// Name and offset of each central-directory record.
    pub records: Vec<(String, usize)>,
}

fn u16_at(b: &[u8], at: usize) -> usize {
    u16::from_le_bytes([b[at], b[at + 1]]) as usize
}

fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes")) as usize
}

/// The little-endian `width`-byte field at `at`, if it is inside `b`.
fn field(b: &[u8], at: usize, width: usize) -> Option<usize> {
    let bytes = b.get(at..at.checked_add(width)?)?;
    Some(
        bytes
            .iter()
            .rev()
            .fold(0, |value, &byte| value << 8 | byte as usize),
    )
}

impl Layout {
    /// The layout of a valid archive.
    pub fn of(b: &[u8]) -> Layout {
        Layout::try_of(b).expect("a zip archive")
    }

    /// The layout of any zip whose directory is intact, `None` if the records cannot be found.
    pub fn try_of(b: &[u8]) -> Option<Layout> {
        let eocd = (0..=b.len().checked_sub(22)?)
            .rev()
            .find(|&i| b[i..i + 4] == [0x50, 0x4b, 0x05, 0x06])?;
        let locator = eocd
            .checked_sub(20)
            .filter(|&at| b[at..at + 4] == [0x50, 0x4b, 0x06, 0x07]);
        let (zip64_record, central_directory, count) = match locator {
            Some(locator) => {
                let record = field(b, locator + 8, 8)?;
                (
                    Some(record),
                    field(b, record + 48, 8)?,
                    field(b, record + 32, 8)?,
                )
            }
            None => (None, field(b, eocd + 16, 4)?, field(b, eocd + 10, 2)?),
        };
        let mut records = Vec::new();
        let mut at = central_directory;
        for _ in 0..count.min(b.len() / 46) {
            let name_len = field(b, at + 28, 2)?;
            let name = b.get(at + 46..at + 46 + name_len)?;
            records.push((String::from_utf8(name.to_vec()).ok()?, at));
            at += 46 + name_len + field(b, at + 30, 2)? + field(b, at + 32, 2)?;
        }
        Some(Layout {
            eocd,
            zip64_record,
            central_directory,
            records,
        })
    }

    /// Offset of the named central-directory record.
    pub fn record(&self, name: &str) -> usize {
        self.records
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, at)| *at)
            .expect("record")
    }

    /// Offset of the named entry's local header in `b`.
    pub fn local_header(&self, b: &[u8], name: &str) -> usize {
        u32_at(b, self.record(name) + 42)
    }

    /// Offset of the named entry's data in `b`, as its local header places it.
    pub fn data(&self, b: &[u8], name: &str) -> usize {
        self.try_data(b, name)
            .expect("local header inside the file")
    }

    /// [`Layout::data`], `None` if the local header is not inside `b`.
    pub fn try_data(&self, b: &[u8], name: &str) -> Option<usize> {
        let local = self.local_header(b, name);
        Some(local + 30 + field(b, local + 26, 2)? + field(b, local + 28, 2)?)
    }
}

/// The entries of a valid archive, in order.
pub fn read_entries(b: &[u8]) -> Vec<Entry> {
    let layout = Layout::of(b);
    layout
        .records
        .iter()
        .map(|(name, at)| {
            let size = u32_at(b, at + 24);
            let start = layout.data(b, name);
            Entry::new(name, b[start..start + size].to_vec())
        })
        .collect()
}

/// Writes a plain zip (no zip64, no alignment) with correct CRCs; method 8 entries hold a deflate
/// stream of stored blocks, so any zip tool can still read them.
pub fn write_zip(entries: &[Entry]) -> Vec<u8> {
    let mut out = Cursor::new(Vec::new());
    write_zip_to(&mut out, entries).expect("writing to memory");
    out.into_inner()
}

/// [`write_zip`] to a seekable sink; `sparse_zeros` become holes when the sink is a file.
pub fn write_zip_to(out: &mut (impl Write + Seek), entries: &[Entry]) -> io::Result<()> {
    let mut central = Vec::new();
    for entry in entries {
        let data = if entry.method == 8 {
            deflate_stored(&entry.data)
        } else {
            entry.data.clone()
        };
        let crc = if entry.sparse_zeros == 0 {
            crc32(&entry.data)
        } else {
            0
        };
        let stored_len = data.len() as u64 + entry.sparse_zeros;
        let size = entry.data.len() as u64 + entry.sparse_zeros;
        let offset = out.stream_position()? as u32;
        let header = |sig: u32, central: bool| {
            let mut h = Vec::new();
            h.extend_from_slice(&sig.to_le_bytes());
            if central {
                h.extend_from_slice(&20u16.to_le_bytes()); // version made by
            }
            h.extend_from_slice(&20u16.to_le_bytes()); // version needed
            h.extend_from_slice(&0x0800u16.to_le_bytes()); // UTF-8 names
            h.extend_from_slice(&entry.method.to_le_bytes());
            h.extend_from_slice(&[0, 0, 0x21, 0]); // time, date (1980-01-01)
            h.extend_from_slice(&crc.to_le_bytes());
            h.extend_from_slice(&(stored_len as u32).to_le_bytes());
            h.extend_from_slice(&(size as u32).to_le_bytes());
            h.extend_from_slice(&(entry.name.len() as u16).to_le_bytes());
            h.extend_from_slice(&0u16.to_le_bytes()); // extra
            if central {
                h.extend_from_slice(&[0; 6]); // comment length, disk, internal attributes
                h.extend_from_slice(&0u32.to_le_bytes()); // external attributes
                h.extend_from_slice(&offset.to_le_bytes());
            }
            h.extend_from_slice(entry.name.as_bytes());
            h
        };
        out.write_all(&header(0x0403_4b50, false))?;
        out.write_all(&data)?;
        if entry.sparse_zeros > 0 {
            out.seek(SeekFrom::Current(entry.sparse_zeros as i64 - 1))?;
            out.write_all(&[0])?;
        }
        central.extend(header(0x0201_4b50, true));
    }
    let cd_offset = out.stream_position()? as u32;
    out.write_all(&central)?;
    let mut end = Vec::new();
    end.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    end.extend_from_slice(&[0; 4]);
    end.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    end.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    end.extend_from_slice(&(central.len() as u32).to_le_bytes());
    end.extend_from_slice(&cd_offset.to_le_bytes());
    end.extend_from_slice(&0u16.to_le_bytes());
    out.write_all(&end)
}

/// A raw deflate stream made of stored (uncompressed) blocks.
pub fn deflate_stored(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut chunks = data.chunks(0xFFFF).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xFF, 0xFF]);
    }
    while let Some(chunk) = chunks.next() {
        out.push(u8::from(chunks.peek().is_none()));
        let len = chunk.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out
}

pub fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}
