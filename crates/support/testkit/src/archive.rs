//! Writing `.pt2` zips of any size for tests and benchmarks: STORED records with 64-byte
//! aligned data and zip64 fields throughout (as torch writes them), whose data may be a hole
//! of zeros (a sparse file: a 5 GiB weight costs no disk) or pseudo-random floats generated
//! as they are written. Nothing is held in memory but the small records.

use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::path::Path;

/// What a record holds.
#[derive(Clone, Debug)]
pub enum Data {
    Bytes(Vec<u8>),
    /// `len` zero bytes, left as a hole in the file.
    Zeros(u64),
    /// `count` little-endian f32 values in `[-scale, scale)`, from a generator seeded with `seed`.
    Floats {
        count: u64,
        scale: f32,
        seed: u64,
    },
}

impl Data {
    pub fn len(&self) -> u64 {
        match self {
            Data::Bytes(bytes) => bytes.len() as u64,
            Data::Zeros(len) => *len,
            Data::Floats { count, .. } => count * 4,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

const LOCAL_SIGNATURE: u32 = 0x0403_4b50;
const CENTRAL_SIGNATURE: u32 = 0x0201_4b50;
const ZIP64_EOCD_SIGNATURE: u32 = 0x0606_4b50;
const ZIP64_LOCATOR_SIGNATURE: u32 = 0x0706_4b50;
const EOCD_SIGNATURE: u32 = 0x0605_4b50;
const ZIP64_EXTRA_ID: u16 = 0x0001;
/// An extra-field id no reader interprets, used to pad data to its alignment.
const PADDING_EXTRA_ID: u16 = 0xa220;
const ALIGNMENT: u64 = 64;
const CHUNK: usize = 1 << 20;

/// Writes `records` as a zip at `path`; returns the file's length.
pub fn write_zip(path: &Path, records: &[(String, Data)]) -> io::Result<u64> {
    let mut out = Counting {
        inner: BufWriter::with_capacity(CHUNK, File::create(path)?),
        at: 0,
    };
    let mut central = Vec::new();
    for (name, data) in records {
        let offset = out.at;
        let crc = write_record(&mut out, name, data)?;
        central.push((name, data.len(), crc, offset));
    }
    let cd_offset = out.at;
    for (name, len, crc, offset) in &central {
        let mut extra = Vec::new();
        put_u16(&mut extra, ZIP64_EXTRA_ID);
        put_u16(&mut extra, 24);
        for value in [*len, *len, *offset] {
            put_u64(&mut extra, value);
        }
        let mut header = Vec::new();
        put_u32(&mut header, CENTRAL_SIGNATURE);
        put_u16(&mut header, 45); // version made by
        put_u16(&mut header, 45); // version needed: zip64
        put_u16(&mut header, 0); // flags
        put_u16(&mut header, 0); // stored
        put_u32(&mut header, 0); // time, date
        put_u32(&mut header, *crc);
        put_u32(&mut header, u32::MAX); // sizes in the zip64 extra field
        put_u32(&mut header, u32::MAX);
        put_u16(&mut header, name.len() as u16);
        put_u16(&mut header, extra.len() as u16);
        put_u16(&mut header, 0); // comment
        put_u16(&mut header, 0); // disk
        put_u16(&mut header, 0); // internal attributes
        put_u32(&mut header, 0); // external attributes
        put_u32(&mut header, u32::MAX); // offset in the zip64 extra field
        out.write_all(&header)?;
        out.write_all(name.as_bytes())?;
        out.write_all(&extra)?;
    }
    let cd_size = out.at - cd_offset;
    let record_at = out.at;
    let count = central.len() as u64;
    let mut tail = Vec::new();
    put_u32(&mut tail, ZIP64_EOCD_SIGNATURE);
    put_u64(&mut tail, 44);
    put_u16(&mut tail, 45);
    put_u16(&mut tail, 45);
    put_u32(&mut tail, 0); // this disk
    put_u32(&mut tail, 0); // directory's disk
    for value in [count, count, cd_size, cd_offset] {
        put_u64(&mut tail, value);
    }
    put_u32(&mut tail, ZIP64_LOCATOR_SIGNATURE);
    put_u32(&mut tail, 0);
    put_u64(&mut tail, record_at);
    put_u32(&mut tail, 1);
    put_u32(&mut tail, EOCD_SIGNATURE);
    put_u32(&mut tail, 0); // disks
    put_u16(&mut tail, u16::MAX); // counts in the zip64 record
    put_u16(&mut tail, u16::MAX);
    put_u32(&mut tail, u32::MAX); // size and offset in the zip64 record
    put_u32(&mut tail, u32::MAX);
    put_u16(&mut tail, 0); // comment
    out.write_all(&tail)?;
    out.flush()?;
    let file = out
        .inner
        .into_inner()
        .map_err(io::IntoInnerError::into_error)?;
    file.set_len(out.at)?;
    file.sync_all()?;
    Ok(out.at)
}

/// Writes one local header and its data; returns the data's CRC-32.
fn write_record(out: &mut Counting, name: &str, data: &Data) -> io::Result<u32> {
    let mut extra = Vec::new();
    put_u16(&mut extra, ZIP64_EXTRA_ID);
    put_u16(&mut extra, 16);
    put_u64(&mut extra, data.len());
    put_u64(&mut extra, data.len());
    let unpadded = out.at + 30 + name.len() as u64 + extra.len() as u64 + 4;
    let padding = (ALIGNMENT - unpadded % ALIGNMENT) % ALIGNMENT;
    put_u16(&mut extra, PADDING_EXTRA_ID);
    put_u16(&mut extra, padding as u16);
    extra.resize(extra.len() + padding as usize, 0);

    let crc = crc32(data);
    let mut header = Vec::new();
    put_u32(&mut header, LOCAL_SIGNATURE);
    put_u16(&mut header, 45);
    put_u16(&mut header, 0); // flags
    put_u16(&mut header, 0); // stored
    put_u32(&mut header, 0); // time, date
    put_u32(&mut header, crc);
    put_u32(&mut header, u32::MAX);
    put_u32(&mut header, u32::MAX);
    put_u16(&mut header, name.len() as u16);
    put_u16(&mut header, extra.len() as u16);
    out.write_all(&header)?;
    out.write_all(name.as_bytes())?;
    out.write_all(&extra)?;
    match data {
        Data::Bytes(bytes) => out.write_all(bytes)?,
        Data::Zeros(len) => out.skip(*len)?,
        Data::Floats { .. } => {
            let mut chunk = Vec::with_capacity(CHUNK);
            for_each_chunk(data, &mut chunk, |bytes| out.write_all(bytes))?;
        }
    }
    Ok(crc)
}

/// Calls `each` with the data's bytes, at most [`CHUNK`] at a time.
fn for_each_chunk(
    data: &Data,
    chunk: &mut Vec<u8>,
    mut each: impl FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<()> {
    match data {
        Data::Bytes(bytes) => each(bytes),
        Data::Zeros(len) => {
            chunk.clear();
            chunk.resize(CHUNK, 0);
            let mut left = *len;
            while left > 0 {
                let n = left.min(CHUNK as u64) as usize;
                each(&chunk[..n])?;
                left -= n as u64;
            }
            Ok(())
        }
        Data::Floats { count, scale, seed } => {
            let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            let mut left = *count;
            while left > 0 {
                chunk.clear();
                let n = left.min((CHUNK / 4) as u64);
                for _ in 0..n {
                    // xorshift64*: 24 high bits give a uniform value in [-1, 1).
                    state ^= state >> 12;
                    state ^= state << 25;
                    state ^= state >> 27;
                    let bits = state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 40;
                    let unit = bits as f32 / (1u32 << 23) as f32 - 1.0;
                    chunk.extend_from_slice(&(unit * scale).to_le_bytes());
                }
                each(chunk)?;
                left -= n;
            }
            Ok(())
        }
    }
}

fn crc32(data: &Data) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    if let Data::Zeros(len) = data {
        // CRC-32 of a long run of zeros by combining one chunk's, without reading them.
        let mut block = crc32fast::Hasher::new();
        block.update(&vec![0; CHUNK]);
        for _ in 0..len / CHUNK as u64 {
            hasher.combine(&block);
        }
        hasher.update(&vec![0; (len % CHUNK as u64) as usize]);
        return hasher.finalize();
    }
    let mut chunk = Vec::new();
    for_each_chunk(data, &mut chunk, |bytes| {
        hasher.update(bytes);
        Ok(())
    })
    .expect("hashing does not fail");
    hasher.finalize()
}

/// A writer that knows its position and leaves holes for zeros.
struct Counting {
    inner: BufWriter<File>,
    at: u64,
}

impl Counting {
    fn skip(&mut self, len: u64) -> io::Result<()> {
        self.inner.flush()?;
        self.inner.get_mut().seek(SeekFrom::Current(len as i64))?;
        self.at += len;
        Ok(())
    }
}

impl Write for Counting {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.at += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

fn put_u16(out: &mut Vec<u8>, value: u16) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put_u32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put_u64(out: &mut Vec<u8>, value: u64) {
    out.extend_from_slice(&value.to_le_bytes());
}
