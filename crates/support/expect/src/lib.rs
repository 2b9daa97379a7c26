//! How tpuc's tests state what they expect, and the one way to update it: run the test with
//! `BLESS=1` and review the diff (see `docs/testing.md`).
//!
//! - [`expect_file`]: a whole output compared with a file (a snapshot);
//! - [`filetest`]: `.mlir` files with `// RUN:`, `// CHECK:` and `// ERROR:` directives;
//! - [`tier`]: tests that need a PJRT plugin or the S3 test server, skipped (and listed) in
//!   the `TPUC_TEST_TIER=no-plugins` tier.
//!
//! Std only, for tests only.

mod bless;
mod diff;
mod file;
pub mod filetest;
pub mod tier;

pub use bless::blessing;
pub use diff::line_diff;
pub use file::expect_file;
