//! Test tiers. By default every test runs, and a test whose plugin or server is missing fails
//! (CI runs everything; nothing is skipped silently). With `TPUC_TEST_TIER=no-plugins`, a test
//! that needs a PJRT plugin or the S3 test server is skipped instead: [`skip_without`] prints
//! `skipped: <test>: needs <what>` and appends that line to the file `TPUC_SKIP_LOG` names,
//! if set (`scripts/test --no-plugins` lists them at the end).

use std::fmt;
use std::io::Write;

/// The variable that names the tier.
pub const TIER_VAR: &str = "TPUC_TEST_TIER";
/// The tier without plugins and without the S3 test server.
pub const NO_PLUGINS: &str = "no-plugins";
/// The variable that names the file skipped tests are appended to.
pub const SKIP_LOG_VAR: &str = "TPUC_SKIP_LOG";

/// Something a test needs that the no-plugins tier does not have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// The XLA:CPU PJRT plugin.
    CpuPlugin,
    /// libtpu.
    TpuPlugin,
    /// Both plugins.
    Plugins,
    /// The S3-compatible test server (`scripts/s3-server.sh`).
    S3Server,
}

impl fmt::Display for Need {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Need::CpuPlugin => "the XLA:CPU plugin",
            Need::TpuPlugin => "libtpu",
            Need::Plugins => "the PJRT plugins",
            Need::S3Server => "the S3 test server",
        })
    }
}

/// Whether this run is the no-plugins tier.
pub fn no_plugins() -> bool {
    std::env::var(TIER_VAR).is_ok_and(|tier| tier == NO_PLUGINS)
}

/// Call first in a test that needs `needs`: true when the test must stop here because this
/// run is the no-plugins tier (the skip is printed and logged); false otherwise, and then a
/// missing plugin or server fails the test as usual. The test is named after the current
/// thread, which the test harness names after the test, prefixed with the test binary's name.
///
/// [`skip_without!`](crate::skip_without) is the usual way to call it:
///
/// ```no_run
/// # use tpuc_expect::tier::{Need, skip_without};
/// if skip_without(&[Need::CpuPlugin]) {
///     return;
/// }
/// ```
pub fn skip_without(needs: &[Need]) -> bool {
    if !no_plugins() {
        return false;
    }
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("an unnamed test");
    let needs: Vec<String> = needs.iter().map(Need::to_string).collect();
    let line = format!(
        "skipped: {}::{test}: needs {}",
        test_binary(),
        needs.join(" and ")
    );
    println!("{line}");
    if let Some(log) = std::env::var_os(SKIP_LOG_VAR).filter(|path| !path.is_empty()) {
        let appended = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            // One write per line: parallel tests append to the same file.
            .and_then(|mut file| file.write_all(format!("{line}\n").as_bytes()));
        if let Err(e) = appended {
            panic!(
                "cannot append to {} (${SKIP_LOG_VAR}): {e}",
                log.to_string_lossy()
            );
        }
    }
    true
}

/// The test target running, from the binary's name (`cpu-0123abcd` is `cpu`).
fn test_binary() -> String {
    let exe = std::env::current_exe().unwrap_or_default();
    let stem = exe.file_stem().unwrap_or_default().to_string_lossy();
    match stem.rsplit_once('-') {
        Some((name, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => name.to_owned(),
        _ => stem.into_owned(),
    }
}

/// Returns from the calling test when this run is the no-plugins tier; the arguments are the
/// [`Need`] variants the test needs: `tpuc_expect::skip_without!(CpuPlugin);`,
/// `tpuc_expect::skip_without!(Plugins, S3Server);`.
#[macro_export]
macro_rules! skip_without {
    ($($need:ident),+ $(,)?) => {
        if $crate::tier::skip_without(&[$($crate::tier::Need::$need),+]) {
            return;
        }
    };
}
