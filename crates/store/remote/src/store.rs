//! The blocking handle on the shared tier.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use futures::TryStreamExt;
use object_store::aws::{AmazonS3, AmazonS3Builder, S3ConditionalPut};
use object_store::path::Path;
use object_store::{
    BackoffConfig, ClientOptions, ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload,
    RetryConfig,
};
use sha2::{Digest, Sha256};
use tokio::runtime::Runtime;

use crate::error::RemoteError;
use crate::options::{Limits, RemoteOptions};
use crate::url::{RemoteUrl, relative_path};

/// One object of the shared tier; `key` is relative to the store's prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteObject {
    pub key: String,
    pub size: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PutOutcome {
    Created,
    /// Another writer created the key first; entries are immutable, so its bytes stand.
    AlreadyExists,
}

/// A bucket and prefix on an S3-compatible store. Every call blocks the calling thread on the
/// store's own small runtime and is bounded by [`Limits`]; the handle is `Send + Sync`, so
/// concurrent workers can share one. Call it from plain threads, not from inside an async
/// runtime (its blocking calls would stall that runtime's worker).
pub struct RemoteStore {
    url: RemoteUrl,
    store: Arc<AmazonS3>,
    read_only: bool,
    limits: Limits,
    runtime: Runtime,
}

impl std::fmt::Debug for RemoteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteStore")
            .field("url", &self.url.to_string())
            .field("read_only", &self.read_only)
            .finish_non_exhaustive()
    }
}

impl RemoteStore {
    /// Configures the client; nothing is sent until the first operation.
    pub fn open(url: &str, options: &RemoteOptions) -> Result<Self, RemoteError> {
        let url = RemoteUrl::parse(url)?;
        let config_error = |source: Box<dyn std::error::Error + Send + Sync>| RemoteError::Config {
            url: url.to_string(),
            source,
        };
        let store = builder(&url, options)
            .build()
            .map_err(|e| config_error(Box::new(e)))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("tpuc-remote")
            .enable_all()
            .build()
            .map_err(|e| config_error(Box::new(e)))?;
        Ok(RemoteStore {
            url,
            store: Arc::new(store),
            read_only: options.read_only,
            limits: options.limits,
            runtime,
        })
    }

    pub fn url(&self) -> String {
        self.url.to_string()
    }

    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// The object's bytes, or `None` when the key is absent. An object of more than `max_size`
    /// bytes is refused with [`RemoteError::TooLarge`], as soon as that is known: from its
    /// declared length, or else once more than `max_size` bytes have arrived. The read must end
    /// within [`Limits::deadline_for`] `max_size` bytes.
    pub fn get(&self, key: &str, max_size: u64) -> Result<Option<Bytes>, RemoteError> {
        Ok(self.read(key, max_size)?.map(|body| body.bytes))
    }

    /// Like [`get`](Self::get), but a present object whose SHA-256 differs from
    /// `expected_sha256` is refused with [`RemoteError::DigestMismatch`]. The digest is computed
    /// as the bytes arrive.
    pub fn get_verified(
        &self,
        key: &str,
        expected_sha256: &[u8; 32],
        max_size: u64,
    ) -> Result<Option<Bytes>, RemoteError> {
        let Some(body) = self.read(key, max_size)? else {
            return Ok(None);
        };
        if body.sha256 != *expected_sha256 {
            return Err(RemoteError::DigestMismatch {
                url: self.url(),
                key: key.to_owned(),
                expected: hex(expected_sha256),
                actual: hex(&body.sha256),
            });
        }
        Ok(Some(body.bytes))
    }

    fn read(&self, key: &str, max_size: u64) -> Result<Option<Body>, RemoteError> {
        let path = self.path(key)?;
        let store = Arc::clone(&self.store);
        let deadline = self.limits.deadline_for(max_size);
        match self.run(
            "reading",
            key,
            deadline,
            read_bounded(store, path, max_size),
        )? {
            Read::Absent => Ok(None),
            Read::TooLarge { received } => Err(RemoteError::TooLarge {
                url: self.url(),
                key: key.to_owned(),
                limit: max_size,
                received,
            }),
            Read::Body(body) => Ok(Some(body)),
        }
    }

    pub fn head(&self, key: &str) -> Result<Option<RemoteObject>, RemoteError> {
        let path = self.path(key)?;
        let store = Arc::clone(&self.store);
        let deadline = self.limits.overall;
        let meta = self.run("looking up", key, deadline, async move {
            match store.head(&path).await {
                Ok(meta) => Ok(Some(meta)),
                Err(object_store::Error::NotFound { .. }) => Ok(None),
                Err(e) => Err(e),
            }
        })?;
        Ok(meta.map(|meta| RemoteObject {
            key: key.to_owned(),
            size: meta.size,
        }))
    }

    /// Creates `key` unless it exists (`If-None-Match: *`): the first writer wins and nobody
    /// overwrites an entry, so no lock is needed.
    pub fn put_if_absent(&self, key: &str, bytes: Bytes) -> Result<PutOutcome, RemoteError> {
        let path = self.path(key)?;
        if self.read_only {
            return Err(RemoteError::ReadOnly {
                url: self.url(),
                key: key.to_owned(),
            });
        }
        let store = Arc::clone(&self.store);
        let deadline = self.limits.deadline_for(bytes.len() as u64);
        self.run("writing", key, deadline, async move {
            let create = PutOptions::from(PutMode::Create);
            match store.put_opts(&path, PutPayload::from(bytes), create).await {
                Ok(_) => Ok(PutOutcome::Created),
                Err(object_store::Error::AlreadyExists { .. }) => Ok(PutOutcome::AlreadyExists),
                Err(e) => Err(e),
            }
        })
    }

    /// The objects whose key starts with the `/`-separated segments of `prefix` (all objects
    /// for `""`), sorted by key.
    pub fn list(&self, prefix: &str) -> Result<Vec<RemoteObject>, RemoteError> {
        let full = if prefix.is_empty() {
            self.url.prefix.clone()
        } else {
            self.path(prefix)?
        };
        let store = Arc::clone(&self.store);
        let metas = self.run("listing", prefix, self.limits.overall, async move {
            store.list(Some(&full)).try_collect::<Vec<_>>().await
        })?;
        let mut objects: Vec<RemoteObject> = metas
            .into_iter()
            .filter_map(|meta| {
                let parts = meta.location.prefix_match(&self.url.prefix)?;
                let key = parts
                    .map(|part| part.as_ref().to_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                Some(RemoteObject {
                    key,
                    size: meta.size,
                })
            })
            .collect();
        objects.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(objects)
    }

    /// One cheap request (a one-level listing of the prefix) that fails if the bucket does not
    /// exist, the credentials are refused or the server is unreachable: for a clear error when
    /// the tier is configured, rather than a miss on every read.
    pub fn check(&self) -> Result<(), RemoteError> {
        let prefix = self.url.prefix.clone();
        let store = Arc::clone(&self.store);
        let key = format!("{prefix}/");
        let listed = self.run("listing", &key, self.limits.overall, async move {
            store.list_with_delimiter(Some(&prefix)).await.map(drop)
        });
        match listed {
            Err(RemoteError::Unavailable { source, .. })
                if names_s3_code(&*source, "NoSuchBucket") =>
            {
                Err(RemoteError::NoSuchBucket {
                    url: self.url(),
                    bucket: self.url.bucket.clone(),
                })
            }
            other => other,
        }
    }

    fn path(&self, key: &str) -> Result<Path, RemoteError> {
        let invalid = || RemoteError::InvalidKey {
            key: key.to_owned(),
        };
        let relative = relative_path(key)
            .filter(|path| !key.is_empty() && path.parts_count() > 0)
            .ok_or_else(invalid)?;
        Ok(self.url.prefix.parts().chain(relative.parts()).collect())
    }

    /// Runs one operation to completion on the store's runtime; past `deadline` it is
    /// abandoned (its connection dropped) and reported as [`RemoteError::TimedOut`].
    fn run<T>(
        &self,
        operation: &'static str,
        key: &str,
        deadline: Duration,
        future: impl Future<Output = object_store::Result<T>> + Send + 'static,
    ) -> Result<T, RemoteError>
    where
        T: Send + 'static,
    {
        let outcome = self
            .runtime
            .block_on(async move { tokio::time::timeout(deadline, future).await });
        match outcome {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => Err(self.classify(operation, key, error)),
            Err(_elapsed) => Err(RemoteError::TimedOut {
                url: self.url(),
                operation,
                key: key.to_owned(),
                limit: deadline,
            }),
        }
    }

    fn classify(
        &self,
        operation: &'static str,
        key: &str,
        error: object_store::Error,
    ) -> RemoteError {
        let (url, key) = (self.url(), key.to_owned());
        match error {
            object_store::Error::PermissionDenied { source, .. }
            | object_store::Error::Unauthenticated { source, .. } => {
                RemoteError::Denied { url, key, source }
            }
            other => RemoteError::Unavailable {
                url,
                operation,
                key,
                source: Box::new(other),
            },
        }
    }
}

/// A complete object, and its SHA-256.
struct Body {
    bytes: Bytes,
    sha256: [u8; 32],
}

enum Read {
    Absent,
    /// Longer than allowed; `received` bytes had arrived when the read stopped.
    TooLarge {
        received: u64,
    },
    Body(Body),
}

/// Reads the object at `path` if it has at most `max_size` bytes, hashing the bytes as they
/// arrive. No more than `max_size` bytes are ever buffered: an object that declares more is
/// refused before its body is read, one that sends more is dropped at the chunk that crosses
/// the bound.
async fn read_bounded(
    store: Arc<AmazonS3>,
    path: Path,
    max_size: u64,
) -> object_store::Result<Read> {
    let found = match store.get(&path).await {
        Ok(found) => found,
        Err(object_store::Error::NotFound { .. }) => return Ok(Read::Absent),
        Err(error) => return Err(error),
    };
    if found.meta.size > max_size {
        return Ok(Read::TooLarge { received: 0 });
    }
    let mut bytes = BytesMut::with_capacity(usize::try_from(found.meta.size).unwrap_or(0));
    let mut hasher = Sha256::new();
    let mut received = 0u64;
    let mut stream = found.into_stream();
    while let Some(chunk) = stream.try_next().await? {
        received = received.saturating_add(chunk.len() as u64);
        if received > max_size {
            return Ok(Read::TooLarge { received });
        }
        hasher.update(&chunk);
        bytes.extend_from_slice(&chunk);
    }
    Ok(Read::Body(Body {
        bytes: bytes.freeze(),
        sha256: hasher.finalize().into(),
    }))
}

fn builder(url: &RemoteUrl, options: &RemoteOptions) -> AmazonS3Builder {
    let limits = &options.limits;
    // No per-request timeout: each operation's deadline bounds its requests (a fixed cap would
    // cut a large transfer that its deadline still allows, then retry it in vain).
    let client = ClientOptions::new()
        .with_connect_timeout(limits.connect)
        .with_read_timeout(limits.idle)
        .with_timeout_disabled();
    let retry = RetryConfig {
        max_retries: limits.retries,
        retry_timeout: limits.overall,
        backoff: BackoffConfig {
            init_backoff: limits.backoff,
            max_backoff: limits.backoff * 8,
            base: 2.0,
        },
    };
    let mut builder = AmazonS3Builder::from_env()
        .with_bucket_name(&url.bucket)
        .with_client_options(client)
        .with_retry(retry)
        .with_conditional_put(S3ConditionalPut::ETagMatch);
    if let Some(endpoint) = &options.endpoint {
        builder = builder
            .with_endpoint(endpoint)
            .with_allow_http(endpoint.starts_with("http://"));
    }
    if let Some(region) = &options.region {
        builder = builder.with_region(region);
    }
    if let Some(credentials) = &options.credentials {
        builder = builder
            .with_access_key_id(&credentials.access_key_id)
            .with_secret_access_key(&credentials.secret_access_key);
        if let Some(token) = &credentials.session_token {
            builder = builder.with_token(token);
        }
    }
    builder
}

/// Whether an S3 error code (`NoSuchBucket`, ...) appears in the server's answer somewhere in
/// the error chain; `object_store` reports it only in the text of its private HTTP error.
fn names_s3_code(error: &(dyn std::error::Error + 'static), code: &str) -> bool {
    let quoted = format!("<Code>{code}</Code>");
    std::iter::successors(Some(error), |e| e.source()).any(|e| e.to_string().contains(&quoted))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
