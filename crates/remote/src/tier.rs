//! The compile cache's shared tier: entries of the local cache, published to a bucket.
//!
//! Layout under the prefix (`docs/cache-format.md`):
//! - `v1/blobs/<sha256>`: an executable, named by the SHA-256 of its bytes;
//! - `v1/entries/<key>.json`: an entry's manifest, naming its blob by that digest.
//!
//! A writer creates the blob first and the manifest last, both create-if-absent, so a reader
//! that finds a manifest finds its blob, and nothing is ever overwritten. A reader trusts
//! nothing it downloads: the manifest must derive to the key it was asked for and the blob must
//! have the manifest's size and digest, or the entry is rejected.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use bytes::Bytes;
use tpuc_cache::{Key, Manifest};

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
        manifest: Box<Manifest>,
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

    /// The entry `key`, verified.
    pub fn fetch(&self, key: &Key) -> Result<Fetched, RemoteError> {
        self.guarded(|store| {
            let manifest_bytes = match store.get(&manifest_key(key), MAX_MANIFEST_SIZE) {
                Ok(Some(bytes)) => bytes,
                Ok(None) => return Ok(Fetched::Miss),
                Err(error @ RemoteError::TooLarge { .. }) => return Ok(rejected(&error)),
                Err(error) => return Err(error),
            };
            let manifest = match Manifest::parse_for(key, &manifest_bytes) {
                Ok(manifest) => manifest,
                Err(reason) => return Ok(Fetched::Rejected { reason }),
            };
            let blob = blob_key(&manifest);
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
                manifest: Box::new(manifest),
                payload,
            })
        })
    }

    /// Whether the tier has a manifest for `key` (not verified).
    pub fn contains(&self, key: &Key) -> Result<bool, RemoteError> {
        self.guarded(|store| Ok(store.head(&manifest_key(key))?.is_some()))
    }

    /// Publishes an entry: the executable, then its manifest, each create-if-absent. The
    /// manifest's outcome is returned: `AlreadyExists` if another writer published `key` first.
    pub fn publish(&self, manifest: &Manifest, payload: &[u8]) -> Result<PutOutcome, RemoteError> {
        self.guarded(|store| {
            store.put_if_absent(&blob_key(manifest), Bytes::copy_from_slice(payload))?;
            let text = serde_json::to_vec_pretty(manifest).expect("manifests serialize");
            store.put_if_absent(&manifest_key(&manifest.key), Bytes::from(text))
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

fn blob_key(manifest: &Manifest) -> String {
    format!("v1/blobs/{}", manifest.payload.sha256)
}
