//! The shape index: for a program's family (the program and its lowering options, without
//! sizes for its symbolic dimensions), which executable serves which static shape. One file
//! per (target, shape), so concurrent compiles of different shapes never rewrite each other's
//! records: `v1/shapes/<family's first two hex digits>/<family>/<record digest>.json`.

use std::collections::BTreeMap;
use std::fs;
use std::io::ErrorKind;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::digest::{Digest, sha256};
use crate::error::{CacheError, Result};
use crate::fsutil::replace_file;
use crate::key::Key;
use crate::store::Cache;

pub const SHAPE_FORMAT: &str = "tpuc-shape/1";

/// One compiled shape of a family: the target, the symbols' sizes, the user inputs' static
/// shapes and the compile key of the executable built for them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShapeRecord {
    pub format: String,
    /// The target as `tpuc compile --target` spells it.
    pub target: String,
    /// The size of each symbolic dimension (torch's symbol names, `s27`).
    pub dims: BTreeMap<String, i64>,
    /// Every user input, in order.
    pub inputs: Vec<InputShape>,
    pub key: Key,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputShape {
    pub name: String,
    pub shape: Vec<i64>,
}

impl ShapeRecord {
    /// The record's file name: a digest of what identifies it (target and sizes), so a new
    /// compile of the same shape replaces its older record.
    fn digest(&self) -> Digest {
        let identity = serde_json::json!({"target": self.target, "dims": self.dims});
        sha256(identity.to_string().as_bytes())
    }
}

impl Cache {
    fn family_dir(&self, family: &Key) -> PathBuf {
        let hex = family.0.hex();
        self.layout().join("shapes").join(&hex[..2]).join(hex)
    }

    /// Records that `record.key` serves `record`'s shape for `family`.
    pub fn record_shape(&self, family: &Key, record: &ShapeRecord) -> Result<()> {
        self.writable()?;
        let bytes = serde_json::to_vec_pretty(record).expect("shape records serialize");
        let path = self
            .family_dir(family)
            .join(format!("{}.json", record.digest().hex()));
        replace_file(&self.tmp_dir(), &path, &bytes)
    }

    /// Every shape recorded for `family`, by target then sizes; unreadable records are skipped.
    pub fn shapes(&self, family: &Key) -> Result<Vec<ShapeRecord>> {
        let dir = self.family_dir(family);
        let files = match fs::read_dir(&dir) {
            Ok(files) => files,
            Err(error) if error.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
            Err(error) => return Err(CacheError::io("read", &dir)(error)),
        };
        let mut records: Vec<ShapeRecord> = files
            .filter_map(|file| fs::read(file.ok()?.path()).ok())
            .filter_map(|bytes| serde_json::from_slice::<ShapeRecord>(&bytes).ok())
            .filter(|record| record.format == SHAPE_FORMAT)
            .collect();
        records.sort_by(|a, b| (&a.target, &a.dims).cmp(&(&b.target, &b.dims)));
        Ok(records)
    }
}

/// The bucket chosen for a request and the padding the runtime must add.
#[derive(Clone, Debug)]
pub struct Bucket {
    pub record: ShapeRecord,
    pub padding: Vec<Padding>,
}

/// One dimension the runtime pads: axis `axis` of input `input`, from `from` to `to`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Padding {
    pub input: String,
    pub axis: usize,
    pub from: i64,
    pub to: i64,
}

/// Why no bucket serves a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoBucket {
    /// Nothing is recorded for the target.
    NoRecords,
    /// The request names an input the program does not have.
    UnknownInput { input: String, inputs: Vec<String> },
    /// Every recorded bucket is smaller than the request somewhere; each bucket's inputs as
    /// `name=AxB`.
    TooLarge { buckets: Vec<String> },
}

/// The smallest of `target`'s records that holds every requested input shape (`(name,
/// shape)`): same rank, every dimension at least the request's. Smallest by the requested
/// inputs' element count, then by sizes.
pub fn smallest_bucket(
    records: &[ShapeRecord],
    target: &str,
    request: &[(String, Vec<i64>)],
) -> Result<Bucket, NoBucket> {
    let of_target: Vec<&ShapeRecord> = records.iter().filter(|r| r.target == target).collect();
    let Some(first) = of_target.first() else {
        return Err(NoBucket::NoRecords);
    };
    if let Some((input, _)) = request
        .iter()
        .find(|(input, _)| !first.inputs.iter().any(|i| &i.name == input))
    {
        return Err(NoBucket::UnknownInput {
            input: input.clone(),
            inputs: first.inputs.iter().map(|i| i.name.clone()).collect(),
        });
    }
    let fit = |record: &ShapeRecord| -> Option<(i64, Vec<Padding>)> {
        let mut elements = 0i64;
        let mut padding = Vec::new();
        for (input, wanted) in request {
            let have = &record.inputs.iter().find(|i| &i.name == input)?.shape;
            if have.len() != wanted.len() || have.iter().zip(wanted).any(|(h, w)| h < w) {
                return None;
            }
            elements = elements.saturating_add(have.iter().product());
            for (axis, (&to, &from)) in have.iter().zip(wanted).enumerate() {
                if to > from {
                    padding.push(Padding {
                        input: input.clone(),
                        axis,
                        from,
                        to,
                    });
                }
            }
        }
        Some((elements, padding))
    };
    of_target
        .iter()
        .filter_map(|record| fit(record).map(|(elements, padding)| (elements, *record, padding)))
        .min_by(|a, b| (a.0, &a.1.dims).cmp(&(b.0, &b.1.dims)))
        .map(|(_, record, padding)| Bucket {
            record: record.clone(),
            padding,
        })
        .ok_or_else(|| NoBucket::TooLarge {
            buckets: of_target
                .iter()
                .map(|record| {
                    let inputs: Vec<String> = record
                        .inputs
                        .iter()
                        .map(|i| {
                            let dims: Vec<String> = i.shape.iter().map(i64::to_string).collect();
                            format!("{}={}", i.name, dims.join("x"))
                        })
                        .collect();
                    inputs.join(" ")
                })
                .collect(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(target: &str, seq: i64) -> ShapeRecord {
        ShapeRecord {
            format: SHAPE_FORMAT.to_owned(),
            target: target.to_owned(),
            dims: BTreeMap::from([("s27".to_owned(), seq)]),
            inputs: vec![InputShape {
                name: "tokens".to_owned(),
                shape: vec![2, seq],
            }],
            key: Key(sha256(format!("{target}{seq}").as_bytes())),
        }
    }

    #[test]
    fn the_smallest_bucket_that_holds_the_request_and_its_padding() {
        let records: Vec<ShapeRecord> = [512, 128, 256]
            .into_iter()
            .map(|seq| record("cpu", seq))
            .chain([record("tpu:v5e:2x2", 1024)])
            .collect();
        let request = |seq: i64| vec![("tokens".to_owned(), vec![2, seq])];
        let bucket = smallest_bucket(&records, "cpu", &request(200)).unwrap();
        assert_eq!(bucket.record.dims["s27"], 256);
        assert_eq!(
            bucket.padding,
            [Padding {
                input: "tokens".to_owned(),
                axis: 1,
                from: 200,
                to: 256
            }]
        );
        let exact = smallest_bucket(&records, "cpu", &request(128)).unwrap();
        assert_eq!(exact.record.dims["s27"], 128);
        assert!(exact.padding.is_empty());
        assert!(matches!(
            smallest_bucket(&records, "cpu", &request(600)),
            Err(NoBucket::TooLarge { buckets }) if buckets.len() == 3
        ));
        let tpu = smallest_bucket(&records, "tpu:v5e:2x2", &request(600)).unwrap();
        assert_eq!(tpu.record.dims["s27"], 1024);
        assert_eq!(
            smallest_bucket(&records, "tpu:v6e:2x2", &request(1)).unwrap_err(),
            NoBucket::NoRecords
        );
        let unknown = vec![("ids".to_owned(), vec![2, 8])];
        assert!(matches!(
            smallest_bucket(&records, "cpu", &unknown),
            Err(NoBucket::UnknownInput { input, .. }) if input == "ids"
        ));
        let wrong_rank = vec![("tokens".to_owned(), vec![16])];
        assert!(matches!(
            smallest_bucket(&records, "cpu", &wrong_rank),
            Err(NoBucket::TooLarge { .. })
        ));
    }
}
