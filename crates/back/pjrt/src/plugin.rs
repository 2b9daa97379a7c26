//! Loading plugins: once per process per library, never unloaded.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use crate::api::{Api, borrowed_slice, borrowed_str, entry};
use crate::error::{ApiVersion, Error, Result};
use crate::ffi::{self, Args};
use crate::{Client, Topology};

/// A loaded PJRT plugin. Obtained with [`Plugin::load`]; lives until the process exits.
pub struct Plugin {
    path: PathBuf,
    api: Api,
    attributes: Vec<(String, Value)>,
}

/// A value of a plugin, client or topology attribute (`PJRT_NamedValue`).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    String(String),
    Int64(i64),
    Int64List(Vec<i64>),
    Float(f32),
    Bool(bool),
}

/// Environment libtpu needs before it is loaded on a machine without TPUs: no cloud metadata
/// queries (which otherwise stall for minutes), a nominal local host, and permission for
/// several processes to load it at once.
const LIBTPU_ENV: [(&str, &str); 4] = [
    ("TPU_SKIP_MDS_QUERY", "1"),
    ("TPU_ACCELERATOR_TYPE", "v5litepod-4"),
    ("TPU_WORKER_HOSTNAMES", "localhost"),
    ("ALLOW_MULTIPLE_LIBTPU_LOAD", "1"),
];

/// Every library this process has tried to load, by canonical path: the plugin, or why it
/// failed (a failed library stays loaded too, and is not initialised a second time).
type Registry = HashMap<PathBuf, Result<&'static Plugin, String>>;

static LOADED: OnceLock<Mutex<Registry>> = OnceLock::new();

impl Plugin {
    /// Loads the plugin at `path` (once per process: later calls with the same file return the
    /// same plugin) and initialises it.
    ///
    /// For a library named `libtpu*`, `TPU_SKIP_MDS_QUERY=1`, `TPU_ACCELERATOR_TYPE=v5litepod-4`,
    /// `TPU_WORKER_HOSTNAMES=localhost` and `ALLOW_MULTIPLE_LIBTPU_LOAD=1` are set first unless
    /// the user set them. Setting the environment is only sound while no other thread reads it
    /// through C, so load libtpu before starting such threads, or set the variables yourself.
    pub fn load(path: impl AsRef<Path>) -> Result<&'static Plugin> {
        let path = path.as_ref();
        let canonical = path.canonicalize().map_err(|error| Error::BadPlugin {
            path: path.to_owned(),
            reason: error.to_string(),
        })?;
        let mut loaded = LOADED
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        match loaded.get(&canonical) {
            Some(Ok(plugin)) => return Ok(plugin),
            Some(Err(reason)) => {
                return Err(Error::BadPlugin {
                    path: canonical,
                    reason: format!("it failed to load earlier in this process: {reason}"),
                });
            }
            None => {}
        }
        crate::xla_flags::check(&canonical)?;
        crate::quiet::quiet_env();
        let (opened, log) = crate::quiet::capturing_stderr(|| Self::open(canonical.clone()));
        // On failure the log is part of the error; with `-v` it is shown anyway.
        if opened.is_ok() && crate::quiet::verbose() && !log.is_empty() {
            eprintln!("plugin log of {} while loading:", canonical.display());
            eprint!("{log}");
        }
        let opened = opened.map_err(|error| with_log(error, &log));
        match opened {
            Ok(plugin) => {
                let plugin: &'static Plugin = Box::leak(Box::new(plugin));
                loaded.insert(canonical, Ok(plugin));
                Ok(plugin)
            }
            // The loader refused the file, so none of it ran: a later attempt is harmless.
            Err(error @ Error::Load { .. }) => Err(error),
            Err(error) => {
                loaded.insert(canonical, Err(error.to_string()));
                Err(error)
            }
        }
    }

    fn open(path: PathBuf) -> Result<Plugin> {
        let is_libtpu = path
            .file_name()
            .is_some_and(|name| name.to_string_lossy().starts_with("libtpu"));
        if is_libtpu {
            set_libtpu_env();
        }
        let bad = |reason: String| Error::BadPlugin {
            path: path.clone(),
            reason,
        };
        // SAFETY: loading runs the library's initialisers; a PJRT plugin's are expected to be
        // safe to run once.
        let library = unsafe { libloading::Library::new(&path) }.map_err(|source| Error::Load {
            path: path.clone(),
            source,
        })?;
        // Never unloaded, even if initialisation fails below: the plugin may have started
        // threads or registered callbacks that outlive a failed call.
        let library: &'static libloading::Library = Box::leak(Box::new(library));
        // SAFETY: `GetPjrtApi` is declared by the PJRT C API with this signature.
        let get_api = unsafe { library.get::<ffi::GetPjrtApi>(b"GetPjrtApi\0") }
            .map_err(|error| bad(format!("no GetPjrtApi symbol ({error})")))?;
        // SAFETY: `GetPjrtApi` takes no arguments and returns a pointer to a static table.
        let table = unsafe { get_api() };
        if table.is_null() {
            return Err(bad("GetPjrtApi returned null".to_owned()));
        }
        // SAFETY: `table` comes from `GetPjrtApi` and the library is never unloaded.
        let api = unsafe { Api::new(table) }.map_err(&bad)?;
        let version = api.version();
        if version.major != ffi::API_MAJOR || version.minor < ffi::API_MINOR_MIN {
            return Err(bad(format!(
                "it implements PJRT C API {version}; tpuc needs {}.{} or newer within major \
                 version {}",
                ffi::API_MAJOR,
                ffi::API_MINOR_MIN,
                ffi::API_MAJOR
            )));
        }
        let initialize = entry!(api, PJRT_Plugin_Initialize)?;
        let mut args = ffi::PJRT_Plugin_Initialize_Args::new();
        // SAFETY: called once per library: `load` holds the registry lock and records every
        // path that got this far, successful or not, so it never gets here twice.
        let error = unsafe { (initialize.f)(&mut args) };
        api.check(initialize.name, error)?;
        let attributes = read_attributes(&api)?;
        Ok(Plugin {
            path,
            api,
            attributes,
        })
    }

    /// The canonical path the plugin was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The PJRT C API version the plugin implements.
    pub fn api_version(&self) -> ApiVersion {
        self.api.version()
    }

    /// `PJRT_Plugin_Attributes`, e.g. `xla_version`, `stablehlo_current_version`,
    /// `stablehlo_minimum_version`.
    pub fn attributes(&self) -> &[(String, Value)] {
        &self.attributes
    }

    /// One attribute by name.
    pub fn attribute(&self, name: &str) -> Option<&Value> {
        self.attributes
            .iter()
            .find_map(|(key, value)| (key == name).then_some(value))
    }

    /// A client with the plugin's default options.
    pub fn client(&'static self) -> Result<Client> {
        Client::new(self, &[])
    }

    /// A client of the XLA:CPU plugin with `devices` CPU devices.
    pub fn cpu_client(&'static self, devices: usize) -> Result<Client> {
        let count = i64::try_from(devices)
            .map_err(|_| Error::InvalidArgument(format!("{devices} devices is too many")))?;
        Client::new(self, &[("cpu_device_count", Value::Int64(count))])
    }

    /// A topology by name, such as `v5e:2x2`, for compiling without devices.
    pub fn topology(&'static self, name: &str) -> Result<Topology> {
        Topology::new(self, name)
    }

    pub(crate) fn api(&self) -> &Api {
        &self.api
    }
}

/// A load failure with what the plugin wrote to stderr meanwhile.
fn with_log(error: Error, log: &str) -> Error {
    let log = log.trim();
    match error {
        Error::BadPlugin { path, reason } if !log.is_empty() => Error::BadPlugin {
            path,
            reason: format!("{reason}\nthe plugin logged:\n{log}"),
        },
        other => other,
    }
}

fn set_libtpu_env() {
    for (key, value) in LIBTPU_ENV {
        if std::env::var_os(key).is_none() {
            // SAFETY: runs under the plugin registry lock, before libtpu (the only reader
            // here) is loaded; `Plugin::load` documents that no other thread may be reading
            // the environment at this point.
            unsafe { std::env::set_var(key, value) };
        }
    }
}

fn read_attributes(api: &Api) -> Result<Vec<(String, Value)>> {
    let Ok(attributes) = entry!(api, PJRT_Plugin_Attributes) else {
        return Ok(Vec::new());
    };
    let mut args = ffi::PJRT_Plugin_Attributes_Args::new();
    // SAFETY: `args` is initialised; the plugin fills in the out fields.
    let error = unsafe { (attributes.f)(&mut args) };
    api.check(attributes.name, error)?;
    // SAFETY: the attributes array lives as long as the process.
    let values = unsafe { borrowed_slice(args.attributes, args.num_attributes) };
    Ok(values.iter().map(read_named_value).collect())
}

/// Copies a `PJRT_NamedValue` the plugin owns.
pub(crate) fn read_named_value(value: &ffi::PJRT_NamedValue) -> (String, Value) {
    // SAFETY: the name is `name_size` bytes owned by the plugin for the value's lifetime.
    let name = unsafe { borrowed_str(value.name, value.name_size) };
    // SAFETY: `kind` says which union field is live, and array/string fields point to
    // `value_size` elements.
    let value = unsafe {
        match value.kind {
            ffi::NAMED_VALUE_STRING => {
                Value::String(borrowed_str(value.value.string, value.value_size))
            }
            ffi::NAMED_VALUE_INT64 => Value::Int64(value.value.int64),
            ffi::NAMED_VALUE_INT64_LIST => {
                Value::Int64List(borrowed_slice(value.value.int64_array, value.value_size).to_vec())
            }
            ffi::NAMED_VALUE_FLOAT => Value::Float(value.value.float),
            ffi::NAMED_VALUE_BOOL => Value::Bool(value.value.boolean),
            other => Value::String(format!("(unknown value type {other})")),
        }
    };
    (name, value)
}

/// `PJRT_NamedValue`s pointing into `options`, valid while `options` is borrowed.
pub(crate) fn named_values(options: &[(&str, Value)]) -> Vec<ffi::PJRT_NamedValue> {
    options
        .iter()
        .map(|(name, value)| {
            let mut named = ffi::PJRT_NamedValue::new();
            named.name = name.as_ptr().cast();
            named.name_size = name.len();
            named.value_size = 1;
            match value {
                Value::String(text) => {
                    named.kind = ffi::NAMED_VALUE_STRING;
                    named.value.string = text.as_ptr().cast();
                    named.value_size = text.len();
                }
                Value::Int64(number) => {
                    named.kind = ffi::NAMED_VALUE_INT64;
                    named.value.int64 = *number;
                }
                Value::Int64List(list) => {
                    named.kind = ffi::NAMED_VALUE_INT64_LIST;
                    named.value.int64_array = list.as_ptr();
                    named.value_size = list.len();
                }
                Value::Float(number) => {
                    named.kind = ffi::NAMED_VALUE_FLOAT;
                    named.value.float = *number;
                }
                Value::Bool(flag) => {
                    named.kind = ffi::NAMED_VALUE_BOOL;
                    named.value.boolean = *flag;
                }
            }
            named
        })
        .collect()
}

impl std::fmt::Debug for Plugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plugin")
            .field("path", &self.path)
            .field("api_version", &self.api.version())
            .finish_non_exhaustive()
    }
}
