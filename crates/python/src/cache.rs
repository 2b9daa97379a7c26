//! `tpuc.Cache`: verified executables and manifests from the local compile cache, for runtimes.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use tpuc_cache::{Key, Lookup, TrustedKeys};

use crate::errors::{Kind, raise, to_py};
use crate::request::{open_local, trusted_keys};

/// The local compile cache.
#[pyclass(frozen, module = "tpuc._tpuc")]
pub struct Cache {
    cache: tpuc_cache::Cache,
    trusted: TrustedKeys,
}

impl Cache {
    /// The verified entry `key` (and trusted, when keys are), or `None` when there is none.
    fn hit(&self, key: &str) -> PyResult<Option<tpuc_cache::Hit>> {
        let key: Key = key
            .parse()
            .map_err(|error: tpuc_cache::CacheError| to_py(&error.into()))?;
        match self.cache.lookup(&key).map_err(|e| to_py(&e.into()))? {
            Lookup::Miss => Ok(None),
            Lookup::Corrupt { path, reason } => Err(raise(
                Kind::Cache,
                format!(
                    "the cache entry {key} is corrupt: {reason} (moved to {})",
                    path.display()
                ),
                Some("tpuc::cache::corrupt".to_owned()),
            )),
            Lookup::Hit(hit) => {
                if !self.trusted.is_empty() {
                    let envelope = &hit.envelope;
                    if let Err(reason) =
                        self.trusted
                            .check(&key, &envelope.bytes, envelope.signature.as_ref())
                    {
                        return Err(raise(
                            Kind::Untrusted,
                            format!("the cache entry {key} is not trusted: {reason}"),
                            Some("tpuc::cache::untrusted".to_owned()),
                        ));
                    }
                }
                Ok(Some(*hit))
            }
        }
    }
}

#[pymethods]
impl Cache {
    #[new]
    #[pyo3(signature = (path=None, *, trust_keys=None))]
    fn new(path: Option<PathBuf>, trust_keys: Option<Vec<PathBuf>>) -> PyResult<Cache> {
        let cache = open_local(path).map_err(|report| to_py(&report))?;
        let trusted = trusted_keys(trust_keys).map_err(|report| to_py(&report))?;
        Ok(Cache { cache, trusted })
    }

    /// The cache's directory.
    #[getter]
    fn path(&self) -> PathBuf {
        self.cache.root().to_owned()
    }

    /// The verified executable bytes of `key`, or `None`.
    fn get<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let hit = py.detach(|| self.hit(key))?;
        Ok(hit.map(|hit| PyBytes::new(py, &hit.payload)))
    }

    /// The verified manifest of `key` as JSON text, or `None`.
    fn manifest(&self, py: Python<'_>, key: &str) -> PyResult<Option<String>> {
        let hit = py.detach(|| self.hit(key))?;
        Ok(hit.map(|hit| String::from_utf8_lossy(&hit.envelope.bytes).into_owned()))
    }

    /// Every entry (as `tpuc cache ls --format json` lists them), as JSON text.
    fn entries(&self, py: Python<'_>) -> PyResult<String> {
        let listing = py
            .detach(|| self.cache.list())
            .map_err(|e| to_py(&e.into()))?;
        let rows: Vec<_> = listing
            .entries
            .iter()
            .map(|entry| {
                serde_json::json!({
                    "key": entry.key,
                    "target": entry.manifest.as_ref().map(|m| m.target.clone()),
                    "model": entry.manifest.as_ref().and_then(|m| m.model.clone()),
                    "created_unix": entry.manifest.as_ref().map(|m| m.created_unix),
                    "path": entry.path,
                    "size": entry.size,
                    "last_used_unix": entry.last_used_unix,
                })
            })
            .collect();
        Ok(serde_json::Value::Array(rows).to_string())
    }
}
