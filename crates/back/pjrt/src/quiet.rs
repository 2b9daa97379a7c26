//! Plugins log to the process's stderr from C++ (absl, TSL): libtpu's `hugepage_text.cc ...
//! RAW:` line while it loads, XLA's INFO lines (`cpu_device_count set via create_options`)
//! and absl's `WARNING: All log messages before absl::InitializeLog()`. They are noise to a
//! tpuc user and break progress bars, so by default the plugins' log level is raised to fatal
//! only and what a plugin writes while it loads is captured, and shown only if loading fails.
//! `TPUC_PLUGIN_LOGS=1` lets everything through; `-v` ([`show_plugin_logs`]) keeps the
//! plugins' own log level and prints the captured lines after the plugin loads.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicBool, Ordering};

/// XLA's and libtpu's minimum log level (0 info, 1 warning, 2 error, 3 fatal).
const LOG_LEVEL: &str = "TF_CPP_MIN_LOG_LEVEL";
/// `1`: show what the plugins log.
const SHOW_LOGS: &str = "TPUC_PLUGIN_LOGS";

/// Set by `-v`: keep the plugins' log level and print what they write while loading.
static VERBOSE: AtomicBool = AtomicBool::new(false);

/// `-v`: the plugins log at their own level, and what a plugin writes while it loads is
/// printed to stderr after it loads (under a line naming the plugin), not only on failure.
pub fn show_plugin_logs(verbose: bool) {
    VERBOSE.store(verbose, Ordering::Relaxed);
}

fn show_logs() -> bool {
    std::env::var_os(SHOW_LOGS).is_some_and(|v| v == "1")
}

/// Whether a plugin's captured load log is printed after it loads.
pub(crate) fn verbose() -> bool {
    VERBOSE.load(Ordering::Relaxed)
}

/// Raises the plugins' log level unless the user chose one or asked for the logs.
pub(crate) fn quiet_env() {
    if show_logs() || verbose() || std::env::var_os(LOG_LEVEL).is_some() {
        return;
    }
    // SAFETY: runs under the plugin registry lock, before the plugin (the reader) is loaded;
    // `Plugin::load` documents that no other thread may be reading the environment then.
    unsafe { std::env::set_var(LOG_LEVEL, "3") };
}

/// Runs `f` with the process's stderr sent to an unlinked temporary file; returns `f`'s
/// result and what was written meanwhile. Other threads' stderr output in that window is
/// captured too, so only short sections (loading a plugin) go through here.
pub(crate) fn capturing_stderr<R>(f: impl FnOnce() -> R) -> (R, String) {
    if show_logs() {
        return (f(), String::new());
    }
    let Some((mut file, saved)) = redirect() else {
        return (f(), String::new());
    };
    let result = f();
    // Restoring can only fail if fd 2 was closed under us; then there is nothing to restore.
    let _ = rustix::stdio::dup2_stderr(&saved);
    let mut text = String::new();
    if file.seek(SeekFrom::Start(0)).is_ok() {
        let _ = file.read_to_string(&mut text);
    }
    (result, text)
}

/// Points fd 2 at a fresh unlinked file; the file and a duplicate of the old fd 2.
fn redirect() -> Option<(File, std::os::fd::OwnedFd)> {
    let path = std::env::temp_dir().join(format!("tpuc-plugin-log-{}", std::process::id()));
    let file = File::options()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .ok()?;
    let _ = std::fs::remove_file(&path);
    let saved = rustix::io::dup(rustix::stdio::stderr()).ok()?;
    rustix::stdio::dup2_stderr(&file).ok()?;
    Some((file, saved))
}
