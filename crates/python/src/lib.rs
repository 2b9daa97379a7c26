//! `tpuc._tpuc`: the native half of the `tpuc` Python module. It calls the compiler crates in
//! process (no subprocess): keys and compiles through `tpuc_driver`, the compile cache through
//! `tpuc_cache`, runs on XLA:CPU through PJRT. The GIL is released while they work.
//!
//! The Python layer (`python/tpuc/__init__.py`) converts arrays (numpy, `__dlpack__`) to the
//! `(dtype, shape, bytes)` triples this module takes and returns, parses the JSON texts of
//! manifests and reports into dicts, and defines the exception classes raised here.

mod cache;
mod errors;
mod load;
mod request;

use std::path::PathBuf;

use pyo3::prelude::*;

use crate::errors::to_py;
use crate::request::{Request, open_tiers};

/// The front-end key and compile key of `model` for `target`, as `tpuc key --format json`
/// prints them, as JSON text.
#[pyfunction]
#[pyo3(signature = (model, target, *, shard=None, optimizer=None, kv_dtype=None, dims=None,
                    passes=None, cache_dir=None))]
#[allow(
    clippy::too_many_arguments,
    reason = "the keyword arguments of tpuc.key"
)]
fn key(
    py: Python<'_>,
    model: PathBuf,
    target: String,
    shard: Option<String>,
    optimizer: Option<String>,
    kv_dtype: Option<String>,
    dims: Option<Vec<(String, i64)>>,
    passes: Option<String>,
    cache_dir: Option<PathBuf>,
) -> PyResult<String> {
    py.detach(|| {
        let request = Request::new(model, &target, shard, optimizer, kv_dtype, dims, passes)?;
        let (caches, mut warnings) = open_tiers(cache_dir, None)?;
        let keys = tpuc_driver::keys(
            &request.model,
            std::slice::from_ref(&request.target),
            &request.options,
            &tpuc_driver::PluginPaths::default(),
            &caches,
            &mut warnings,
        )?;
        let target = &keys.targets[0];
        let value = serde_json::json!({
            "frontend_key": keys.frontend_key.to_string(),
            "module_sha256": keys.module_sha256.to_string(),
            "target": target.target.to_string(),
            "key": target.key.to_string(),
            "cached": target.cached,
            "warnings": warnings,
        });
        Ok::<_, miette::Report>(value.to_string())
    })
    .map_err(|report| to_py(&report))
}

/// Compiles `model` for `target` through the cache tiers; the result as JSON text.
#[pyfunction]
#[pyo3(signature = (model, target, *, shard=None, optimizer=None, kv_dtype=None, dims=None,
                    passes=None, cache_dir=None, trust_keys=None))]
#[allow(
    clippy::too_many_arguments,
    reason = "the keyword arguments of tpuc.compile"
)]
fn compile(
    py: Python<'_>,
    model: PathBuf,
    target: String,
    shard: Option<String>,
    optimizer: Option<String>,
    kv_dtype: Option<String>,
    dims: Option<Vec<(String, i64)>>,
    passes: Option<String>,
    cache_dir: Option<PathBuf>,
    trust_keys: Option<Vec<PathBuf>>,
) -> PyResult<String> {
    py.detach(|| {
        let request = Request::new(model, &target, shard, optimizer, kv_dtype, dims, passes)?;
        let (caches, opening) = open_tiers(cache_dir, trust_keys)?;
        let report = tpuc_driver::compile(
            &request.model,
            std::slice::from_ref(&request.target),
            &request.options,
            &tpuc_driver::PluginPaths::default(),
            &caches,
        )?;
        let compiled = &report.compiled[0];
        let warnings: Vec<&String> = opening.iter().chain(&report.warnings).collect();
        let value = serde_json::json!({
            "key": compiled.key.to_string(),
            "origin": compiled.origin.name(),
            "target": compiled.target.to_string(),
            "frontend_key": report.frontend_key.to_string(),
            "module_sha256": report.module_sha256.to_string(),
            "memory": compiled.manifest.report.memory,
            "cost": compiled.manifest.report.cost,
            "entry": compiled.entry,
            "seconds": compiled.seconds,
            "size": compiled.executable.len(),
            "warnings": warnings,
        });
        Ok::<_, miette::Report>(value.to_string())
    })
    .map_err(|report| to_py(&report))
}

/// tpuc's version.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _tpuc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(key, m)?)?;
    m.add_function(wrap_pyfunction!(compile, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_class::<cache::Cache>()?;
    m.add_class::<load::Executable>()?;
    Ok(())
}
