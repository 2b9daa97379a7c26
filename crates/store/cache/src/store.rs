//! The on-disk store: lookups that verify, inserts that are atomic, first writer wins.

use std::fs::{self, File};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::digest::{Digest, sha256};
use crate::error::{CacheError, Result};
use crate::fsutil::{
    create_dir, create_private_dir, read_plain, replace_file, sync_dir, unique_name, write_synced,
};
use crate::key::Key;
use crate::manifest::{Envelope, Manifest, ModuleRecord};
use crate::signing::MAX_SIGNATURE_SIZE;

/// The layout version: the directory under the root that holds everything.
pub(crate) const LAYOUT: &str = "v1";
pub(crate) const MANIFEST_FILE: &str = "manifest.json";
pub(crate) const PAYLOAD_FILE: &str = "executable";
/// The SHA-256 of the exact bytes of `manifest.json`, in `sha256sum` format.
pub(crate) const SEAL_FILE: &str = "manifest.sha256";
/// The publisher's signature of a signed entry (`docs/cache-format.md`, "Signed entries").
pub(crate) const SIGNATURE_FILE: &str = "manifest.sig";

/// Whether the cache may be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Lookups touch the last-use time, corrupt entries are quarantined, inserts store.
    ReadWrite,
    /// Nothing is ever written: for consumers that must not modify a shared cache.
    ReadOnly,
}

/// A cache rooted at a directory.
#[derive(Clone, Debug)]
pub struct Cache {
    root: PathBuf,
    mode: Mode,
}

/// A verified entry.
#[derive(Clone, Debug)]
pub struct Hit {
    /// The manifest, its bytes and, for a signed entry, its valid signature.
    pub envelope: Envelope,
    /// The serialized executable; its SHA-256 and size matched the manifest.
    pub payload: Vec<u8>,
    /// The entry's directory.
    pub path: PathBuf,
}

/// What a lookup found.
#[derive(Clone, Debug)]
pub enum Lookup {
    Hit(Box<Hit>),
    Miss,
    /// The entry failed verification; it was quarantined unless the cache is read-only.
    Corrupt {
        path: PathBuf,
        reason: String,
    },
}

/// What an insert did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stored {
    pub path: PathBuf,
    /// Another writer had stored the same key first; its entry was kept.
    pub already_present: bool,
}

/// A front-end key's record: which module the program lowers to.
#[derive(Serialize, Deserialize)]
struct FrontendRecord {
    format: String,
    module_sha256: Digest,
}

const FRONTEND_FORMAT: &str = "tpuc-frontend/1";

/// `$TPUC_CACHE_DIR`, else `$XDG_CACHE_HOME/tpuc`, else `$HOME/.cache/tpuc`.
pub fn default_dir() -> Result<PathBuf> {
    let var = |name| {
        std::env::var_os(name)
            .filter(|value| !value.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = var("TPUC_CACHE_DIR") {
        return Ok(dir);
    }
    let base = var("XDG_CACHE_HOME").or_else(|| var("HOME").map(|home| home.join(".cache")));
    base.map(|base| base.join("tpuc"))
        .ok_or(CacheError::NoDirectory)
}

impl Cache {
    /// A cache at `root` (created on the first write).
    pub fn open(root: impl Into<PathBuf>, mode: Mode) -> Cache {
        Cache {
            root: root.into(),
            mode,
        }
    }

    /// A cache at [`default_dir`]; read-only if `$TPUC_CACHE_READ_ONLY` is `1`.
    pub fn open_default(mode: Mode) -> Result<Cache> {
        Ok(Cache::open(default_dir()?, mode_from_env(mode)))
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    pub(crate) fn layout(&self) -> PathBuf {
        self.root.join(LAYOUT)
    }

    pub(crate) fn tmp_dir(&self) -> PathBuf {
        self.layout().join("tmp")
    }

    pub(crate) fn quarantine_dir(&self) -> PathBuf {
        self.layout().join("quarantine")
    }

    pub(crate) fn entries_dir(&self) -> PathBuf {
        self.layout().join("entries")
    }

    pub(crate) fn modules_dir(&self) -> PathBuf {
        self.layout().join("modules")
    }

    pub(crate) fn frontend_dir(&self) -> PathBuf {
        self.layout().join("frontend")
    }

    /// The directory of the entry `key`: `v1/entries/<first two hex digits>/<key>`.
    pub fn entry_path(&self, key: &Key) -> PathBuf {
        let hex = key.0.hex();
        self.entries_dir().join(&hex[..2]).join(hex)
    }

    pub(crate) fn writable(&self) -> Result<()> {
        match self.mode {
            Mode::ReadWrite => Ok(()),
            Mode::ReadOnly => Err(CacheError::ReadOnly {
                path: self.root.clone(),
            }),
        }
    }

    /// Finds and verifies the entry `key`: its manifest must match its seal, parse, name `key`
    /// and derive to it, and the payload must have the manifest's size and SHA-256.
    pub fn lookup(&self, key: &Key) -> Result<Lookup> {
        let path = self.entry_path(key);
        let manifest_path = path.join(MANIFEST_FILE);
        match fs::symlink_metadata(&manifest_path) {
            Ok(_) => {}
            Err(error) if error.kind() == ErrorKind::NotFound => return Ok(Lookup::Miss),
            Err(error) => return Err(CacheError::io("read", manifest_path)(error)),
        }
        match verify_entry(key, &path) {
            Ok((envelope, payload)) => {
                if self.mode == Mode::ReadWrite {
                    touch(&manifest_path);
                }
                Ok(Lookup::Hit(Box::new(Hit {
                    envelope,
                    payload,
                    path,
                })))
            }
            Err(reason) => Ok(Lookup::Corrupt {
                path: self.quarantine(&path),
                reason,
            }),
        }
    }

    /// Moves a bad entry out of the way (so it is recompiled), returning where it went.
    pub(crate) fn quarantine(&self, path: &Path) -> PathBuf {
        if self.mode == Mode::ReadOnly || create_private_dir(&self.quarantine_dir()).is_err() {
            return path.to_owned();
        }
        let name = path
            .file_name()
            .map_or_else(Default::default, |n| n.to_string_lossy().into_owned());
        let destination = self.quarantine_dir().join(unique_name(&name));
        match fs::rename(path, &destination) {
            Ok(()) => destination,
            Err(_) => path.to_owned(),
        }
    }

    /// Stores an unsigned entry (see [`insert_envelope`](Self::insert_envelope)).
    pub fn insert(&self, manifest: &Manifest, payload: &[u8]) -> Result<Stored> {
        self.insert_envelope(&Envelope::new(manifest.clone()), payload)
    }

    /// Stores an entry: the manifest's exact bytes, its signature if it has one, and the
    /// payload. They are written to a private temporary directory, flushed, and the directory
    /// is renamed into place in one step; if another writer got there first, its entry stays
    /// and this one is discarded.
    pub fn insert_envelope(&self, envelope: &Envelope, payload: &[u8]) -> Result<Stored> {
        self.writable()?;
        let key = envelope.manifest.key;
        let path = self.entry_path(&key);
        let tmp = self.tmp_dir();
        create_private_dir(&tmp)?;
        let staged = tmp.join(unique_name(&key.0.hex()));
        let result = self.stage_and_commit(&staged, &path, envelope, payload);
        if staged.exists() {
            let _ = fs::remove_dir_all(&staged);
        }
        result
    }

    fn stage_and_commit(
        &self,
        staged: &Path,
        path: &Path,
        envelope: &Envelope,
        payload: &[u8],
    ) -> Result<Stored> {
        fs::create_dir(staged).map_err(CacheError::io("create directory", staged))?;
        write_synced(&staged.join(&envelope.manifest.payload.file), payload)?;
        write_synced(&staged.join(MANIFEST_FILE), &envelope.bytes)?;
        write_synced(&staged.join(SEAL_FILE), &seal(&envelope.bytes))?;
        if let Some(signature) = &envelope.signature {
            write_synced(&staged.join(SIGNATURE_FILE), &signature.to_bytes())?;
        }
        sync_dir(staged)?;
        pause_before_commit();
        let parent = path.parent().expect("entries have a parent");
        create_dir(parent)?;
        match fs::rename(staged, path) {
            Ok(()) => {
                sync_dir(parent)?;
                Ok(Stored {
                    path: path.to_owned(),
                    already_present: false,
                })
            }
            Err(_) if path.join(MANIFEST_FILE).exists() => Ok(Stored {
                path: path.to_owned(),
                already_present: true,
            }),
            Err(error) => Err(CacheError::io("rename into place", path)(error)),
        }
    }

    /// The module a front-end key maps to, verified against its digest.
    pub fn frontend(&self, key: &Key) -> Result<Option<(Digest, ModuleRecord)>> {
        let Some(record) =
            self.read_json::<FrontendRecord>(&sharded(&self.frontend_dir(), &key.0, "json"))?
        else {
            return Ok(None);
        };
        if record.format != FRONTEND_FORMAT {
            return Ok(None);
        }
        Ok(self
            .module(&record.module_sha256)?
            .map(|module| (record.module_sha256, module)))
    }

    /// The module record named by the SHA-256 of its text.
    pub fn module(&self, digest: &Digest) -> Result<Option<ModuleRecord>> {
        let path = sharded(&self.modules_dir(), digest, "json");
        let record = self.read_json::<ModuleRecord>(&path)?;
        Ok(match record {
            Some(record) if sha256(record.text.as_bytes()) == *digest => {
                if self.mode == Mode::ReadWrite {
                    touch(&path);
                }
                Some(record)
            }
            Some(_) => {
                self.quarantine(&path);
                None
            }
            None => None,
        })
    }

    /// Stores a module record and maps the front-end key to it; returns the module's digest.
    pub fn insert_module(&self, frontend: &Key, module: &ModuleRecord) -> Result<Digest> {
        self.writable()?;
        let digest = sha256(module.text.as_bytes());
        let module_path = sharded(&self.modules_dir(), &digest, "json");
        if !module_path.exists() {
            let bytes = serde_json::to_vec(module).expect("modules serialize");
            replace_file(&self.tmp_dir(), &module_path, &bytes)?;
        }
        let record = FrontendRecord {
            format: FRONTEND_FORMAT.to_owned(),
            module_sha256: digest,
        };
        let bytes = serde_json::to_vec_pretty(&record).expect("records serialize");
        replace_file(
            &self.tmp_dir(),
            &sharded(&self.frontend_dir(), &frontend.0, "json"),
            &bytes,
        )?;
        Ok(digest)
    }

    /// A small record of the caller's own, `v1/memo/<name>.json` (e.g. a plugin file's digest
    /// by its size and modification time); `None` if absent or unreadable.
    pub fn memo<T: DeserializeOwned>(&self, name: &str) -> Option<T> {
        self.read_json(&self.layout().join("memo").join(format!("{name}.json")))
            .ok()
            .flatten()
    }

    pub fn insert_memo<T: Serialize>(&self, name: &str, value: &T) -> Result<()> {
        self.writable()?;
        let bytes = serde_json::to_vec_pretty(value).expect("memos serialize");
        let path = self.layout().join("memo").join(format!("{name}.json"));
        replace_file(&self.tmp_dir(), &path, &bytes)
    }

    /// Parses a JSON file; absent is `None`, unparsable is quarantined and `None`.
    fn read_json<T: DeserializeOwned>(&self, path: &Path) -> Result<Option<T>> {
        let bytes = match fs::read(path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(CacheError::io("read", path)(error)),
        };
        match serde_json::from_slice(&bytes) {
            Ok(value) => Ok(Some(value)),
            Err(_) => {
                self.quarantine(path);
                Ok(None)
            }
        }
    }
}

/// Test hook of debug builds only: `TPUC_TEST_PAUSE_BEFORE_COMMIT=MS` holds a staged entry
/// that long before renaming it into place, so a test can kill the writer mid-write.
fn pause_before_commit() {
    if cfg!(debug_assertions)
        && let Some(millis) = std::env::var("TPUC_TEST_PAUSE_BEFORE_COMMIT")
            .ok()
            .and_then(|text| text.parse().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(millis));
    }
}

/// `$TPUC_CACHE_READ_ONLY=1` turns any mode read-only.
pub(crate) fn mode_from_env(mode: Mode) -> Mode {
    match std::env::var("TPUC_CACHE_READ_ONLY").as_deref() {
        Ok("1") => Mode::ReadOnly,
        _ => mode,
    }
}

/// `dir/<first two hex digits>/<hex>.<extension>`.
pub(crate) fn sharded(dir: &Path, digest: &Digest, extension: &str) -> PathBuf {
    let hex = digest.hex();
    dir.join(&hex[..2]).join(format!("{hex}.{extension}"))
}

/// Marks a file as just used (its modification time is the last-use time); best effort.
fn touch(path: &Path) {
    if let Ok(file) = File::open(path) {
        let _ = file.set_modified(SystemTime::now());
    }
}

/// The seal of a manifest: `manifest.sha256`'s exact bytes.
fn seal(manifest_bytes: &[u8]) -> Vec<u8> {
    format!("{}  {MANIFEST_FILE}\n", sha256(manifest_bytes)).into_bytes()
}

/// Checks the entry at `path` against its key: the seal covers every byte of the manifest,
/// which covers every byte of the payload, and a signature file, if there is one, must be a
/// valid signature of the manifest under the key. The manifest and payload, or why it is bad.
pub(crate) fn verify_entry(key: &Key, path: &Path) -> Result<(Envelope, Vec<u8>), String> {
    let manifest_bytes = read_plain(&path.join(MANIFEST_FILE))?;
    if read_plain(&path.join(SEAL_FILE))? != seal(&manifest_bytes) {
        return Err(format!(
            "the manifest does not match its SHA-256 in {SEAL_FILE}"
        ));
    }
    let mut envelope = Envelope::parse_for(key, manifest_bytes)?;
    let signature_path = path.join(SIGNATURE_FILE);
    if let Ok(meta) = fs::symlink_metadata(&signature_path) {
        if meta.len() > MAX_SIGNATURE_SIZE {
            return Err(format!("{SIGNATURE_FILE} is too large to be a signature"));
        }
        let signature = read_plain(&signature_path)?;
        envelope
            .set_signature(&signature)
            .map_err(|reason| format!("{SIGNATURE_FILE}: {reason}"))?;
    }
    let payload = read_plain(&path.join(&envelope.manifest.payload.file))?;
    envelope.manifest.check_payload(&payload)?;
    Ok((envelope, payload))
}
