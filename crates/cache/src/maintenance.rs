//! `tpuc cache` operations: list, verify, evict, remove, statistics.

use std::fs;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use serde::Serialize;

use crate::digest::Digest;
use crate::error::{CacheError, Result};
use crate::fsutil::{children, dir_size, remove_atomically, unix_seconds};
use crate::key::Key;
use crate::manifest::Manifest;
use crate::store::{Cache, MANIFEST_FILE, Mode, sharded, verify_entry};

/// One entry as `tpuc cache ls` shows it (without verifying the payload).
#[derive(Clone, Debug, Serialize)]
pub struct EntryInfo {
    pub key: Key,
    pub path: PathBuf,
    /// Payload plus manifest.
    pub size: u64,
    /// Seconds since the Unix epoch.
    pub last_used_unix: u64,
    /// The exact last use (the manifest's modification time).
    #[serde(skip)]
    pub last_used: SystemTime,
    /// `None` if the manifest does not parse.
    pub manifest: Option<Manifest>,
}

/// What `tpuc cache verify` found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct VerifyReport {
    pub ok: usize,
    /// Key (or path) and reason of every bad entry; each was quarantined unless read-only.
    pub corrupt: Vec<(String, String)>,
}

/// What `tpuc cache gc` removed.
#[derive(Clone, Debug, Default, Serialize)]
pub struct GcReport {
    pub removed_entries: usize,
    pub removed_bytes: u64,
    pub kept_entries: usize,
    pub kept_bytes: u64,
    /// Left-overs of interrupted writes and quarantined entries that were deleted.
    pub removed_debris: usize,
}

/// What `tpuc cache stats` prints.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Stats {
    pub root: PathBuf,
    pub entries: usize,
    pub entry_bytes: u64,
    pub modules: usize,
    pub module_bytes: u64,
    pub frontend_keys: usize,
    pub quarantined: usize,
    /// Temporary files and directories (writes in progress or interrupted).
    pub temporary: usize,
}

/// Temporary files older than this belong to a writer that died.
const STALE: Duration = Duration::from_secs(3600);

impl Cache {
    fn entry_dirs(&self) -> Vec<(Key, PathBuf)> {
        children(&self.entries_dir())
            .iter()
            .flat_map(|shard| children(shard))
            .filter_map(|path| {
                let key = path.file_name()?.to_str()?.parse().ok()?;
                Some((key, path))
            })
            .collect()
    }

    /// Every entry, most recently used first.
    pub fn list(&self) -> Vec<EntryInfo> {
        let mut entries: Vec<EntryInfo> = self
            .entry_dirs()
            .into_iter()
            .map(|(key, path)| {
                let manifest_path = path.join(MANIFEST_FILE);
                let last_used = fs::metadata(&manifest_path)
                    .and_then(|meta| meta.modified())
                    .unwrap_or(SystemTime::UNIX_EPOCH);
                let manifest = fs::read(&manifest_path)
                    .ok()
                    .and_then(|bytes| serde_json::from_slice(&bytes).ok());
                EntryInfo {
                    key,
                    size: dir_size(&path),
                    path,
                    last_used_unix: unix_seconds(last_used),
                    last_used,
                    manifest,
                }
            })
            .collect();
        entries.sort_by(|a, b| b.last_used.cmp(&a.last_used).then(a.key.cmp(&b.key)));
        entries
    }

    /// The entry `key` (unverified), or an error naming the key.
    pub fn show(&self, key: &Key) -> Result<EntryInfo> {
        self.list()
            .into_iter()
            .find(|entry| entry.key == *key)
            .ok_or_else(|| {
                CacheError::BadKey(format!("no entry {key} in {}", self.root().display()))
            })
    }

    /// Verifies every entry (manifest, key derivation, payload digest); bad ones are
    /// quarantined unless the cache is read-only.
    pub fn verify(&self) -> VerifyReport {
        let mut report = VerifyReport::default();
        for (key, path) in self.entry_dirs() {
            let checked = fs::read(path.join(MANIFEST_FILE))
                .map_err(|error| format!("cannot read the manifest: {error}"))
                .and_then(|bytes| verify_entry(&key, &path, &bytes));
            match checked {
                Ok(_) => report.ok += 1,
                Err(reason) => {
                    self.quarantine(&path);
                    report.corrupt.push((key.to_string(), reason));
                }
            }
        }
        report
    }

    /// Removes the entry `key`.
    pub fn remove(&self, key: &Key) -> Result<()> {
        if self.mode() == Mode::ReadOnly {
            return Err(CacheError::ReadOnly {
                path: self.root().to_owned(),
            });
        }
        let path = self.entry_path(key);
        if !path.exists() {
            return Err(CacheError::BadKey(format!(
                "no entry {key} in {}",
                self.root().display()
            )));
        }
        remove_atomically(&self.tmp_dir(), &path)
    }

    /// Evicts the least recently used entries and modules until everything fits in
    /// `max_bytes`; deletes quarantined entries and stale temporaries.
    pub fn gc(&self, max_bytes: u64) -> Result<GcReport> {
        if self.mode() == Mode::ReadOnly {
            return Err(CacheError::ReadOnly {
                path: self.root().to_owned(),
            });
        }
        let mut report = GcReport::default();
        let now = SystemTime::now();
        for path in children(&self.quarantine_dir()) {
            if remove_atomically(&self.tmp_dir(), &path).is_ok() {
                report.removed_debris += 1;
            }
        }
        for path in children(&self.tmp_dir()) {
            let stale = fs::symlink_metadata(&path)
                .and_then(|meta| meta.modified())
                .is_ok_and(|modified| now.duration_since(modified).unwrap_or_default() > STALE);
            let removed = if path.is_dir() {
                fs::remove_dir_all(&path)
            } else {
                fs::remove_file(&path)
            };
            if stale && removed.is_ok() {
                report.removed_debris += 1;
            }
        }

        // Entries and modules compete for the same space, oldest use first out.
        let mut items: Vec<(SystemTime, u64, PathBuf, bool)> = self
            .list()
            .into_iter()
            .map(|entry| (entry.last_used, entry.size, entry.path, true))
            .collect();
        for path in children(&self.modules_dir())
            .iter()
            .flat_map(|shard| children(shard))
        {
            if let Ok(meta) = fs::metadata(&path) {
                let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                items.push((used, meta.len(), path, false));
            }
        }
        items.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.2.cmp(&b.2)));
        let mut total: u64 = items.iter().map(|item| item.1).sum();
        for (_, size, path, is_entry) in items {
            if total <= max_bytes {
                if is_entry {
                    report.kept_entries += 1;
                    report.kept_bytes += size;
                }
                continue;
            }
            remove_atomically(&self.tmp_dir(), &path)?;
            total -= size;
            if is_entry {
                report.removed_entries += 1;
                report.removed_bytes += size;
            }
        }
        // Front-end records of evicted modules lead nowhere.
        for path in children(&self.frontend_dir())
            .iter()
            .flat_map(|shard| children(shard))
        {
            let module = fs::read(&path)
                .ok()
                .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
                .and_then(|record| record["module_sha256"].as_str()?.parse::<Digest>().ok());
            let present =
                module.is_some_and(|digest| sharded(&self.modules_dir(), &digest, "json").exists());
            if !present {
                remove_atomically(&self.tmp_dir(), &path)?;
            }
        }
        Ok(report)
    }

    pub fn stats(&self) -> Stats {
        let entries = self.list();
        let modules: Vec<PathBuf> = children(&self.modules_dir())
            .iter()
            .flat_map(|s| children(s))
            .collect();
        let frontend_keys = children(&self.frontend_dir())
            .iter()
            .map(|s| children(s).len())
            .sum();
        Stats {
            root: self.root().to_owned(),
            entries: entries.len(),
            entry_bytes: entries.iter().map(|e| e.size).sum(),
            modules: modules.len(),
            module_bytes: modules
                .iter()
                .filter_map(|p| fs::metadata(p).ok())
                .map(|m| m.len())
                .sum(),
            frontend_keys,
            quarantined: children(&self.quarantine_dir()).len(),
            temporary: children(&self.tmp_dir()).len(),
        }
    }
}

/// Parses `20G`, `512M`, `1.5G`, `1000` (bytes; K/M/G/T are powers of 1024).
pub fn parse_size(text: &str) -> Result<u64> {
    let trimmed = text.trim();
    let (number, scale) = match trimmed.char_indices().last() {
        Some((at, unit)) if unit.is_ascii_alphabetic() => {
            let scale: u64 = match unit.to_ascii_uppercase() {
                'K' => 1 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                'T' => 1 << 40,
                'B' => 1,
                _ => return Err(CacheError::BadSize(text.to_owned())),
            };
            (&trimmed[..at], scale)
        }
        _ => (trimmed, 1),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| CacheError::BadSize(text.to_owned()))?;
    if !value.is_finite() || value < 0.0 {
        return Err(CacheError::BadSize(text.to_owned()));
    }
    Ok((value * scale as f64) as u64)
}
