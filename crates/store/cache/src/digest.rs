//! SHA-256 digests and their lowercase hex form.

use std::fmt;
use std::str::FromStr;

use sha2::{Digest as _, Sha256};

/// A SHA-256 digest.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Digest(pub [u8; 32]);

/// The SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> Digest {
    Digest(Sha256::digest(bytes).into())
}

impl Digest {
    /// 64 lowercase hex digits.
    pub fn hex(&self) -> String {
        hex(&self.0)
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// `bytes` as lowercase hex digits.
pub(crate) fn hex(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(2 * bytes.len());
    for &byte in bytes {
        text.push(char::from(HEX[usize::from(byte >> 4)]));
        text.push(char::from(HEX[usize::from(byte & 15)]));
    }
    text
}

/// The `N` bytes spelled by exactly `2 * N` lowercase hex digits; `None` for anything else.
pub(crate) fn parse_hex<const N: usize>(text: &str) -> Option<[u8; N]> {
    let bytes = text.as_bytes();
    if bytes.len() != 2 * N {
        return None;
    }
    let nibble = |c: u8| HEX.iter().position(|&h| h == c).map(|n| n as u8);
    let mut parsed = [0; N];
    for (i, pair) in bytes.chunks(2).enumerate() {
        parsed[i] = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Some(parsed)
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.hex())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({})", self.hex())
    }
}

impl FromStr for Digest {
    type Err = String;

    /// 64 lowercase hex digits.
    fn from_str(text: &str) -> Result<Digest, String> {
        if text.len() != 64 {
            return Err(format!("`{text}` is not 64 hex digits"));
        }
        parse_hex(text)
            .map(Digest)
            .ok_or_else(|| format!("`{text}` is not lowercase hex"))
    }
}

impl serde::Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.hex())
    }
}

impl<'de> serde::Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Digest, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digest_round_trips() {
        let digest = sha256(b"abc");
        assert_eq!(
            digest.hex(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(digest.hex().parse::<Digest>(), Ok(digest));
        assert!("BA78".parse::<Digest>().is_err());
        assert!("g".repeat(64).parse::<Digest>().is_err());
    }
}
