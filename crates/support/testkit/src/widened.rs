//! Real exported programs at any size: the `mlp` fixture (`Linear(4 → 8)`, ReLU,
//! `Linear(8 → 3)` on a `[2, 4]` input) widened to `in_features` and `hidden`, for tests and
//! benchmarks of multi-GB archives that need no torch. The program JSON is torch's own with
//! the two widths replaced; the weights are new.

use std::io;
use std::path::Path;

use crate::archive::{Data, write_zip};
use crate::zip::read_records;

/// The fixture's widths, as they appear in its JSON.
const IN_FEATURES: u64 = 4;
const HIDDEN: u64 = 8;
const OUT_FEATURES: u64 = 3;

/// How the widened weights are filled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// Holes: a sparse file, every weight zero.
    Zeros,
    /// Pseudo-random values scaled by `1/sqrt(fan_in)`, written out.
    Random,
}

/// Writes the widened archive to `out` from the fixture at `fixture`; returns the file's
/// length. `fc2.bias` keeps the fixture's values.
pub fn widened_mlp(
    fixture: &Path,
    out: &Path,
    in_features: u64,
    hidden: u64,
    fill: Fill,
) -> io::Result<u64> {
    assert!(
        ![IN_FEATURES, HIDDEN].contains(&in_features) && ![IN_FEATURES, HIDDEN].contains(&hidden),
        "widths of 4 or 8 cannot be told apart from the fixture's"
    );
    let bytes = std::fs::read(fixture)?;
    let mut records = Vec::new();
    for (name, data) in read_records(&bytes) {
        let widened = if name.ends_with(".json") {
            Data::Bytes(widen_json(&data, in_features, hidden)?)
        } else if let Some(weight) = name
            .rsplit('/')
            .next()
            .filter(|_| name.contains("/weights/"))
        {
            match weight {
                "weight_0" => weights(hidden * in_features, in_features, fill, 0),
                "weight_1" => weights(hidden, in_features, fill, 1),
                "weight_2" => weights(OUT_FEATURES * hidden, hidden, fill, 2),
                _ => Data::Bytes(data),
            }
        } else {
            Data::Bytes(data)
        };
        records.push((name, widened));
    }
    write_zip(out, &records)
}

/// The bytes of all four weights of a widened archive.
pub fn weight_bytes(in_features: u64, hidden: u64) -> u64 {
    4 * (hidden * in_features + hidden + OUT_FEATURES * hidden + OUT_FEATURES)
}

fn weights(count: u64, fan_in: u64, fill: Fill, seed: u64) -> Data {
    match fill {
        Fill::Zeros => Data::Zeros(count * 4),
        Fill::Random => Data::Floats {
            count,
            scale: 1.0 / (fan_in as f32).sqrt(),
            seed,
        },
    }
}

/// Replaces every size and stride equal to a width (`{"as_int": 4}`, `{"as_int": 8}`) with the
/// new width. In this fixture no other integer argument takes those values.
fn widen_json(json: &[u8], in_features: u64, hidden: u64) -> io::Result<Vec<u8>> {
    let text =
        std::str::from_utf8(json).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let widen = |text: &str, from: u64, to: u64| {
        text.replace(
            &format!("{{\"as_int\": {from}}}"),
            &format!("{{\"as_int\": {to}}}"),
        )
    };
    let text = widen(text, HIDDEN, hidden);
    Ok(widen(&text, IN_FEATURES, in_features).into_bytes())
}
