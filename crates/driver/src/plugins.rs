//! The PJRT plugins: where they are, what they are (remembered by file identity, so a warm
//! compile neither hashes nor loads them), and what `tpuc targets` says of them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use tpuc_cache::{Cache, Digest, PluginInfo, TargetId, sha256};
use tpuc_pjrt::{Plugin, PluginKind, Value};

use crate::error::{DriverError, Result};
use crate::target::Target;

/// Explicit plugin libraries; `None`: the environment, then the plugin directory.
#[derive(Clone, Debug, Default)]
pub struct PluginPaths {
    pub cpu: Option<PathBuf>,
    pub tpu: Option<PathBuf>,
}

impl PluginPaths {
    pub(crate) fn locate(&self, kind: PluginKind) -> Result<PathBuf> {
        let explicit = match kind {
            PluginKind::Cpu => self.cpu.as_deref(),
            PluginKind::Tpu => self.tpu.as_deref(),
        };
        tpuc_pjrt::locate(kind, explicit).map_err(DriverError::pjrt("finding the PJRT plugin"))
    }
}

/// What a plugin file is, remembered in the cache by the file's identity (path, size,
/// modification and change times, inode), so that a warm compile neither hashes nor loads it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PluginIdentity {
    stat: String,
    pub sha256: Digest,
    pub platform: String,
    pub platform_version: String,
    pub api_version: String,
    /// The plugin's attributes, as text.
    pub attributes: BTreeMap<String, String>,
}

impl PluginIdentity {
    pub(crate) fn target_id(&self, target: &Target) -> TargetId {
        TargetId {
            platform: self.platform.clone(),
            platform_version: self.platform_version.clone(),
            pjrt_api_version: self.api_version.clone(),
            plugin_sha256: self.sha256,
            topology: target.topology(),
        }
    }

    pub(crate) fn info(&self, path: &Path) -> PluginInfo {
        PluginInfo {
            file: path
                .file_name()
                .map_or_else(String::new, |name| name.to_string_lossy().into_owned()),
            attributes: self.attributes.clone(),
        }
    }
}

/// The identity of the plugin file at `path`: from the cache's memo if the file is unchanged,
/// else by hashing and loading it.
pub fn plugin_identity(
    path: &Path,
    target: &Target,
    cache: &Cache,
    warnings: &mut Vec<String>,
) -> Result<PluginIdentity> {
    let stat = file_stat(path)?;
    let memo_name = format!("plugin-{}", sha256(path.as_os_str().as_encoded_bytes()));
    let remembered = || {
        cache
            .memo::<PluginIdentity>(&memo_name)
            .filter(|memo| memo.stat == stat)
    };
    if let Some(memo) = remembered() {
        return Ok(memo);
    }
    // Concurrent workers of a cold prewarm would each hash and load the same plugin; one does,
    // the others wait and read its memo.
    let probing = probe_lock(&memo_name);
    let _probing = probing
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(memo) = remembered() {
        return Ok(memo);
    }
    let identity = probe_plugin(path, target, stat.clone())?;
    if let Err(error) = cache.insert_memo(&memo_name, &identity)
        && !matches!(error, tpuc_cache::CacheError::ReadOnly { .. })
    {
        warnings.push(format!("{error}; the plugin's digest is not remembered"));
    }
    Ok(identity)
}

/// The lock that serialises probes of one plugin file within this process.
fn probe_lock(memo_name: &str) -> Arc<Mutex<()>> {
    static LOCKS: Mutex<BTreeMap<String, Arc<Mutex<()>>>> = Mutex::new(BTreeMap::new());
    let mut locks = LOCKS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    Arc::clone(locks.entry(memo_name.to_owned()).or_default())
}

/// Hashes and loads the plugin to read its versions.
fn probe_plugin(path: &Path, target: &Target, stat: String) -> Result<PluginIdentity> {
    let bytes = std::fs::read(path).map_err(|source| DriverError::Write {
        path: path.to_owned(),
        source,
    })?;
    let sha256 = sha256(&bytes);
    drop(bytes);
    let stage = "loading the PJRT plugin";
    let plugin = Plugin::load(path).map_err(DriverError::pjrt(stage))?;
    let (platform, platform_version) = match target {
        Target::Tpu { topology } => {
            let topology = plugin
                .topology(topology)
                .map_err(DriverError::pjrt(stage))?;
            (
                topology.platform_name().map_err(DriverError::pjrt(stage))?,
                topology
                    .platform_version()
                    .map_err(DriverError::pjrt(stage))?,
            )
        }
        Target::Cpu { .. } => {
            let client = plugin.cpu_client(1).map_err(DriverError::pjrt(stage))?;
            (
                client.platform_name().map_err(DriverError::pjrt(stage))?,
                client
                    .platform_version()
                    .map_err(DriverError::pjrt(stage))?,
            )
        }
    };
    Ok(PluginIdentity {
        stat,
        sha256,
        platform,
        platform_version,
        api_version: plugin.api_version().to_string(),
        attributes: plugin_attributes(plugin),
    })
}

/// A plugin found on this machine, as `tpuc targets` lists it.
#[derive(Clone, Debug, Serialize)]
pub struct PluginDescription {
    pub path: PathBuf,
    pub platform_version: String,
    pub pjrt_api_version: String,
    /// The plugin's attributes as text (`stablehlo_current_version`, `xla_version`, ...).
    pub attributes: BTreeMap<String, String>,
}

/// Finds and loads the plugin that compiles for `target`'s platform and reads its versions.
pub fn describe_plugin(target: &Target, plugins: &PluginPaths) -> Result<PluginDescription> {
    let path = plugins.locate(target.plugin_kind())?;
    let stage = "loading the PJRT plugin";
    let plugin = Plugin::load(&path).map_err(DriverError::pjrt(stage))?;
    let platform_version = match target {
        Target::Tpu { topology } => plugin
            .topology(topology)
            .and_then(|topology| topology.platform_version()),
        Target::Cpu { devices } => plugin
            .cpu_client(*devices)
            .and_then(|client| client.platform_version()),
    }
    .map_err(DriverError::pjrt(stage))?;
    Ok(PluginDescription {
        path,
        platform_version,
        pjrt_api_version: plugin.api_version().to_string(),
        attributes: plugin_attributes(plugin),
    })
}

/// A plugin's attributes as text, by name.
fn plugin_attributes(plugin: &Plugin) -> BTreeMap<String, String> {
    plugin
        .attributes()
        .iter()
        .map(|(name, value)| {
            let text = match value {
                Value::String(text) => text.clone(),
                Value::Int64(number) => number.to_string(),
                Value::Int64List(list) => list
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join("."),
                Value::Float(number) => number.to_string(),
                Value::Bool(flag) => flag.to_string(),
            };
            (name.clone(), text)
        })
        .collect()
}

/// The file's identity: a change of content almost surely changes one of these.
fn file_stat(path: &Path) -> Result<String> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).map_err(|source| DriverError::Write {
        path: path.to_owned(),
        source,
    })?;
    Ok(format!(
        "{} size={} mtime={}.{} ctime={}.{} dev={} ino={}",
        path.display(),
        meta.len(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
        meta.dev(),
        meta.ino()
    ))
}
