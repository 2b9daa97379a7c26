//! `tpuc cache` operations: list, verify, evict, remove, statistics.

use std::fs;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use serde::Serialize;

use crate::digest::Digest;
use crate::error::{CacheError, Result};
use crate::fsutil::{dir_size, read_plain, remove_atomically, remove_tree, unix_seconds};
use crate::key::Key;
use crate::manifest::Manifest;
use crate::signing::TrustedKeys;
use crate::store::{Cache, MANIFEST_FILE, Mode, sharded, verify_entry};
use crate::walk::Walk;

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

/// What `tpuc cache ls` shows.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Listing {
    /// Most recently used first.
    pub entries: Vec<EntryInfo>,
    /// Symbolic links and other things in the cache that were not followed.
    pub warnings: Vec<String>,
}

/// What `tpuc cache verify` found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct VerifyReport {
    pub ok: usize,
    /// Key (or path) and reason of every bad entry; each was quarantined unless read-only.
    pub corrupt: Vec<(String, String)>,
    /// How many of the good entries carry a valid signature (by any key).
    pub signed: usize,
    /// When trusted keys were given: key and reason of every good entry that is not signed by
    /// one of them (unsigned, or signed by another key). Such entries are not corrupt.
    pub untrusted: Vec<(String, String)>,
    /// Symbolic links that were skipped (read-only) or removed, never followed.
    pub warnings: Vec<String>,
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
    /// Symbolic links that were removed (the links, never their targets).
    pub warnings: Vec<String>,
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
    /// Symbolic links that were not followed.
    pub warnings: Vec<String>,
}

/// Temporary files older than this belong to a writer that died.
const STALE: Duration = Duration::from_secs(3600);

impl Cache {
    /// Fails unless the cache directory is missing or a directory, and its layout directory
    /// missing or a real directory.
    pub(crate) fn check_layout(&self) -> Result<()> {
        let unusable = |reason| CacheError::Unusable {
            path: self.root().to_owned(),
            reason,
        };
        match fs::metadata(self.root()) {
            Ok(meta) if !meta.is_dir() => return Err(unusable("is not a directory")),
            _ => {}
        }
        match fs::symlink_metadata(self.layout()) {
            Ok(meta) if meta.file_type().is_symlink() => Err(CacheError::Unusable {
                path: self.layout(),
                reason: "is a symbolic link, which tpuc does not follow",
            }),
            Ok(meta) if !meta.is_dir() => Err(CacheError::Unusable {
                path: self.layout(),
                reason: "is not a directory",
            }),
            _ => Ok(()),
        }
    }

    pub(crate) fn entry_dirs(&self, walk: &mut Walk) -> Vec<(Key, PathBuf)> {
        walk.sharded(&self.entries_dir())
            .into_iter()
            .filter_map(|path| {
                let key = path.file_name()?.to_str()?.parse().ok()?;
                Some((key, path))
            })
            .collect()
    }

    fn entries(&self, walk: &mut Walk) -> Vec<EntryInfo> {
        let mut entries: Vec<EntryInfo> = self
            .entry_dirs(walk)
            .into_iter()
            .map(|(key, path)| {
                let manifest_path = path.join(MANIFEST_FILE);
                let last_used = fs::symlink_metadata(&manifest_path)
                    .and_then(|meta| meta.modified())
                    .unwrap_or(SystemTime::UNIX_EPOCH);
                let manifest = read_plain(&manifest_path)
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

    /// Every entry, most recently used first.
    pub fn list(&self) -> Result<Listing> {
        self.check_layout()?;
        let mut walk = Walk::new(false);
        let entries = self.entries(&mut walk);
        Ok(Listing {
            entries,
            warnings: walk.warnings,
        })
    }

    /// The entry `key` (unverified), or an error naming the key.
    pub fn show(&self, key: &Key) -> Result<EntryInfo> {
        self.list()?
            .entries
            .into_iter()
            .find(|entry| entry.key == *key)
            .ok_or_else(|| {
                CacheError::BadKey(format!("no entry {key} in {}", self.root().display()))
            })
    }

    /// Verifies every entry (seal, manifest, key derivation, payload digest, signature if
    /// signed); bad ones are quarantined unless the cache is read-only.
    pub fn verify(&self) -> Result<VerifyReport> {
        self.verify_with(None, None)
    }

    /// Like [`verify`](Self::verify), and lists the good entries that `trusted` did not sign
    /// in [`VerifyReport::untrusted`].
    pub fn verify_trusted(&self, trusted: &TrustedKeys) -> Result<VerifyReport> {
        self.verify_with(Some(trusted), None)
    }

    /// Like [`verify`](Self::verify) (with `trusted` if given), for the entry `key` only; an
    /// error if there is none.
    pub fn verify_one(&self, key: &Key, trusted: Option<&TrustedKeys>) -> Result<VerifyReport> {
        let report = self.verify_with(trusted, Some(key))?;
        if report.ok + report.corrupt.len() == 0 {
            return Err(CacheError::BadKey(format!(
                "no entry {key} in {}",
                self.root().display()
            )));
        }
        Ok(report)
    }

    fn verify_with(
        &self,
        trusted: Option<&TrustedKeys>,
        only: Option<&Key>,
    ) -> Result<VerifyReport> {
        self.check_layout()?;
        let writable = self.mode() == Mode::ReadWrite;
        let mut walk = Walk::new(writable);
        if writable {
            walk.guard(&self.quarantine_dir());
        }
        let mut report = VerifyReport::default();
        let entries = self.entry_dirs(&mut walk);
        let selected = entries
            .into_iter()
            .filter(|(key, _)| only.is_none_or(|only| only == key));
        for (key, path) in selected {
            match verify_entry(&key, &path) {
                Ok((envelope, _)) => {
                    report.ok += 1;
                    let signature = envelope.signature.as_ref();
                    report.signed += usize::from(signature.is_some());
                    if let Some(Err(reason)) =
                        trusted.map(|keys| keys.check(&key, &envelope.bytes, signature))
                    {
                        report.untrusted.push((key.to_string(), reason));
                    }
                }
                Err(reason) => {
                    self.quarantine(&path);
                    report.corrupt.push((key.to_string(), reason));
                }
            }
        }
        report.warnings = walk.warnings;
        Ok(report)
    }

    /// Removes the entry `key`.
    pub fn remove(&self, key: &Key) -> Result<()> {
        if self.mode() == Mode::ReadOnly {
            return Err(CacheError::ReadOnly {
                path: self.root().to_owned(),
            });
        }
        self.check_layout()?;
        let path = self.entry_path(key);
        if fs::symlink_metadata(&path).is_err() {
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
        self.check_layout()?;
        let mut walk = Walk::new(true);
        let mut report = GcReport {
            removed_debris: self.remove_debris(&mut walk),
            ..GcReport::default()
        };
        self.evict(&mut walk, max_bytes, &mut report)?;
        self.remove_stray_frontend_records(&mut walk)?;
        report.warnings = walk.warnings;
        Ok(report)
    }

    /// Deletes quarantined entries and stale temporaries; how many.
    fn remove_debris(&self, walk: &mut Walk) -> usize {
        let mut removed = 0;
        // Links in tmp/ go first, so that nothing is moved out of the cache through them.
        let tmp = walk.children(&self.tmp_dir());
        for path in walk.children(&self.quarantine_dir()) {
            if remove_atomically(&self.tmp_dir(), &path).is_ok() {
                removed += 1;
            }
        }
        let now = SystemTime::now();
        for path in tmp {
            let stale = fs::symlink_metadata(&path)
                .and_then(|meta| meta.modified())
                .is_ok_and(|modified| now.duration_since(modified).unwrap_or_default() > STALE);
            if stale && remove_tree(&path).is_ok() {
                removed += 1;
            }
        }
        removed
    }

    /// Entries and modules compete for the same space, oldest use first out.
    fn evict(&self, walk: &mut Walk, max_bytes: u64, report: &mut GcReport) -> Result<()> {
        let mut items: Vec<(SystemTime, u64, PathBuf, bool)> = self
            .entries(walk)
            .into_iter()
            .map(|entry| (entry.last_used, entry.size, entry.path, true))
            .collect();
        for path in walk.sharded(&self.modules_dir()) {
            if let Ok(meta) = fs::symlink_metadata(&path) {
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
        Ok(())
    }

    /// Front-end records of evicted modules lead nowhere.
    fn remove_stray_frontend_records(&self, walk: &mut Walk) -> Result<()> {
        for path in walk.sharded(&self.frontend_dir()) {
            let module = read_plain(&path)
                .ok()
                .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
                .and_then(|record| record["module_sha256"].as_str()?.parse::<Digest>().ok());
            let present = module.is_some_and(|digest| {
                fs::symlink_metadata(sharded(&self.modules_dir(), &digest, "json")).is_ok()
            });
            if !present {
                remove_atomically(&self.tmp_dir(), &path)?;
            }
        }
        Ok(())
    }

    pub fn stats(&self) -> Result<Stats> {
        self.check_layout()?;
        let mut walk = Walk::new(false);
        let entries = self.entries(&mut walk);
        let modules = walk.sharded(&self.modules_dir());
        let frontend_keys = walk.sharded(&self.frontend_dir()).len();
        Ok(Stats {
            root: self.root().to_owned(),
            entries: entries.len(),
            entry_bytes: entries.iter().map(|e| e.size).sum(),
            modules: modules.len(),
            module_bytes: modules
                .iter()
                .filter_map(|p| fs::symlink_metadata(p).ok())
                .map(|m| m.len())
                .sum(),
            frontend_keys,
            quarantined: walk.children(&self.quarantine_dir()).len(),
            temporary: walk.children(&self.tmp_dir()).len(),
            warnings: walk.warnings,
        })
    }
}

/// Parses `20G`, `20GB`, `20GiB`, `512M`, `1.5G`, `1000` (bytes): K, M, G and T, with or
/// without `B` or `iB` after them, are powers of 1024; the unit is case-insensitive.
pub fn parse_size(text: &str) -> Result<u64> {
    let bad = || CacheError::BadSize(text.to_owned());
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let unit = unit.to_ascii_uppercase();
    let prefix = unit
        .strip_suffix("IB")
        .or_else(|| unit.strip_suffix('B'))
        .unwrap_or(&unit);
    let scale: u64 = match prefix {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        _ => return Err(bad()),
    };
    if unit.ends_with("IB") && prefix.is_empty() {
        return Err(bad());
    }
    let value: f64 = number.trim().parse().map_err(|_| bad())?;
    if !value.is_finite() || value < 0.0 {
        return Err(bad());
    }
    Ok((value * scale as f64) as u64)
}
