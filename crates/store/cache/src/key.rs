//! Keys: the canonical, versioned encodings that are hashed.
//!
//! An encoding is the header line, then one field per line, `NAME\tLENGTH\tVALUE\n`, in a fixed
//! order; LENGTH is VALUE's byte length in decimal, so no value can be mistaken for another
//! field. An unset environment variable is written `NAME\t-\t\n`.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::digest::{Digest, sha256};
use crate::error::CacheError;

/// The header of a compile key's encoding; bumped whenever the encoding changes.
pub const KEY_ENCODING: &str = "tpuc-cache-key/1";
/// The header of a front-end key's encoding.
pub const FRONTEND_ENCODING: &str = "tpuc-frontend-key/1";

/// The name of a cache entry: the SHA-256 of a [`KeyParts`] encoding.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Key(pub Digest);

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key({})", self.0)
    }
}

impl FromStr for Key {
    type Err = CacheError;
    fn from_str(text: &str) -> Result<Key, CacheError> {
        text.parse()
            .map(Key)
            .map_err(|_| CacheError::BadKey(format!("`{text}` is not a cache key")))
    }
}

/// The compilation target as it enters a key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetId {
    /// The PJRT platform name, `tpu` or `cpu`.
    pub platform: String,
    /// The PJRT platform version (the plugin's build description).
    pub platform_version: String,
    /// The PJRT C API version the plugin implements, `major.minor`.
    pub pjrt_api_version: String,
    /// SHA-256 of the plugin library file.
    pub plugin_sha256: Digest,
    /// The device topology: `v5e:2x2` for TPUs, `cpu:N` for N CPU devices.
    pub topology: String,
}

/// Everything a compile key is derived from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyParts {
    /// SHA-256 of the canonical module text (generic form, no locations).
    pub module_sha256: Digest,
    /// The serialized `xla.CompileOptionsProto`, hex.
    pub compile_options: String,
    pub target: TargetId,
    pub tpuc_version: String,
    /// Every hashed environment knob, set or not (`None`).
    pub env: BTreeMap<String, Option<String>>,
}

impl KeyParts {
    /// The canonical encoding that is hashed.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Encoder::new(KEY_ENCODING);
        out.field("module_sha256", Some(&self.module_sha256.hex()));
        out.field("compile_options", Some(&self.compile_options));
        out.field("platform", Some(&self.target.platform));
        out.field("platform_version", Some(&self.target.platform_version));
        out.field("pjrt_api_version", Some(&self.target.pjrt_api_version));
        out.field("plugin_sha256", Some(&self.target.plugin_sha256.hex()));
        out.field("topology", Some(&self.target.topology));
        out.field("tpuc_version", Some(&self.tpuc_version));
        for (name, value) in &self.env {
            out.field(&format!("env.{name}"), value.as_deref());
        }
        out.finish()
    }

    pub fn key(&self) -> Key {
        Key(sha256(&self.encode()))
    }

    /// The names of the parts that differ from `other`'s: why two compiles got different keys.
    pub fn differences(&self, other: &KeyParts) -> Vec<String> {
        let mut differ = Vec::new();
        let mut check = |name: &str, same: bool| {
            if !same {
                differ.push(name.to_owned());
            }
        };
        check("module_sha256", self.module_sha256 == other.module_sha256);
        check(
            "compile_options",
            self.compile_options == other.compile_options,
        );
        check("platform", self.target.platform == other.target.platform);
        check(
            "platform_version",
            self.target.platform_version == other.target.platform_version,
        );
        check(
            "pjrt_api_version",
            self.target.pjrt_api_version == other.target.pjrt_api_version,
        );
        check(
            "plugin_sha256",
            self.target.plugin_sha256 == other.target.plugin_sha256,
        );
        check("topology", self.target.topology == other.target.topology);
        check("tpuc_version", self.tpuc_version == other.tpuc_version);
        let names: std::collections::BTreeSet<&String> =
            self.env.keys().chain(other.env.keys()).collect();
        for name in names {
            check(
                &format!("env.{name}"),
                self.env.get(name) == other.env.get(name),
            );
        }
        differ
    }
}

/// What a front-end key is derived from: the program without weights or metadata.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrontendParts {
    /// SHA-256 of the program JSON with every `metadata` field removed, keys sorted.
    pub program_sha256: Digest,
    /// The lowering options that change the module, as canonical JSON.
    pub lower_options: String,
    /// SHA-256 over the weights' bytes, only when they are inlined into the module.
    pub inlined_weights_sha256: Option<Digest>,
    pub tpuc_version: String,
}

impl FrontendParts {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Encoder::new(FRONTEND_ENCODING);
        out.field("program_sha256", Some(&self.program_sha256.hex()));
        out.field("lower_options", Some(&self.lower_options));
        let weights = self.inlined_weights_sha256.map(|digest| digest.hex());
        out.field("inlined_weights_sha256", weights.as_deref());
        out.field("tpuc_version", Some(&self.tpuc_version));
        out.finish()
    }

    pub fn key(&self) -> Key {
        Key(sha256(&self.encode()))
    }
}

struct Encoder(Vec<u8>);

impl Encoder {
    fn new(header: &str) -> Encoder {
        Encoder(format!("{header}\n").into_bytes())
    }

    fn field(&mut self, name: &str, value: Option<&str>) {
        let text = match value {
            Some(value) => format!("{name}\t{}\t{value}\n", value.len()),
            None => format!("{name}\t-\t\n"),
        };
        self.0.extend_from_slice(text.as_bytes());
    }

    fn finish(self) -> Vec<u8> {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn parts() -> KeyParts {
        KeyParts {
            module_sha256: sha256(b"module"),
            compile_options: "1a0420012801".to_owned(),
            target: TargetId {
                platform: "tpu".to_owned(),
                platform_version: "libtpu 0.0.51".to_owned(),
                pjrt_api_version: "0.116".to_owned(),
                plugin_sha256: sha256(b"plugin"),
                topology: "v5e:2x2".to_owned(),
            },
            tpuc_version: "0.1.0".to_owned(),
            env: BTreeMap::from([
                ("LIBTPU_INIT_ARGS".to_owned(), None),
                ("XLA_FLAGS".to_owned(), Some("--xla_foo=1".to_owned())),
            ]),
        }
    }

    #[test]
    fn the_encoding_is_exactly_as_documented() {
        let text = String::from_utf8(parts().encode()).unwrap();
        let expected = format!(
            "tpuc-cache-key/1\n\
             module_sha256\t64\t{}\n\
             compile_options\t12\t1a0420012801\n\
             platform\t3\ttpu\n\
             platform_version\t13\tlibtpu 0.0.51\n\
             pjrt_api_version\t5\t0.116\n\
             plugin_sha256\t64\t{}\n\
             topology\t7\tv5e:2x2\n\
             tpuc_version\t5\t0.1.0\n\
             env.LIBTPU_INIT_ARGS\t-\t\n\
             env.XLA_FLAGS\t11\t--xla_foo=1\n",
            sha256(b"module"),
            sha256(b"plugin")
        );
        assert_eq!(text, expected);
        assert_eq!(parts().key().0, sha256(expected.as_bytes()));
    }

    #[test]
    fn every_part_changes_the_key_and_is_named_as_the_difference() {
        let base = parts();
        let mut variants: Vec<(&str, KeyParts)> = Vec::new();
        let mut vary = |name: &'static str, change: &dyn Fn(&mut KeyParts)| {
            let mut changed = parts();
            change(&mut changed);
            variants.push((name, changed));
        };
        vary("module_sha256", &|p| p.module_sha256 = sha256(b"other"));
        vary("compile_options", &|p| p.compile_options.push('0'));
        vary("platform", &|p| p.target.platform = "cpu".into());
        vary("platform_version", &|p| p.target.platform_version.push('x'));
        vary("pjrt_api_version", &|p| {
            p.target.pjrt_api_version = "0.115".into()
        });
        vary("plugin_sha256", &|p| p.target.plugin_sha256 = sha256(b"x"));
        vary("topology", &|p| p.target.topology = "v5e:2x4".into());
        vary("tpuc_version", &|p| p.tpuc_version = "0.2.0".into());
        vary("env.XLA_FLAGS", &|p| {
            p.env.insert("XLA_FLAGS".into(), None);
        });
        vary("env.LIBTPU_INIT_ARGS", &|p| {
            p.env.insert("LIBTPU_INIT_ARGS".into(), Some(String::new()));
        });
        for (name, changed) in variants {
            assert_ne!(changed.key(), base.key(), "{name}");
            assert_eq!(base.differences(&changed), [name]);
        }
    }

    #[test]
    fn frontend_keys_depend_on_inlined_weights_only_when_inlined() {
        let parts = FrontendParts {
            program_sha256: sha256(b"program"),
            lower_options: "{}".into(),
            inlined_weights_sha256: None,
            tpuc_version: "0.1.0".into(),
        };
        let mut inlined = parts.clone();
        inlined.inlined_weights_sha256 = Some(sha256(b"weights"));
        assert_ne!(parts.key(), inlined.key());
        assert!(
            String::from_utf8(parts.encode())
                .unwrap()
                .contains("inlined_weights_sha256\t-\t\n")
        );
    }
}
