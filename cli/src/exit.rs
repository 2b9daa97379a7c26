//! The exit codes besides 0 (success), 1 (an error with its diagnostic) and 2 (a usage error).

/// Exit code when the run succeeded but an output differs from its `--expect` file.
pub const MISMATCH: u8 = 3;

/// Exit code of `tpuc cache verify` when it found corrupt entries.
pub const CACHE_CORRUPT: u8 = 4;

/// Exit code of `tpuc cache verify --trust-key` when an entry is not signed by a trusted key.
pub const CACHE_UNTRUSTED: u8 = 5;
