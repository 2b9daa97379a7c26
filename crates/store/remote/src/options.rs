//! How to reach the store and how long to wait for it.

use std::time::Duration;

/// Settings for [`crate::RemoteStore::open`]. Whatever is `None` comes from the standard AWS
/// environment variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`,
/// `AWS_REGION`, `AWS_ENDPOINT_URL`, ...).
#[derive(Debug, Clone, Default)]
pub struct RemoteOptions {
    /// An S3-compatible endpoint such as `http://127.0.0.1:9000`; plain `http://` is accepted
    /// only when spelled out here.
    pub endpoint: Option<String>,
    pub region: Option<String>,
    pub credentials: Option<Credentials>,
    /// Refuse every write (untrusted jobs such as pull requests from forks).
    pub read_only: bool,
    pub limits: Limits,
}

#[derive(Clone)]
pub struct Credentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: Option<String>,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("access_key_id", &self.access_key_id)
            .finish_non_exhaustive()
    }
}

/// Bounds on every operation, so an unreachable or stuck server costs a warning, never a hang.
///
/// A request has no time limit of its own: what bounds it is the deadline of its operation
/// ([`Limits::deadline_for`]), so a transfer that keeps moving is never cut while its deadline
/// allows it, however long that is, and one that stalls is cut after [`idle`](Self::idle).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Establishing a TCP connection.
    pub connect: Duration,
    /// Silence on an open connection (no byte received), waiting for an answer or within a body.
    pub idle: Duration,
    /// The deadline of one operation, all retries included, when it moves no payload (a
    /// lookup, a listing); a transfer of `n` bytes gets `n / min_rate` seconds more
    /// ([`Limits::deadline_for`]). Past it the operation is a network fault.
    pub overall: Duration,
    /// The slowest transfer rate, in bytes per second, that the deadline of a transfer
    /// allows for its bytes.
    pub min_rate: u64,
    /// Retries of a request after a connection error, a timeout or a 5xx answer.
    pub retries: usize,
    /// Wait before the first retry; doubled for each further one.
    pub backoff: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            connect: Duration::from_secs(5),
            idle: Duration::from_secs(30),
            overall: Duration::from_secs(60),
            min_rate: 1024 * 1024,
            retries: 3,
            backoff: Duration::from_millis(200),
        }
    }
}

impl Limits {
    /// The deadline of an operation that moves up to `bytes` bytes: [`overall`](Self::overall),
    /// plus the time those bytes take at [`min_rate`](Self::min_rate).
    pub fn deadline_for(&self, bytes: u64) -> Duration {
        self.overall
            .saturating_add(Duration::from_secs(bytes / self.min_rate.max(1)))
    }
}
