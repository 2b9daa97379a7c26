//! The content-addressed compile cache: keys, the on-disk store, and its maintenance.
//!
//! An entry is a serialized PJRT executable plus a [`Manifest`], stored under the SHA-256
//! [`Key`] of everything that changes compilation ([`KeyParts`]): the canonical module text,
//! the compile options, the target (plugin digest, platform and API versions, topology), tpuc's
//! version and the environment knobs of [`knobs::REGISTRY`]. Weight values never enter a key.
//! A second, front-end key ([`FrontendParts`]) maps a program to its lowered module, so a warm
//! compile neither lowers nor reads weights. `docs/cache-format.md` specifies the layout.
//!
//! ```no_run
//! use tpuc_cache::{Cache, Key};
//! let cache = Cache::open_default(tpuc_cache::Mode::ReadOnly)?;
//! let key: Key = "0f".repeat(32).parse()?;
//! if let tpuc_cache::Lookup::Hit(hit) = cache.lookup(&key)? {
//!     println!("{} bytes for {}", hit.payload.len(), hit.envelope.manifest.target);
//! }
//! # Ok::<(), tpuc_cache::CacheError>(())
//! ```

mod digest;
mod error;
mod fsutil;
mod key;
pub mod knobs;
mod maintenance;
mod manifest;
mod prefix;
mod shapes;
mod signing;
mod store;
mod walk;

pub use digest::{Digest, sha256};
pub use error::{CacheError, Result};
pub use key::{FRONTEND_ENCODING, FrontendParts, KEY_ENCODING, Key, KeyParts, TargetId};
pub use maintenance::{EntryInfo, GcReport, Listing, Stats, VerifyReport, parse_size};
pub use manifest::{
    Binding, Envelope, MANIFEST_FORMAT, Manifest, MeshAxis, ModuleRecord, Payload, PluginInfo,
    Signature,
};
pub use prefix::MIN_PREFIX;
pub use shapes::{
    Bucket, InputShape, NoBucket, Padding, SHAPE_FORMAT, ShapeRecord, smallest_bucket,
};
pub use signing::{
    EntrySignature, MAX_SIGNATURE_SIZE, PublicKey, SIGNATURE_FORMAT, SecretKey, TrustedKeys,
    signed_message,
};
pub use store::{Cache, Hit, Lookup, Mode, Stored, default_dir};

/// tpuc's version, part of every key.
pub const TPUC_VERSION: &str = env!("CARGO_PKG_VERSION");
