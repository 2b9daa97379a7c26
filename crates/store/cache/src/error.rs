//! The cache's diagnostics.

use std::path::PathBuf;

/// What can go wrong using the cache.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[non_exhaustive]
pub enum CacheError {
    /// A file system operation on the cache failed.
    #[error("cache: cannot {action} {}: {source}", path.display())]
    #[diagnostic(
        code(tpuc::cache::io),
        help("check that the cache directory is writable and has free space, or pass --cache-dir")
    )]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// The cache directory, or its layout directory, is not a directory tpuc may use.
    #[error("cache: {} {reason}", path.display())]
    #[diagnostic(
        code(tpuc::cache::unusable),
        help("pass --cache-dir with a directory (or a path where one can be created)")
    )]
    Unusable { path: PathBuf, reason: &'static str },

    /// No cache directory could be chosen.
    #[error("no cache directory: none of TPUC_CACHE_DIR, XDG_CACHE_HOME and HOME is set")]
    #[diagnostic(
        code(tpuc::cache::no_dir),
        help("pass --cache-dir DIR or set TPUC_CACHE_DIR")
    )]
    NoDirectory,

    /// The cache was opened read-only and something had to be written.
    #[error("the cache at {} is read-only", path.display())]
    #[diagnostic(code(tpuc::cache::read_only))]
    ReadOnly { path: PathBuf },

    /// A key given by the user is malformed or names no entry.
    #[error("{0}")]
    #[diagnostic(
        code(tpuc::cache::key),
        help(
            "keys are the 64 hex digits `tpuc compile` and `tpuc cache ls` print; a unique prefix of 4 or more digits also names an entry"
        )
    )]
    BadKey(String),

    /// A key prefix given by the user that is too short or names several entries.
    #[error("{message}")]
    #[diagnostic(code(tpuc::cache::key_prefix))]
    KeyPrefix {
        message: String,
        #[help]
        help: String,
    },

    /// A signing or trusted key file that cannot be used.
    #[error("cannot use the key file {}: {reason}", path.display())]
    #[diagnostic(
        code(tpuc::cache::key_file),
        help(
            "make a key pair with `tpuc cache keygen FILE` (or `openssl genpkey -algorithm \
             ed25519`): --sign-key takes the secret key FILE, --trust-key the public key FILE.pub"
        )
    )]
    KeyFile { path: PathBuf, reason: String },

    /// A secret key file that others may read.
    #[error(
        "the secret key file {} may be read by others (mode {mode:04o}), so its key must be \
         assumed leaked",
        path.display()
    )]
    #[diagnostic(
        code(tpuc::cache::key_permissions),
        help("make it private (`chmod 600 FILE`); if others did read it, make a new key pair")
    )]
    KeyPermissions { path: PathBuf, mode: u32 },

    /// A size such as `20G` could not be parsed.
    #[error(
        "`{0}` is not a size: write bytes, or a number with K, M, G or T (powers of 1024), \
         optionally followed by B or iB: 20G, 20GB, 20GiB, 512M, 1.5T"
    )]
    #[diagnostic(code(tpuc::cache::size))]
    BadSize(String),
}

impl CacheError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> CacheError {
        let path = path.into();
        move |source| CacheError::Io {
            action,
            path,
            source,
        }
    }
}

pub type Result<T, E = CacheError> = std::result::Result<T, E>;
