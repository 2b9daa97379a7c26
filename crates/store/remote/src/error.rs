//! What can go wrong with the shared tier, and what to do about it.

use std::time::Duration;

use miette::Diagnostic;
use thiserror::Error;

type Source = Box<dyn std::error::Error + Send + Sync + 'static>;

#[derive(Debug, Error, Diagnostic)]
pub enum RemoteError {
    #[error("invalid remote cache location `{url}`: {reason}")]
    #[diagnostic(
        code(tpuc::remote::url),
        help("write it as s3://BUCKET or s3://BUCKET/PREFIX, e.g. s3://team-cache/tpuc")
    )]
    InvalidUrl { url: String, reason: String },

    #[error("invalid remote cache key `{key}`")]
    #[diagnostic(
        code(tpuc::remote::key),
        help("keys are `/`-separated segments without empty, `.` or `..` segments")
    )]
    InvalidKey { key: String },

    #[error("cannot configure the remote cache {url}")]
    #[diagnostic(
        code(tpuc::remote::config),
        help(
            "check the endpoint (--endpoint, AWS_ENDPOINT_URL) and the AWS_* environment variables"
        )
    )]
    Config {
        url: String,
        #[source]
        source: Source,
    },

    #[error("the bucket `{bucket}` of the remote cache {url} does not exist")]
    #[diagnostic(
        code(tpuc::remote::no_such_bucket),
        help("create the bucket, or fix the bucket name in the s3:// location and the endpoint")
    )]
    NoSuchBucket { url: String, bucket: String },

    #[error("the remote cache {url} is read-only: refused to write `{key}`")]
    #[diagnostic(
        code(tpuc::remote::read_only),
        help("writes are disabled for this job (--read-only); drop it for trusted jobs only")
    )]
    ReadOnly { url: String, key: String },

    #[error("access to `{key}` in the remote cache {url} was denied")]
    #[diagnostic(
        code(tpuc::remote::denied),
        help(
            "check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY and that they may read (and, unless \
             read-only, write) this bucket and prefix"
        )
    )]
    Denied {
        url: String,
        key: String,
        #[source]
        source: Source,
    },

    #[error("the remote cache {url} is unavailable ({operation} `{key}`)")]
    #[diagnostic(
        code(tpuc::remote::unavailable),
        help(
            "the server could not be reached or failed after bounded retries; the local cache \
             keeps working: check the endpoint and the network, or run without --remote"
        )
    )]
    Unavailable {
        url: String,
        operation: &'static str,
        key: String,
        #[source]
        source: Source,
    },

    #[error("the remote cache {url} did not finish {operation} `{key}` within {limit:?}")]
    #[diagnostic(
        code(tpuc::remote::timeout),
        help("the server is too slow or stuck; the local cache keeps working")
    )]
    TimedOut {
        url: String,
        operation: &'static str,
        key: String,
        limit: Duration,
    },

    #[error("the remote cache {url} is skipped for {seconds} s after a network fault")]
    #[diagnostic(
        code(tpuc::remote::resting),
        help("an earlier operation failed; the tier is tried again after a pause")
    )]
    Resting { url: String, seconds: u64 },

    #[error(
        "remote cache entry `{key}` in {url} fails verification: its SHA-256 is {actual}, expected {expected}"
    )]
    #[diagnostic(
        code(tpuc::remote::digest_mismatch),
        help(
            "the entry is corrupt or was tampered with; it is not used. Delete it from the bucket \
             so a trusted job can write it again"
        )
    )]
    DigestMismatch {
        url: String,
        key: String,
        expected: String,
        actual: String,
    },

    #[error(
        "remote cache entry `{key}` in {url} is larger than the {limit} bytes it may have: it \
         was refused after {received} bytes"
    )]
    #[diagnostic(
        code(tpuc::remote::too_large),
        help(
            "the entry is corrupt or was tampered with; it is not used. Delete it from the bucket \
             so a trusted job can write it again"
        )
    )]
    TooLarge {
        url: String,
        key: String,
        limit: u64,
        /// Bytes of the object read before the read stopped (0 if its declared length already
        /// exceeded the limit).
        received: u64,
    },
}

impl RemoteError {
    /// A fault of the network or the server (as opposed to the configuration or the data):
    /// the caller should warn and go on without the shared tier for this operation.
    pub fn is_network_fault(&self) -> bool {
        matches!(
            self,
            RemoteError::Unavailable { .. }
                | RemoteError::TimedOut { .. }
                | RemoteError::Resting { .. }
        )
    }
}
