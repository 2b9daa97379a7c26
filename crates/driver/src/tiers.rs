//! The compile cache as the pipeline sees it: the local store, and optionally a shared tier
//! behind it. Reads go local first, then shared (a verified shared entry is copied into the
//! local store); writes go local, then shared, signed if a signing key is given. The shared
//! tier never fails a compile: its faults and rejected entries become warnings.

use std::path::PathBuf;

use tpuc_cache::{Cache, Envelope, Key, Lookup, Manifest, SecretKey};
use tpuc_remote::{Fetched, RemoteError, SharedTier};

/// Where an executable came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The local cache.
    Local,
    /// The shared tier (and it is now in the local cache too, unless that refused it).
    Shared,
    /// The plugin, just now.
    Compiled,
}

impl Origin {
    pub fn name(self) -> &'static str {
        match self {
            Origin::Local => "local",
            Origin::Shared => "shared",
            Origin::Compiled => "compiled",
        }
    }
}

/// A cached executable.
#[derive(Debug)]
pub struct Found {
    pub manifest: Manifest,
    pub payload: Vec<u8>,
    /// The local entry's directory, if the executable is in the local cache.
    pub entry: Option<PathBuf>,
    pub origin: Origin,
}

/// The local cache, an optional shared tier, and the key that signs new entries, if any.
#[derive(Debug)]
pub struct CacheTiers {
    pub local: Cache,
    pub shared: Option<SharedTier>,
    /// Signs every entry this process compiles (stored with it locally and published with it).
    pub signer: Option<SecretKey>,
}

impl From<Cache> for CacheTiers {
    fn from(local: Cache) -> CacheTiers {
        CacheTiers {
            local,
            shared: None,
            signer: None,
        }
    }
}

impl CacheTiers {
    /// The local cache with `shared` behind it, checked once. A tier the network cannot reach
    /// now is kept (its faults are retried per operation); one that refuses access or has no
    /// bucket is dropped, the local cache working alone. Either is a warning; any other
    /// failure is the error.
    pub fn with_shared(
        local: Cache,
        shared: SharedTier,
        signer: Option<SecretKey>,
    ) -> Result<(CacheTiers, Vec<String>), RemoteError> {
        let mut warnings = Vec::new();
        let shared = match shared.check() {
            Ok(()) => Some(shared),
            Err(error) if error.is_network_fault() => {
                warnings.push(unusable(&error, "it is tried again later"));
                Some(shared)
            }
            Err(error @ (RemoteError::Denied { .. } | RemoteError::NoSuchBucket { .. })) => {
                warnings.push(unusable(&error, "using the local cache only"));
                None
            }
            Err(error) => return Err(error),
        };
        let tiers = CacheTiers {
            local,
            shared,
            signer,
        };
        Ok((tiers, warnings))
    }

    /// The entry `key`: local, else shared. A local hit that a writable shared tier lacks is
    /// published to it, so a prewarm fills the shared tier from an already warm machine.
    pub(crate) fn lookup(&self, key: &Key, warnings: &mut Vec<String>) -> Option<Found> {
        match self.local.lookup(key) {
            Ok(Lookup::Hit(hit)) => {
                self.share_if_absent(&hit.envelope, &hit.payload, warnings);
                return Some(Found {
                    manifest: hit.envelope.manifest,
                    payload: hit.payload,
                    entry: Some(hit.path),
                    origin: Origin::Local,
                });
            }
            Ok(Lookup::Corrupt { path, reason }) => warnings.push(format!(
                "the cache entry {key} is corrupt ({reason}); it was moved to {} and is \
                 compiled again",
                path.display()
            )),
            Err(error) => warnings.push(format!("{error}; compiling without the cache")),
            Ok(Lookup::Miss) => {}
        }
        let shared = self.shared.as_ref()?;
        match shared.fetch(key) {
            Ok(Fetched::Hit { envelope, payload }) => {
                let payload = payload.to_vec();
                let entry = self.store_locally(&envelope, &payload, warnings);
                Some(Found {
                    manifest: envelope.manifest,
                    payload,
                    entry,
                    origin: Origin::Shared,
                })
            }
            Ok(Fetched::Miss) => None,
            Ok(Fetched::Rejected { reason }) => {
                warnings.push(format!(
                    "the shared cache entry {key} in {} is not used: {reason}",
                    shared.url()
                ));
                None
            }
            Err(error) => {
                warn_shared(&error, "reading", warnings);
                None
            }
        }
    }

    /// Whether `key` is cached: a verified local entry, or a manifest in the shared tier (not
    /// fetched).
    pub(crate) fn contains(&self, key: &Key, warnings: &mut Vec<String>) -> bool {
        if matches!(self.local.lookup(key), Ok(Lookup::Hit(_))) {
            return true;
        }
        let Some(shared) = &self.shared else {
            return false;
        };
        shared.contains(key).unwrap_or_else(|error| {
            warn_shared(&error, "looking up", warnings);
            false
        })
    }

    /// Stores a new executable locally, then publishes it, signed if there is a signer; the
    /// local entry, if stored.
    pub(crate) fn store(
        &self,
        manifest: &Manifest,
        payload: &[u8],
        warnings: &mut Vec<String>,
    ) -> Option<PathBuf> {
        let envelope = match &self.signer {
            Some(secret) => Envelope::signed(manifest.clone(), secret),
            None => Envelope::new(manifest.clone()),
        };
        let entry = self.store_locally(&envelope, payload, warnings);
        if let Some(shared) = self.writable_shared() {
            publish(shared, &envelope, payload, warnings);
        }
        entry
    }

    fn store_locally(
        &self,
        envelope: &Envelope,
        payload: &[u8],
        warnings: &mut Vec<String>,
    ) -> Option<PathBuf> {
        match self.local.insert_envelope(envelope, payload) {
            Ok(stored) => Some(stored.path),
            Err(error) => {
                warnings.push(not_stored(&error));
                None
            }
        }
    }

    /// Publishes a local entry as it is stored (signed or not; it is never signed anew, since
    /// a signer vouches only for what it compiled itself).
    fn share_if_absent(&self, envelope: &Envelope, payload: &[u8], warnings: &mut Vec<String>) {
        let Some(shared) = self.writable_shared() else {
            return;
        };
        match shared.contains(&envelope.manifest.key) {
            Ok(true) => {}
            Ok(false) => publish(shared, envelope, payload, warnings),
            Err(error) => warn_shared(&error, "looking up", warnings),
        }
    }

    fn writable_shared(&self) -> Option<&SharedTier> {
        self.shared.as_ref().filter(|shared| !shared.is_read_only())
    }
}

fn publish(shared: &SharedTier, envelope: &Envelope, payload: &[u8], warnings: &mut Vec<String>) {
    // `AlreadyExists` is success too: another writer published the same entry first.
    if let Err(error) = shared.publish(envelope, payload) {
        warn_shared(&error, "writing", warnings);
    }
}

/// A warning for a failed shared-tier operation; none while the tier rests after a fault
/// that was already reported.
fn warn_shared(error: &RemoteError, doing: &str, warnings: &mut Vec<String>) {
    if matches!(error, RemoteError::Resting { .. }) {
        return;
    }
    let consequence = if error.is_network_fault() {
        "going on with the local cache only"
    } else {
        "the shared tier is skipped for this entry"
    };
    warnings.push(format!(
        "{} while {doing} the shared cache; {consequence}",
        error_chain(error)
    ));
}

/// An error and its sources, on one line.
pub fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    std::iter::successors(Some(error), |e| e.source())
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(": ")
}

pub(crate) fn not_stored(error: &tpuc_cache::CacheError) -> String {
    match error {
        tpuc_cache::CacheError::ReadOnly { .. } => {
            format!("{error}: the result is not stored")
        }
        _ => format!("{error}; the result is not stored in the cache"),
    }
}

/// The warning for a shared tier that cannot be used: what happened, and what to do.
fn unusable(error: &RemoteError, consequence: &str) -> String {
    let help =
        miette::Diagnostic::help(error).map_or_else(String::new, |help| format!(" ({help})"));
    format!(
        "the shared cache cannot be used now, {consequence}: {}",
        error_chain(error)
    ) + &help
}
