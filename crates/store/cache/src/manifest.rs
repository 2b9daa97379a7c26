//! What is stored next to each executable, and the lowered-module record of a front-end key.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tpuc_report::ExecutableReport;

use crate::digest::Digest;
use crate::key::{Key, KeyParts};
use crate::signing::{EntrySignature, SecretKey};

/// The `format` of every manifest this version writes.
pub const MANIFEST_FORMAT: &str = "tpuc-cache-entry/1";

/// An entry's `manifest.json`. Immutable once written; the entry's last use is the
/// modification time of this file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`MANIFEST_FORMAT`].
    pub format: String,
    pub key: Key,
    /// Everything the key was derived from.
    pub key_parts: KeyParts,
    /// The target as the user wrote it, e.g. `tpu:v5e:2x2`.
    pub target: String,
    /// The file name of the model it was compiled from (`gpt2.pt2`, `module.mlir`); absent in
    /// entries written before tpuc recorded it. Not part of the key: the first model compiled
    /// to an entry names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub plugin: PluginInfo,
    pub payload: Payload,
    /// How `main`'s arguments and results map to the program.
    pub signature: Signature,
    /// Symbol values the module was specialised to.
    pub dims: BTreeMap<String, i64>,
    /// Seconds the plugin took to compile.
    pub compile_seconds: f64,
    /// Seconds since the Unix epoch.
    pub created_unix: u64,
    /// What the plugin reported about the executable when it compiled it (memory statistics,
    /// cost analysis). Entries written before tpuc recorded it read as reporting nothing.
    #[serde(default)]
    pub report: ExecutableReport,
}

/// A manifest as it is stored and shared: its exact bytes (which the seal and a signature
/// cover), parsed, and the signature of an entry whose publisher signed it.
#[derive(Clone, Debug, PartialEq)]
pub struct Envelope {
    pub manifest: Manifest,
    pub bytes: Vec<u8>,
    pub signature: Option<EntrySignature>,
}

impl Envelope {
    /// `manifest` serialized as tpuc writes manifests, unsigned.
    pub fn new(manifest: Manifest) -> Envelope {
        let bytes = serde_json::to_vec_pretty(&manifest).expect("manifests serialize");
        Envelope {
            manifest,
            bytes,
            signature: None,
        }
    }

    /// `manifest` serialized and signed with `secret`.
    pub fn signed(manifest: Manifest, secret: &SecretKey) -> Envelope {
        let mut envelope = Envelope::new(manifest);
        envelope.signature = Some(secret.sign(&envelope.manifest.key, &envelope.bytes));
        envelope
    }

    /// The unsigned envelope of manifest `bytes` that belong to `key` (see
    /// [`Manifest::parse_for`]).
    pub fn parse_for(key: &Key, bytes: Vec<u8>) -> Result<Envelope, String> {
        Ok(Envelope {
            manifest: Manifest::parse_for(key, &bytes)?,
            bytes,
            signature: None,
        })
    }

    /// Attaches the signature file `signature` if it parses and is a valid signature of this
    /// manifest under its key, by any key (whether that one is trusted is the caller's
    /// question); the reason otherwise.
    pub fn set_signature(&mut self, signature: &[u8]) -> Result<(), String> {
        let signature = EntrySignature::parse(signature)?;
        signature.check(&self.manifest.key, &self.bytes)?;
        self.signature = Some(signature);
        Ok(())
    }
}

/// The plugin that compiled an entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PluginInfo {
    /// The library's file name (no directory).
    pub file: String,
    /// `stablehlo_current_version` and the other plugin attributes worth showing.
    pub attributes: BTreeMap<String, String>,
}

/// The executable file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Payload {
    /// File name inside the entry directory.
    pub file: String,
    pub sha256: Digest,
    pub size: u64,
}

/// The arguments and results of `main`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signature {
    pub arguments: Vec<Binding>,
    pub results: Vec<Binding>,
    /// The device mesh of a sharded module (`sdy.mesh`), axes major to minor; absent for a
    /// one-device module.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mesh: Option<Vec<MeshAxis>>,
    /// The number of ranks of a program with collectives (`mhlo.num_replicas`): replica `r`
    /// runs on device `r`; absent for other modules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<u64>,
}

/// One axis of a sharded module's device mesh.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeshAxis {
    pub name: String,
    pub size: u64,
}

/// One argument or result of `main`: what it is, its torch dtype and static shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binding {
    /// Arguments: `parameter`, `buffer`, `constant` (weights, bound by `name` from the
    /// archive) or `input` (user input `index`). Results: `output` (user output `index`),
    /// `buffer_mutation` or `input_mutation` (new value of `name`).
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// torch's dtype name, e.g. `float32`, `bfloat16`.
    pub dtype: String,
    pub shape: Vec<i64>,
    /// In a sharded module, per dimension the mesh axes it is split over (major to minor; `[]`
    /// replicated). Absent: the whole tensor on every device.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sharding: Option<Vec<Vec<String>>>,
}

/// The lowered module of a program: stored once, shared by every target's entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModuleRecord {
    /// The canonical module text (generic form, no locations); its SHA-256 names the record.
    pub text: String,
    pub signature: Signature,
    pub dims: BTreeMap<String, i64>,
}

impl Manifest {
    /// Parses an entry's manifest and checks that it belongs to `key`: a known format, the
    /// same key, key parts that derive to it, and a plain payload file name. The reason
    /// otherwise.
    pub fn parse_for(key: &Key, bytes: &[u8]) -> Result<Manifest, String> {
        let manifest: Manifest = serde_json::from_slice(bytes)
            .map_err(|error| format!("the manifest does not parse: {error}"))?;
        if manifest.format != MANIFEST_FORMAT {
            return Err(format!("unknown manifest format `{}`", manifest.format));
        }
        if manifest.key != *key || manifest.key_parts.key() != *key {
            return Err("the manifest does not belong to this key".to_owned());
        }
        let file = &manifest.payload.file;
        if file.is_empty() || file.contains('/') || file.starts_with('.') {
            return Err(format!("bad payload file name `{file}`"));
        }
        Ok(manifest)
    }

    /// Checks the payload's size and SHA-256 against the manifest; the reason otherwise.
    pub fn check_payload(&self, payload: &[u8]) -> Result<(), String> {
        if payload.len() as u64 != self.payload.size {
            return Err(format!(
                "the payload has {} bytes, the manifest says {}",
                payload.len(),
                self.payload.size
            ));
        }
        let digest = crate::digest::sha256(payload);
        if digest != self.payload.sha256 {
            return Err(format!(
                "the payload's SHA-256 is {digest}, the manifest says {}",
                self.payload.sha256
            ));
        }
        Ok(())
    }
}

impl Payload {
    /// The payload record of an executable's bytes, stored as `executable`.
    pub fn of(bytes: &[u8]) -> Payload {
        Payload {
            file: crate::store::PAYLOAD_FILE.to_owned(),
            sha256: crate::digest::sha256(bytes),
            size: bytes.len() as u64,
        }
    }
}
