//! File system steps whose order makes writes atomic and durable.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
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
    create_dir(tmp)?;
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

/// `dir`'s children, sorted (missing directory: none).
pub fn children(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .collect();
    paths.sort();
    paths
}

/// Removes `path` (a file or a directory tree) so that no reader sees it half-removed: it is
/// first renamed into `tmp`, then deleted there.
pub fn remove_atomically(tmp: &Path, path: &Path) -> Result<()> {
    create_dir(tmp)?;
    let doomed = tmp.join(unique_name("removed"));
    fs::rename(path, &doomed).map_err(CacheError::io("remove", path))?;
    let removed = if doomed.is_dir() {
        fs::remove_dir_all(&doomed)
    } else {
        fs::remove_file(&doomed)
    };
    removed.map_err(CacheError::io("remove", doomed))
}
