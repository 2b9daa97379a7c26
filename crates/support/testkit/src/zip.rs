//! Editing the records of a real `.pt2` zip in place, as a test that needs a damaged or altered
//! archive does, with every CRC-32 the reader checks kept consistent: the local header, the
//! central directory and the data descriptor torch writes after each record.

/// One STORED record: its name, header offsets and where its data lies.
struct Record {
    name: String,
    local_header: usize,
    central_header: usize,
    data: std::ops::Range<usize>,
}

/// Applies `edit(name, offset of the data in the file, data)` to the data of every record whose
/// name `select` accepts (sizes must not change), then rewrites those records' CRC-32s.
/// Returns how many records were edited.
pub fn edit_records(
    bytes: &mut [u8],
    select: impl Fn(&str) -> bool,
    mut edit: impl FnMut(&str, usize, &mut [u8]),
) -> usize {
    let records = records(bytes);
    let mut edited = 0;
    for record in records.iter().filter(|r| select(&r.name)) {
        edit(
            &record.name,
            record.data.start,
            &mut bytes[record.data.clone()],
        );
        let crc = crc32(&bytes[record.data.clone()]).to_le_bytes();
        bytes[record.local_header + 14..record.local_header + 18].copy_from_slice(&crc);
        bytes[record.central_header + 16..record.central_header + 20].copy_from_slice(&crc);
        let flags = u16::from_le_bytes([
            bytes[record.local_header + 6],
            bytes[record.local_header + 7],
        ]);
        if flags & 0x8 != 0 {
            let mut at = record.data.end;
            if bytes[at..at + 4] == 0x0807_4b50u32.to_le_bytes() {
                at += 4;
            }
            bytes[at..at + 4].copy_from_slice(&crc);
        }
        edited += 1;
    }
    edited
}

/// The name and data of every STORED record of a small zip, in directory order.
pub fn read_records(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    records(bytes)
        .into_iter()
        .map(|record| (record.name, bytes[record.data].to_vec()))
        .collect()
}

/// The STORED records of a zip file, from its central directory (enough for torch archives).
fn records(bytes: &[u8]) -> Vec<Record> {
    let u16_at = |at: usize| usize::from(u16::from_le_bytes([bytes[at], bytes[at + 1]]));
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let eocd = (0..bytes.len() - 21)
        .rev()
        .find(|&at| u32_at(at) == 0x0605_4b50)
        .expect("a zip");
    let (count, mut at) = (u16_at(eocd + 10), u32_at(eocd + 16));
    let mut records = Vec::new();
    for _ in 0..count {
        assert_eq!(u32_at(at), 0x0201_4b50, "central directory entry");
        let size = u32_at(at + 24);
        let (name_len, extra_len, comment_len) =
            (u16_at(at + 28), u16_at(at + 30), u16_at(at + 32));
        let name = String::from_utf8_lossy(&bytes[at + 46..at + 46 + name_len]).into_owned();
        let local = u32_at(at + 42);
        let data_start = local + 30 + u16_at(local + 26) + u16_at(local + 28);
        records.push(Record {
            name,
            local_header: local,
            central_header: at,
            data: data_start..data_start + size,
        });
        at += 46 + name_len + extra_len + comment_len;
    }
    records
}

fn crc32(data: &[u8]) -> u32 {
    crc32fast::hash(data)
}
