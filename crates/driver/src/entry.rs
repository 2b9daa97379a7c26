//! The cache entry of an executable the plugin just compiled: its manifest.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tpuc_cache::{KeyParts, Manifest, ModuleRecord, Payload};
use tpuc_pjrt::ExecutableReport;

use crate::plugins::PluginIdentity;
use crate::target::Target;

/// An executable the plugin just compiled: its serialized form, the compile call's time and
/// what the plugin reported about it.
pub(crate) struct FreshExecutable {
    pub bytes: Vec<u8>,
    pub compile_time: Duration,
    pub report: ExecutableReport,
}

/// What an executable was compiled from: the model's file name, the plugin and the module.
pub(crate) struct Source<'a> {
    pub model: Option<String>,
    pub plugin: &'a Path,
    pub module: &'a ModuleRecord,
}

/// The manifest of an executable the plugin just compiled.
pub(crate) fn new_manifest(
    parts: KeyParts,
    target: &Target,
    identity: &PluginIdentity,
    source: &Source<'_>,
    fresh: &FreshExecutable,
) -> Manifest {
    let Source {
        model,
        plugin,
        module,
    } = source;
    Manifest {
        format: tpuc_cache::MANIFEST_FORMAT.to_owned(),
        key: parts.key(),
        key_parts: parts,
        target: target.to_string(),
        model: model.clone(),
        plugin: identity.info(plugin),
        payload: Payload::of(&fresh.bytes),
        signature: module.signature.clone(),
        dims: module.dims.clone(),
        compile_seconds: fresh.compile_time.as_secs_f64(),
        created_unix: unix_now(),
        report: fresh.report.clone(),
    }
}

/// The plugin's report on an executable it just compiled. The executable is good even if the
/// plugin fails to describe it, so a failure is a warning and an empty report.
pub(crate) fn report_or_warn(
    report: tpuc_pjrt::Result<ExecutableReport>,
    target: &Target,
    warnings: &mut Vec<String>,
) -> ExecutableReport {
    report.unwrap_or_else(|error| {
        warnings.push(format!(
            "the plugin cannot report on the executable for {target}: {error}"
        ));
        ExecutableReport::default()
    })
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}
