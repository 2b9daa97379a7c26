//! The compile cache's shared tier: entries of the local cache, published to a bucket.
//!
//! Layout under the prefix (`docs/cache-format.md`):
//! - `v1/blobs/<sha256>`: an executable, named by the SHA-256 of its bytes;
//! - `v1/entries/<key>.json`: an entry's manifest, naming its blob by that digest;
//! - `v1/signatures/<key>/<sha256>.json`: a signed entry's signature, named by the SHA-256 of
//!   the manifest's bytes (so racing writers of one key never pair a manifest with another's
//!   signature).
//!
//! A writer creates the blob first, then the signature, and the manifest last, each
//! create-if-absent, so a reader that finds a manifest finds its blob and signature, and
//! nothing is ever overwritten. A reader trusts nothing it downloads: the manifest must derive
//! to the key it was asked for and the blob must have the manifest's size and digest, or the
//! entry is rejected; a reader with trusted keys also rejects an entry that one of them did
//! not sign.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use bytes::Bytes;
use tpuc_cache::{Envelope, Key, MAX_SIGNATURE_SIZE, TrustedKeys, sha256};

use crate::error::RemoteError;
use crate::store::{PutOutcome, RemoteStore};

/// How long the tier is left alone after a network fault before it is tried again, so that a
/// dead server costs one bounded wait per interval, not one per item. The pause doubles with
/// each consecutive fault, up to [`MAX_COOLDOWN`].
pub const COOLDOWN: Duration = Duration::from_secs(30);
pub const MAX_COOLDOWN: Duration = Duration::from_secs(600);

/// The largest manifest read from the tier; a larger object under an entry's name is rejected
/// before it is read. Real manifests are a few kilobytes.
pub const MAX_MANIFEST_SIZE: u64 = 1024 * 1024;

/// What [`SharedTier::fetch`] found.
#[derive(Debug)]
pub enum Fetched {
    Hit {
        /// The manifest, its exact bytes and its signature if it has a valid one.
        envelope: Box<Envelope>,
        payload: Bytes,
    },
    Miss,
    /// An entry is there but fails verification; it must not be used.
    Rejected {
        reason: String,
    },
}

/// The shared tier of the compile cache; `Send + Sync`, shared by concurrent workers.
#[derive(Debug)]
pub struct SharedTier {
    store: RemoteStore,
    health: Mutex<Health>,
    cooldown: Duration,
    /// When set, only entries signed by one of these keys are accepted.
    trusted: Option<TrustedKeys>,
}

/// Consecutive network faults, and until when the tier is skipped after the last one.
#[derive(Debug, Default)]
struct Health {
    faults: u32,
    resting_until: Option<Instant>,
}

impl SharedTier {
    pub fn new(store: RemoteStore) -> SharedTier {
        SharedTier::with_cooldown(store, COOLDOWN)
    }

    pub fn with_cooldown(store: RemoteStore, cooldown: Duration) -> SharedTier {
        SharedTier {
            store,
            health: Mutex::new(Health::default()),
            cooldown,
            trusted: None,
        }
    }

    /// Accepts only entries signed by one of `keys` (every entry, if `keys` is empty).
    pub fn trusting(self, keys: TrustedKeys) -> SharedTier {
        SharedTier {
            trusted: (!keys.is_empty()).then_some(keys),
            ..self
        }
    }

    pub fn url(&self) -> String {
        self.store.url()
    }

    pub fn is_read_only(&self) -> bool {
        self.store.is_read_only()
    }

    /// Checks that the bucket is reachable and usable (see [`RemoteStore::check`]).
    pub fn check(&self) -> Result<(), RemoteError> {
        self.guarded(|store| store.check())
    }

    /// The entry `key`, verified, and signed by a trusted key if the tier has any. A valid
    /// signature is kept with the entry even when no key is trusted, so that the entry stays
    /// verifiable wherever it is stored.
    pub fn fetch(&self, key: &Key) -> Result<Fetched, RemoteError> {
        self.guarded(|store| {
            let manifest_bytes = match store.get(&manifest_key(key), MAX_MANIFEST_SIZE) {
                Ok(Some(bytes)) => bytes,
                Ok(None) => return Ok(Fetched::Miss),
                Err(error @ RemoteError::TooLarge { .. }) => return Ok(rejected(&error)),
                Err(error) => return Err(error),
            };
            let envelope = match Envelope::parse_for(key, manifest_bytes.to_vec()) {
                Ok(envelope) => envelope,
                Err(reason) => return Ok(Fetched::Rejected { reason }),
            };
            let envelope = match self.attach_signature(store, envelope)? {
                Ok(envelope) => envelope,
                Err(reason) => return Ok(Fetched::Rejected { reason }),
            };
            let manifest = &envelope.manifest;
            let blob = blob_key(manifest);
            let payload = match store.get_verified(
                &blob,
                &manifest.payload.sha256.0,
                manifest.payload.size,
            ) {
                Ok(Some(payload)) => payload,
                Ok(None) => {
                    return Ok(Fetched::Rejected {
                        reason: format!("its executable `{blob}` is missing"),
                    });
                }
                Err(
                    error @ (RemoteError::DigestMismatch { .. } | RemoteError::TooLarge { .. }),
                ) => return Ok(rejected(&error)),
                Err(error) => return Err(error),
            };
            if let Err(reason) = manifest.check_payload(&payload) {
                return Ok(Fetched::Rejected { reason });
            }
            Ok(Fetched::Hit {
                envelope: Box::new(envelope),
                payload,
            })
        })
    }

    /// Reads the signature of `envelope`'s manifest, if it has one, and checks it: with
    /// trusted keys, an entry not validly signed by one of them is rejected (the reason);
    /// without, an invalid signature is dropped and the entry stays unsigned.
    fn attach_signature(
        &self,
        store: &RemoteStore,
        mut envelope: Envelope,
    ) -> Result<Result<Envelope, String>, RemoteError> {
        let name = signature_key(&envelope.manifest.key, &envelope.bytes);
        let signature = match store.get(&name, MAX_SIGNATURE_SIZE) {
            Ok(Some(bytes)) => Ok(bytes),
            Ok(None) => Err("it is not signed".to_owned()),
            Err(error @ RemoteError::TooLarge { .. }) => Err(error.to_string()),
            Err(error) => return Err(error),
        };
        let checked = signature.and_then(|bytes| envelope.set_signature(&bytes));
        let Some(trusted) = &self.trusted else {
            return Ok(Ok(envelope));
        };
        Ok(checked.and_then(|()| {
            trusted.check(
                &envelope.manifest.key,
                &envelope.bytes,
                envelope.signature.as_ref(),
            )?;
            Ok(envelope)
        }))
    }

    /// Whether the tier has a manifest for `key` (not verified).
    pub fn contains(&self, key: &Key) -> Result<bool, RemoteError> {
        self.guarded(|store| Ok(store.head(&manifest_key(key))?.is_some()))
    }

    /// Publishes an entry: the executable, then its signature if it is signed, then the
    /// manifest's exact bytes, each create-if-absent. The manifest's outcome is returned:
    /// `AlreadyExists` if another writer published `key` first.
    pub fn publish(&self, envelope: &Envelope, payload: &[u8]) -> Result<PutOutcome, RemoteError> {
        let key = &envelope.manifest.key;
        self.guarded(|store| {
            store.put_if_absent(
                &blob_key(&envelope.manifest),
                Bytes::copy_from_slice(payload),
            )?;
            if let Some(signature) = &envelope.signature {
                store.put_if_absent(
                    &signature_key(key, &envelope.bytes),
                    Bytes::from(signature.to_bytes()),
                )?;
            }
            store.put_if_absent(&manifest_key(key), Bytes::copy_from_slice(&envelope.bytes))
        })
    }

    /// Runs `operation` unless the tier is resting after a fault; a network fault starts a rest.
    fn guarded<T>(
        &self,
        operation: impl FnOnce(&RemoteStore) -> Result<T, RemoteError>,
    ) -> Result<T, RemoteError> {
        let resting_until = self.health().resting_until;
        if let Some(until) = resting_until
            && Instant::now() < until
        {
            return Err(RemoteError::Resting {
                url: self.url(),
                seconds: until.saturating_duration_since(Instant::now()).as_secs(),
            });
        }
        let result = operation(&self.store);
        let mut health = self.health();
        match &result {
            Err(error) if error.is_network_fault() => {
                let pause = self
                    .cooldown
                    .saturating_mul(1 << health.faults.min(16))
                    .min(MAX_COOLDOWN.max(self.cooldown));
                health.faults = health.faults.saturating_add(1);
                health.resting_until = Some(Instant::now() + pause);
            }
            Ok(_) => *health = Health::default(),
            Err(_) => {}
        }
        result
    }

    fn health(&self) -> std::sync::MutexGuard<'_, Health> {
        self.health
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

fn rejected(error: &RemoteError) -> Fetched {
    Fetched::Rejected {
        reason: error.to_string(),
    }
}

fn manifest_key(key: &Key) -> String {
    format!("v1/entries/{key}.json")
}

fn blob_key(manifest: &tpuc_cache::Manifest) -> String {
    format!("v1/blobs/{}", manifest.payload.sha256)
}

fn signature_key(key: &Key, manifest_bytes: &[u8]) -> String {
    format!("v1/signatures/{key}/{}.json", sha256(manifest_bytes))
}
