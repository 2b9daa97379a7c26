//! File system steps whose order makes writes atomic and durable.

use std::fs::{self, File};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::{CacheError, Result};

/// A name no other process or thread uses: `<stem>.<pid>.<nanos>.<counter>`.
pub fn unique_name(stem: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos());
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{stem}.{}.{nanos}.{count}", std::process::id())
}

/// Writes `bytes` to a new file `path` and flushes it to disk.
pub fn write_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut file = File::create_new(path).map_err(CacheError::io("create", path))?;
    file.write_all(bytes)
        .map_err(CacheError::io("write", path))?;
    file.sync_all().map_err(CacheError::io("flush", path))
}

/// Flushes a directory's entries (a rename into it) to disk.
pub fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|handle| handle.sync_all())
        .map_err(CacheError::io("flush", dir))
}

/// Replaces `path` by a file holding `bytes`, atomically, through a temporary file in `tmp`.
pub fn replace_file(tmp: &Path, path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    create_dir(dir)?;
    create_private_dir(tmp)?;
    let staged = tmp.join(unique_name("file"));
    let result = write_synced(&staged, bytes).and_then(|()| {
        fs::rename(&staged, path).map_err(CacheError::io("rename into place", path))
    });
    if result.is_err() {
        let _ = fs::remove_file(&staged);
    }
    result?;
    sync_dir(dir)
}

pub fn create_dir(dir: &Path) -> Result<()> {
    fs::create_dir_all(dir).map_err(CacheError::io("create directory", dir))
}

/// Creates the cache's own directory `dir`; a symbolic link there is removed first (never
/// what it points to), so nothing is ever written or deleted outside the cache through it.
pub fn create_private_dir(dir: &Path) -> Result<()> {
    if is_link(dir) {
        fs::remove_file(dir).map_err(CacheError::io("remove the symbolic link", dir))?;
    }
    create_dir(dir)
}

/// Whether `path` itself is a symbolic link.
pub fn is_link(path: &Path) -> bool {
    fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink())
}

/// The bytes of the regular file `path`, never through a symbolic link; the reason otherwise.
pub fn read_plain(path: &Path) -> Result<Vec<u8>, String> {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    if is_link(path) {
        return Err(format!("{name} is a symbolic link"));
    }
    fs::read(path).map_err(|error| format!("cannot read {name}: {error}"))
}

/// Removes a file, a symbolic link (not its target) or a directory tree.
pub fn remove_tree(path: &Path) -> std::io::Result<()> {
    if fs::symlink_metadata(path)?.is_dir() {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    }
}

pub fn unix_seconds(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

/// The total size of the files directly in `dir`.
pub fn dir_size(dir: &Path) -> u64 {
    fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.metadata().ok())
        .map(|meta| meta.len())
        .sum()
}

/// Removes `path` (a file or a directory tree) so that no reader sees it half-removed: it is
/// first renamed into `tmp`, then deleted there.
pub fn remove_atomically(tmp: &Path, path: &Path) -> Result<()> {
    create_private_dir(tmp)?;
    let doomed = tmp.join(unique_name("removed"));
    fs::rename(path, &doomed).map_err(CacheError::io("remove", path))?;
    remove_tree(&doomed).map_err(CacheError::io("remove", doomed))
}
