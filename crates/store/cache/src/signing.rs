//! Signed entries: an Ed25519 signature over an entry's compile key and the exact bytes of its
//! manifest (which cover the payload by its digest), the key files it is made and checked with,
//! and the set of public keys a consumer trusts.

use std::fmt;
use std::io::Write;
use std::path::Path;

use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
use ed25519_dalek::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey};
use ed25519_dalek::{Signer, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};

use crate::digest::{Digest, hex, parse_hex, sha256};
use crate::error::{CacheError, Result};
use crate::key::Key;

/// The `format` of every signature file, and the first line of every signed message.
pub const SIGNATURE_FORMAT: &str = "tpuc-cache-signature/1";

/// The largest signature file a reader accepts; real ones have about 330 bytes.
pub const MAX_SIGNATURE_SIZE: u64 = 4096;

/// A publisher's secret key. Its bytes are never printed (`Debug` shows the key id).
pub struct SecretKey(SigningKey);

/// A public key, named by its [`PublicKey::id`].
#[derive(Clone, PartialEq, Eq)]
pub struct PublicKey(VerifyingKey);

/// The public keys whose signatures a consumer accepts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedKeys(Vec<PublicKey>);

/// An entry's signature file: who signed (the key id and the public key itself, so the file
/// can be checked without knowing the key) and the signature.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntrySignature {
    /// [`SIGNATURE_FORMAT`].
    pub format: String,
    /// SHA-256 of the 32 bytes of `public_key`.
    pub key_id: Digest,
    /// The Ed25519 public key, 64 lowercase hex digits.
    pub public_key: String,
    /// The Ed25519 signature of [`signed_message`], 128 lowercase hex digits.
    pub signature: String,
}

/// What is signed: the line `tpuc-cache-signature/1`, the key's 64 hex digits on a line, then
/// the exact bytes of the manifest. The key is bound explicitly, so a signature never vouches
/// for a manifest under another key, whatever the manifest says.
pub fn signed_message(key: &Key, manifest_bytes: &[u8]) -> Vec<u8> {
    let mut message = format!("{SIGNATURE_FORMAT}\n{key}\n").into_bytes();
    message.extend_from_slice(manifest_bytes);
    message
}

impl SecretKey {
    /// A new key from the operating system's random number generator.
    pub fn generate() -> Result<SecretKey> {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).map_err(|error| CacheError::KeyFile {
            path: "(random number generator)".into(),
            reason: error.to_string(),
        })?;
        Ok(SecretKey(SigningKey::from_bytes(&seed)))
    }

    /// Reads a PKCS#8 PEM file (`-----BEGIN PRIVATE KEY-----`, as `tpuc cache keygen` and
    /// `openssl genpkey -algorithm ed25519` write it). A file that others than its owner may
    /// read is refused: its key must be assumed leaked.
    pub fn read(path: &Path) -> Result<SecretKey> {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .map_err(|error| key_io_error(path, error))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            return Err(CacheError::KeyPermissions {
                path: path.to_owned(),
                mode: mode & 0o777,
            });
        }
        let text = read_key_file(path)?;
        SigningKey::from_pkcs8_pem(&text)
            .map(SecretKey)
            .map_err(|error| key_file_error(path, "an Ed25519 secret key (PKCS#8 PEM)", error))
    }

    /// Writes the key to a new file (never over an existing one) that only its owner may
    /// read and write (mode 0600, whatever the umask).
    pub fn write_new(&self, path: &Path) -> Result<()> {
        use std::os::unix::fs::OpenOptionsExt;
        // PKCS#8 v1 (the seed alone, RFC 8410), the form `openssl genpkey` writes and reads.
        let seed = ed25519_dalek::pkcs8::KeypairBytes {
            secret_key: self.0.to_bytes(),
            public_key: None,
        };
        let pem = seed
            .to_pkcs8_pem(LineEnding::LF)
            .expect("Ed25519 keys encode");
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
            .map_err(|error| key_io_error(path, error))?;
        file.write_all(pem.as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(|error| key_io_error(path, error))
    }

    pub fn public_key(&self) -> PublicKey {
        PublicKey(self.0.verifying_key())
    }

    /// Signs the entry `key` whose manifest has exactly `manifest_bytes`.
    pub fn sign(&self, key: &Key, manifest_bytes: &[u8]) -> EntrySignature {
        let public_key = self.public_key();
        let signature = self.0.sign(&signed_message(key, manifest_bytes));
        EntrySignature {
            format: SIGNATURE_FORMAT.to_owned(),
            key_id: public_key.id(),
            public_key: hex(public_key.0.as_bytes()),
            signature: hex(&signature.to_bytes()),
        }
    }
}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SecretKey(of {})", self.public_key().id())
    }
}

impl PublicKey {
    /// Reads an SPKI PEM file (`-----BEGIN PUBLIC KEY-----`, as `tpuc cache keygen` and
    /// `openssl pkey -pubout` write it).
    pub fn read(path: &Path) -> Result<PublicKey> {
        let text = read_key_file(path)?;
        VerifyingKey::from_public_key_pem(&text)
            .map(PublicKey)
            .map_err(|error| key_file_error(path, "an Ed25519 public key (SPKI PEM)", error))
    }

    /// The key's PEM text.
    pub fn to_pem(&self) -> String {
        self.0
            .to_public_key_pem(LineEnding::LF)
            .expect("Ed25519 keys encode")
    }

    /// The key id: the SHA-256 of the key's 32 bytes.
    pub fn id(&self) -> Digest {
        sha256(self.0.as_bytes())
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({})", self.id())
    }
}

impl TrustedKeys {
    pub fn new(keys: impl IntoIterator<Item = PublicKey>) -> TrustedKeys {
        let mut trusted = TrustedKeys::default();
        for key in keys {
            if !trusted.0.contains(&key) {
                trusted.0.push(key);
            }
        }
        trusted
    }

    /// Reads every public key file in `paths`.
    pub fn read<P: AsRef<Path>>(paths: impl IntoIterator<Item = P>) -> Result<TrustedKeys> {
        let keys = paths
            .into_iter()
            .map(|path| PublicKey::read(path.as_ref()))
            .collect::<Result<Vec<_>>>()?;
        Ok(TrustedKeys::new(keys))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether the entry `key` with manifest `manifest_bytes` is signed by one of these keys;
    /// the reason otherwise.
    pub fn check(
        &self,
        key: &Key,
        manifest_bytes: &[u8],
        signature: Option<&EntrySignature>,
    ) -> Result<(), String> {
        let signature = signature.ok_or("it is not signed")?;
        signature.check(key, manifest_bytes)?;
        if !self
            .0
            .iter()
            .any(|trusted| trusted.id() == signature.key_id)
        {
            return Err(format!(
                "it is signed by the key {}, which is not a trusted key",
                signature.key_id
            ));
        }
        Ok(())
    }
}

impl EntrySignature {
    /// Parses a signature file: a JSON object with exactly the four members, a known format,
    /// and a key id that is the public key's.
    pub fn parse(bytes: &[u8]) -> Result<EntrySignature, String> {
        let signature: EntrySignature = serde_json::from_slice(bytes)
            .map_err(|error| format!("the signature file does not parse: {error}"))?;
        if signature.format != SIGNATURE_FORMAT {
            return Err(format!("unknown signature format `{}`", signature.format));
        }
        let public_key = signature.verifying_key()?;
        if sha256(public_key.as_bytes()) != signature.key_id {
            return Err("the signature's key id is not its public key's".to_owned());
        }
        Ok(signature)
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).expect("signatures serialize");
        bytes.push(b'\n');
        bytes
    }

    /// Checks that this is a valid signature, by its own public key, of the entry `key` with
    /// manifest `manifest_bytes` (whether that key is trusted is [`TrustedKeys::check`]'s job).
    pub fn check(&self, key: &Key, manifest_bytes: &[u8]) -> Result<(), String> {
        let signature = parse_hex::<64>(&self.signature)
            .map(|bytes| ed25519_dalek::Signature::from_bytes(&bytes))
            .ok_or("the signature is not 128 lowercase hex digits")?;
        self.verifying_key()?
            .verify_strict(&signed_message(key, manifest_bytes), &signature)
            .map_err(|_| {
                format!(
                    "its signature by the key {} does not match the manifest",
                    self.key_id
                )
            })
    }

    fn verifying_key(&self) -> Result<VerifyingKey, String> {
        parse_hex::<32>(&self.public_key)
            .and_then(|bytes| VerifyingKey::from_bytes(&bytes).ok())
            .ok_or_else(|| "the signature's public key is not an Ed25519 key".to_owned())
    }
}

fn read_key_file(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|error| key_io_error(path, error))?;
    String::from_utf8(bytes).map_err(|_| CacheError::KeyFile {
        path: path.to_owned(),
        reason: "it is not a PEM text file".to_owned(),
    })
}

fn key_io_error(path: &Path, error: std::io::Error) -> CacheError {
    CacheError::KeyFile {
        path: path.to_owned(),
        reason: error.to_string(),
    }
}

fn key_file_error(path: &Path, what: &str, error: impl fmt::Display) -> CacheError {
    CacheError::KeyFile {
        path: path.to_owned(),
        reason: format!("it is not {what}: {error}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u8) -> Key {
        Key(Digest([n; 32]))
    }

    #[test]
    fn a_signature_holds_for_its_key_and_bytes_only() {
        let secret = SecretKey::generate().unwrap();
        let trusted = TrustedKeys::new([secret.public_key()]);
        let signature = secret.sign(&key(1), b"manifest");
        let parsed = EntrySignature::parse(&signature.to_bytes()).unwrap();
        assert_eq!(parsed, signature);
        assert_eq!(trusted.check(&key(1), b"manifest", Some(&parsed)), Ok(()));
        assert!(trusted.check(&key(2), b"manifest", Some(&parsed)).is_err());
        assert!(trusted.check(&key(1), b"manifesT", Some(&parsed)).is_err());
        assert_eq!(
            trusted.check(&key(1), b"manifest", None),
            Err("it is not signed".to_owned())
        );
        let stranger = SecretKey::generate().unwrap().sign(&key(1), b"manifest");
        let error = trusted
            .check(&key(1), b"manifest", Some(&stranger))
            .unwrap_err();
        assert!(error.contains("not a trusted key"), "{error}");
    }

    #[test]
    fn every_bit_flip_in_a_signature_file_is_detected() {
        let secret = SecretKey::generate().unwrap();
        let bytes = secret.sign(&key(3), b"manifest").to_bytes();
        for offset in 0..bytes.len() {
            for bit in 0..8 {
                let mut flipped = bytes.clone();
                flipped[offset] ^= 1 << bit;
                let accepted = EntrySignature::parse(&flipped)
                    .and_then(|signature| signature.check(&key(3), b"manifest"));
                assert!(accepted.is_err(), "byte {offset} bit {bit}");
            }
        }
    }

    #[test]
    fn key_files_round_trip_and_secret_ones_are_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("signing.key");
        let secret = SecretKey::generate().unwrap();
        secret.write_new(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(secret.write_new(&path).is_err(), "never overwritten");
        let read = SecretKey::read(&path).unwrap();
        assert_eq!(read.public_key(), secret.public_key());

        let public = dir.path().join("signing.pub");
        std::fs::write(&public, secret.public_key().to_pem()).unwrap();
        assert_eq!(PublicKey::read(&public).unwrap(), secret.public_key());
        assert!(matches!(
            PublicKey::read(&path),
            Err(CacheError::KeyFile { .. })
        ));

        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(matches!(
            SecretKey::read(&path),
            Err(CacheError::KeyPermissions { mode: 0o644, .. })
        ));
        assert!(!format!("{secret:?}").contains(&hex(secret.0.as_bytes())));
    }
}
