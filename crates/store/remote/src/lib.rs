//! The shared remote tier of the compile cache: an S3-compatible bucket (AWS S3, MinIO, R2,
//! s3s-fs, ...) reached through `object_store`, behind a small blocking API, and the layout of
//! cache entries in it ([`SharedTier`]).
//!
//! Entries are immutable and content-addressed: writes are create-if-absent
//! ([`RemoteStore::put_if_absent`]), reads can be checked against the digest the caller expects
//! ([`RemoteStore::get_verified`]), every read is bounded in size (the caller says how large the
//! object may be, and a larger one is refused without being buffered) and every operation is
//! bounded in time ([`Limits`]) so a dead or stuck server degrades to a warning
//! ([`RemoteError::is_network_fault`]), never a hang.

mod error;
mod options;
mod store;
mod tier;
mod url;

pub use bytes::Bytes;
pub use error::RemoteError;
pub use options::{Credentials, Limits, RemoteOptions};
pub use store::{PutOutcome, RemoteObject, RemoteStore};
pub use tier::{COOLDOWN, Fetched, MAX_COOLDOWN, MAX_MANIFEST_SIZE, SharedTier};
pub use url::RemoteUrl;
