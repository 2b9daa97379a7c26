//! `tpuc compile`: lower a program once, compile it for each target through its PJRT plugin,
//! and keep the executables in the content-addressed cache.
//!
//! A warm compile opens the archive (the program JSON only: weight bytes stay unread), derives
//! the front-end key, finds the lowered module's record and each target's entry, and returns;
//! neither lowering nor the plugins run.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use tpuc_cache::{
    Binding, Cache, Digest, FrontendParts, InputShape, Key, KeyParts, Manifest, Mode, ModuleRecord,
    Payload, PluginInfo, SHAPE_FORMAT, ShapeRecord, Signature, TargetId, knobs, sha256,
};
use tpuc_lower::{ArgumentSource, LowerOptions, ResultSource};
use tpuc_pjrt::{CompileOptions, Executable, ExecutableReport, Plugin, PluginKind, Program, Value};
use tpuc_pt2::Archive;

use crate::error::{DriverError, Result};
use crate::run::{Prepared, RunOutput};
use crate::runtime::{Runtime, device_options};
use crate::tiers::{CacheTiers, Origin, not_stored};

/// TPU generations libtpu compiles for, with a topology name of each that it accepts.
pub const TPU_TOPOLOGIES: &[(&str, &str)] = &[
    ("v4", "v4:2x2x1"),
    ("v5e", "v5e:2x2"),
    ("v5p", "v5p:2x2x1"),
    ("v6e", "v6e:2x2"),
];

/// Where to compile for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// A TPU topology such as `v5e:2x2`, compiled ahead of time by libtpu.
    Tpu { topology: String },
    /// XLA:CPU with this many devices.
    Cpu { devices: usize },
}

impl FromStr for Target {
    type Err = String;

    /// `tpu:<topology>`, `cpu` or `cpu:<devices>`.
    fn from_str(text: &str) -> Result<Target, String> {
        parse_target(text).map_err(|error| {
            let examples: Vec<String> = TPU_TOPOLOGIES
                .iter()
                .map(|(_, topology)| format!("tpu:{topology}"))
                .collect();
            let suggestion = suggest_target(text)
                .map(|target| format!(" (did you mean `{target}`?)"))
                .unwrap_or_default();
            format!(
                "{error}{suggestion}; targets are tpu:<topology>, cpu or cpu:<devices>, with \
                 topologies such as {} (`tpuc targets` lists what libtpu accepts)",
                examples.join(", ")
            )
        })
    }
}

fn parse_target(text: &str) -> Result<Target, String> {
    let families: Vec<&str> = TPU_TOPOLOGIES.iter().map(|(family, _)| *family).collect();
    match text.split_once(':') {
        None if text == "cpu" => Ok(Target::Cpu { devices: 1 }),
        None if text == "tpu" => Err("`tpu` needs a topology".to_owned()),
        Some(("cpu", count)) => match count.parse() {
            Ok(devices) if devices > 0 => Ok(Target::Cpu { devices }),
            _ => Err(format!("`{count}` is not a device count")),
        },
        Some(("tpu", topology)) => {
            let family = topology.split(':').next().unwrap_or_default();
            let shape = topology.split_once(':').map(|(_, shape)| shape);
            let shape_ok = shape.is_some_and(|shape| {
                !shape.is_empty()
                    && shape
                        .split('x')
                        .all(|n| n.parse::<u32>().is_ok_and(|n| n > 0))
            });
            if families.contains(&family) && shape_ok {
                Ok(Target::Tpu {
                    topology: topology.to_owned(),
                })
            } else {
                Err(format!(
                    "`{topology}` is not a TPU topology (generations {})",
                    families.join(", ")
                ))
            }
        }
        _ => Err(format!("unknown target `{text}`")),
    }
}

/// A valid target close to `text`: a generation's example topology for a bare `tpu` or
/// `tpu:<generation>`, `-` read as `:` (`tpu:v5e-2x2`), a missing `tpu:` prefix.
fn suggest_target(text: &str) -> Option<String> {
    let generation = text.strip_prefix("tpu:").unwrap_or(text);
    if text == "tpu" {
        return TPU_TOPOLOGIES
            .iter()
            .find(|(family, _)| *family == "v5e")
            .map(|(_, topology)| format!("tpu:{topology}"));
    }
    if let Some((_, topology)) = TPU_TOPOLOGIES
        .iter()
        .find(|(family, _)| *family == generation)
    {
        return Some(format!("tpu:{topology}"));
    }
    [
        text.replace('-', ":"),
        format!("tpu:{text}"),
        format!("tpu:{}", text.replace('-', ":")),
    ]
    .into_iter()
    .find(|candidate| candidate != text && parse_target(candidate).is_ok())
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Tpu { topology } => write!(f, "tpu:{topology}"),
            Target::Cpu { devices: 1 } => f.write_str("cpu"),
            Target::Cpu { devices } => write!(f, "cpu:{devices}"),
        }
    }
}

impl Target {
    pub fn plugin_kind(&self) -> PluginKind {
        match self {
            Target::Tpu { .. } => PluginKind::Tpu,
            Target::Cpu { .. } => PluginKind::Cpu,
        }
    }

    /// The number of devices: `cpu:N` has N, a TPU topology the product of its chip grid
    /// (`v5e:2x4` has 8; one device per chip).
    pub fn devices(&self) -> u64 {
        match self {
            Target::Cpu { devices } => *devices as u64,
            Target::Tpu { topology } => topology.split_once(':').map_or(1, |(_, grid)| {
                grid.split('x')
                    .filter_map(|n| n.parse::<u64>().ok())
                    .product()
            }),
        }
    }

    /// `options` for this target: a sharding plan learns the target's device count.
    pub fn lower_options(&self, options: &LowerOptions) -> LowerOptions {
        let mut options = options.clone();
        if let Some(request) = &options.sharding {
            options.sharding = Some(request.for_devices(self.devices()));
        }
        options
    }

    /// The topology as it enters the key: `v5e:2x2`, `cpu:1`.
    fn topology(&self) -> String {
        match self {
            Target::Tpu { topology } => topology.clone(),
            Target::Cpu { devices } => format!("cpu:{devices}"),
        }
    }
}

/// Explicit plugin libraries; `None`: the environment, then the plugin directory.
#[derive(Clone, Debug, Default)]
pub struct PluginPaths {
    pub cpu: Option<PathBuf>,
    pub tpu: Option<PathBuf>,
}

impl PluginPaths {
    fn locate(&self, kind: PluginKind) -> Result<PathBuf> {
        let explicit = match kind {
            PluginKind::Cpu => self.cpu.as_deref(),
            PluginKind::Tpu => self.tpu.as_deref(),
        };
        tpuc_pjrt::locate(kind, explicit).map_err(DriverError::pjrt("finding the PJRT plugin"))
    }
}

/// One target's executable. What the plugin reported about it (memory statistics, cost
/// analysis) is `manifest.report`, recorded when it was compiled, so a cache hit reports the
/// same numbers without recompiling.
#[derive(Debug)]
pub struct Compiled {
    pub target: Target,
    pub key: Key,
    /// The local cache, the shared tier, or the plugin just now.
    pub origin: Origin,
    /// The local entry's directory, if the executable is in the local cache.
    pub entry: Option<PathBuf>,
    pub manifest: Manifest,
    /// The serialized executable.
    pub executable: Vec<u8>,
    /// Time spent on this target: the lookup, and the compile on a miss.
    pub seconds: f64,
}

/// What [`compile`] did.
#[derive(Debug)]
pub struct CompileReport {
    /// The lowered module came from the cache (the program was not lowered).
    pub frontend_hit: bool,
    pub frontend_key: Key,
    pub module_sha256: Digest,
    pub compiled: Vec<Compiled>,
    /// Problems that did not stop the compile: an unusable cache, unknown XLA variables.
    pub warnings: Vec<String>,
    /// What the passes did, when the program was lowered (not on a front-end hit).
    pub passes: Option<tpuc_passes::PipelineReport>,
}

/// Lowers `model` (unless the local cache knows its module) and compiles it for each target
/// not cached in `caches`, storing new executables there. Cache failures become warnings: the
/// executables are returned regardless.
pub fn compile(
    model: &Path,
    targets: &[Target],
    options: &LowerOptions,
    plugins: &PluginPaths,
    caches: &CacheTiers,
) -> Result<CompileReport> {
    let mut warnings = Vec::new();
    let cache = &caches.local;
    let mut frontends = Frontends::default();
    let (env, unknown) = knobs::current();
    warn_unknown(unknown, &mut warnings);
    let mut compiled = Vec::new();
    for target in targets {
        let started = Instant::now();
        let family = family_key(model, target, options)?;
        let module = frontends.for_target(model, target, options, cache, &mut warnings)?;
        let plugin = plugins.locate(target.plugin_kind())?;
        let identity = plugin_identity(&plugin, target, cache, &mut warnings)?;
        let compile_options = compile_options(&module.module);
        let parts = key_parts(
            module.module_sha256,
            &compile_options,
            &identity,
            target,
            &env,
        );
        let key = parts.key();
        if let Some(found) = caches.lookup(&key, &mut warnings) {
            record_shape(
                cache,
                &family,
                target,
                options,
                &found.manifest,
                &mut warnings,
            );
            compiled.push(Compiled {
                target: target.clone(),
                key,
                origin: found.origin,
                entry: found.entry,
                manifest: found.manifest,
                executable: found.payload,
                seconds: started.elapsed().as_secs_f64(),
            });
            continue;
        }
        let module = &module.module;
        let (compiled_executable, compile_time) =
            compile_executable(&plugin, target, &module.text, &compile_options)?;
        let fresh = FreshExecutable {
            bytes: compiled_executable
                .serialize()
                .map_err(DriverError::pjrt("serializing the executable"))?,
            compile_time,
            report: report_or_warn(compiled_executable.report(), target, &mut warnings),
        };
        let source = Source {
            model: model_name(model),
            plugin: &plugin,
            module,
        };
        let manifest = new_manifest(parts, target, &identity, &source, &fresh);
        let executable = fresh.bytes;
        let entry = caches.store(&manifest, &executable, &mut warnings);
        record_shape(cache, &family, target, options, &manifest, &mut warnings);
        compiled.push(Compiled {
            target: target.clone(),
            key,
            origin: Origin::Compiled,
            entry,
            manifest,
            executable,
            seconds: started.elapsed().as_secs_f64(),
        });
    }
    let first = frontends.into_first(model, options, cache, &mut warnings)?;
    let (frontend_key, frontend_hit, module_sha256, passes) =
        (first.key, first.hit, first.module_sha256, first.passes);
    Ok(CompileReport {
        frontend_hit,
        frontend_key,
        module_sha256,
        compiled,
        warnings,
        passes,
    })
}

/// One shape's compile: the sizes given to the symbols, and what [`compile`] did.
#[derive(Debug)]
pub struct ShapeCompile {
    pub dims: BTreeMap<String, i64>,
    pub report: CompileReport,
}

/// Compiles `model` for every target once per shape (its sizes added to `options.dims`),
/// `jobs` shapes at a time, each through the cache like [`compile`]. Reports come back in
/// shape order; the first failure, in that order, is the error.
pub fn compile_shapes(
    model: &Path,
    targets: &[Target],
    options: &LowerOptions,
    shapes: &[BTreeMap<String, i64>],
    jobs: usize,
    plugins: &PluginPaths,
    caches: &CacheTiers,
) -> Result<Vec<ShapeCompile>> {
    let reports = crate::parallel::map(shapes, jobs, |_, dims| {
        let mut options = options.clone();
        options.dims.extend(dims.clone());
        compile(model, targets, &options, plugins, caches)
    });
    reports
        .into_iter()
        .zip(shapes)
        .map(|(report, dims)| {
            Ok(ShapeCompile {
                dims: dims.clone(),
                report: report?,
            })
        })
        .collect()
}

/// The shape index's family of `model` under `options` for `target`: what its front-end key
/// is derived from, without the sizes given to its symbolic dimensions.
pub fn family_key(model: &Path, target: &Target, options: &LowerOptions) -> Result<Key> {
    let mut without_sizes = target.lower_options(options);
    without_sizes.dims.clear();
    without_sizes.input_shapes.clear();
    let frontend = FrontendSource::open(model)?.parts(&without_sizes)?.key();
    Ok(Key(sha256(
        format!("tpuc-shape-family/1\n{frontend}").as_bytes(),
    )))
}

/// Records in the shape index that `manifest`'s executable serves its inputs' shapes for
/// `target`; a cache that cannot take it only warns.
fn record_shape(
    cache: &Cache,
    family: &Key,
    target: &Target,
    options: &LowerOptions,
    manifest: &Manifest,
    warnings: &mut Vec<String>,
) {
    if cache.mode() == Mode::ReadOnly {
        return;
    }
    let inputs = manifest
        .signature
        .arguments
        .iter()
        .filter(|binding| binding.kind == "input")
        .map(|binding| InputShape {
            name: binding.name.clone().unwrap_or_else(|| {
                binding
                    .index
                    .map_or_else(String::new, |index| index.to_string())
            }),
            shape: binding.shape.clone(),
        })
        .collect();
    let record = ShapeRecord {
        format: SHAPE_FORMAT.to_owned(),
        target: target.to_string(),
        dims: options.dims.clone(),
        inputs,
        key: manifest.key,
    };
    if let Err(error) = cache.record_shape(family, &record) {
        warnings.push(format!("{error}; the shape index is not updated"));
    }
}

/// The compile options of a module: SPMD over its mesh's devices with the Shardy partitioner
/// for a sharded module, one replica per rank for a program with collectives, one device
/// otherwise.
pub fn compile_options(module: &ModuleRecord) -> CompileOptions {
    let signature = &module.signature;
    device_options(partitions(signature), signature.replicas.unwrap_or(1))
}

/// The number of devices a module's mesh spans (1 without a mesh).
pub fn partitions(signature: &Signature) -> u64 {
    signature
        .mesh
        .as_ref()
        .map_or(1, |axes| axes.iter().map(|a| a.size).product())
}

/// The lowered modules of one program for several targets: a sharded module depends on the
/// target's device count, an unsharded one is the same for all.
#[derive(Default)]
struct Frontends(Vec<(u64, Frontend)>);

impl Frontends {
    fn for_target(
        &mut self,
        model: &Path,
        target: &Target,
        options: &LowerOptions,
        cache: &Cache,
        warnings: &mut Vec<String>,
    ) -> Result<&Frontend> {
        let devices = if options.sharding.is_some() {
            target.devices()
        } else {
            0
        };
        let index = match self.0.iter().position(|(d, _)| *d == devices) {
            Some(index) => index,
            None => {
                let lowered = frontend(model, &target.lower_options(options), cache, warnings)?;
                self.0.push((devices, lowered));
                self.0.len() - 1
            }
        };
        Ok(&self.0[index].1)
    }

    /// The first target's front end (or the program's own, without targets).
    fn into_first(
        self,
        model: &Path,
        options: &LowerOptions,
        cache: &Cache,
        warnings: &mut Vec<String>,
    ) -> Result<Frontend> {
        match self.0.into_iter().next() {
            Some((_, first)) => Ok(first),
            None => frontend(model, options, cache, warnings),
        }
    }
}

/// A program's lowered module: from the cache, or lowered now and stored.
struct Frontend {
    key: Key,
    hit: bool,
    module_sha256: Digest,
    module: ModuleRecord,
    passes: Option<tpuc_passes::PipelineReport>,
}

fn frontend(
    model: &Path,
    options: &LowerOptions,
    cache: &Cache,
    warnings: &mut Vec<String>,
) -> Result<Frontend> {
    let source = FrontendSource::open(model)?;
    let key = source.parts(options)?.key();
    let cached = cache.frontend(&key).unwrap_or_else(|error| {
        warnings.push(format!("{error}; lowering the program again"));
        None
    });
    let hit = cached.is_some();
    let (module_sha256, module, passes) = match cached {
        Some((digest, record)) => (digest, record, None),
        None => {
            let lowered = source.lower(model, options)?;
            if let Some(report) = &lowered.sharding {
                warnings.extend(report.assignment.notes.iter().cloned());
            }
            let record = module_record(&lowered);
            let digest = sha256(record.text.as_bytes());
            if let Err(error) = cache.insert_module(&key, &record) {
                warnings.push(not_stored(&error));
            }
            (digest, record, Some(lowered.passes))
        }
    };
    Ok(Frontend {
        key,
        hit,
        module_sha256,
        module,
        passes,
    })
}

/// What a program is read from: a `.pt2` archive, or StableHLO text (`.mlir`).
enum FrontendSource {
    Archive(Box<Archive>),
    Mlir(String),
}

impl FrontendSource {
    fn open(model: &Path) -> Result<Self> {
        Ok(if crate::mlir::is_mlir(model) {
            Self::Mlir(crate::mlir::read_text(model)?)
        } else {
            Self::Archive(Box::new(Archive::open(model)?))
        })
    }

    fn parts(&self, options: &LowerOptions) -> Result<FrontendParts> {
        match self {
            Self::Archive(archive) => frontend_parts(archive, options),
            Self::Mlir(text) => Ok(crate::mlir::frontend_parts(text, options)),
        }
    }

    fn lower(&self, model: &Path, options: &LowerOptions) -> Result<tpuc_lower::Lowered> {
        match self {
            Self::Archive(archive) => Ok(tpuc_lower::lower(archive, options)?),
            Self::Mlir(text) => crate::mlir::lower_text(model, text, options),
        }
    }
}

/// What `tpuc key` prints: a program's front-end key, its module's digest and, per target, the
/// compile key and whether the local cache or the shared tier holds that executable.
#[derive(Debug)]
pub struct Keys {
    pub frontend_key: Key,
    pub module_sha256: Digest,
    pub targets: Vec<TargetKey>,
}

/// One target's compile key.
#[derive(Debug)]
pub struct TargetKey {
    pub target: Target,
    pub key: Key,
    pub cached: bool,
}

/// The keys of `model`, lowered with `options`, for each target, without compiling. The program
/// is lowered (and its module stored) if the local cache does not know it yet.
pub fn keys(
    model: &Path,
    targets: &[Target],
    options: &LowerOptions,
    plugins: &PluginPaths,
    caches: &CacheTiers,
    warnings: &mut Vec<String>,
) -> Result<Keys> {
    let cache = &caches.local;
    let mut frontends = Frontends::default();
    let (env, _) = knobs::current();
    let mut keys = Vec::with_capacity(targets.len());
    for target in targets {
        let frontend = frontends.for_target(model, target, options, cache, warnings)?;
        let plugin = plugins.locate(target.plugin_kind())?;
        let identity = plugin_identity(&plugin, target, cache, warnings)?;
        let parts = key_parts(
            frontend.module_sha256,
            &compile_options(&frontend.module),
            &identity,
            target,
            &env,
        );
        let key = parts.key();
        let cached = caches.contains(&key, warnings);
        keys.push(TargetKey {
            target: target.clone(),
            key,
            cached,
        });
    }
    let first = frontends.into_first(model, options, cache, warnings)?;
    Ok(Keys {
        frontend_key: first.key,
        module_sha256: first.module_sha256,
        targets: keys,
    })
}

/// Whether `model`, lowered with `options`, has an executable for `target` in the local cache
/// or the shared tier, without compiling: its compile key and the answer.
pub fn cached_key(
    model: &Path,
    target: &Target,
    options: &LowerOptions,
    plugins: &PluginPaths,
    caches: &CacheTiers,
    warnings: &mut Vec<String>,
) -> Result<(Key, bool)> {
    let keys = keys(
        model,
        std::slice::from_ref(target),
        options,
        plugins,
        caches,
        warnings,
    )?;
    let [target] = <[TargetKey; 1]>::try_from(keys.targets)
        .map_err(|_| DriverError::Unsupported("one key per target was expected".to_owned()))?;
    Ok((target.key, target.cached))
}

/// The compile key's parts for a module, target and environment.
fn key_parts(
    module_sha256: Digest,
    options: &CompileOptions,
    identity: &PluginIdentity,
    target: &Target,
    env: &BTreeMap<String, Option<String>>,
) -> KeyParts {
    KeyParts {
        module_sha256,
        compile_options: hex(&options.encode()),
        target: identity.target_id(target),
        tpuc_version: tpuc_cache::TPUC_VERSION.to_owned(),
        env: env.clone(),
    }
}

/// An executable the plugin just compiled: its serialized form, the compile call's time and
/// what the plugin reported about it.
struct FreshExecutable {
    bytes: Vec<u8>,
    compile_time: Duration,
    report: ExecutableReport,
}

/// What an executable was compiled from: the model's file name, the plugin and the module.
struct Source<'a> {
    model: Option<String>,
    plugin: &'a Path,
    module: &'a ModuleRecord,
}

/// The file name of `model`, as cache entries record it.
pub(crate) fn model_name(model: &Path) -> Option<String> {
    model
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
}

/// The manifest of an executable the plugin just compiled.
fn new_manifest(
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
fn report_or_warn(
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

/// How `tpuc run` used the cache.
#[derive(Debug)]
pub struct CachedRun {
    pub output: RunOutput,
    pub key: Key,
    /// The executable was deserialized from the cache rather than compiled.
    pub hit: bool,
    pub warnings: Vec<String>,
}

/// Runs a prepared program on the XLA:CPU `runtime` through the cache: a cached executable is
/// loaded with `PJRT_Executable_DeserializeAndLoad`, else the module is compiled and stored.
pub fn run_cached(
    prepared: &Prepared,
    runtime: &Runtime,
    caches: &CacheTiers,
) -> Result<CachedRun> {
    let mut warnings = Vec::new();
    let cache = &caches.local;
    let module = module_record(&prepared.program);
    let placement = prepared.placement()?;
    let target = Target::Cpu {
        devices: placement.device_count(),
    };
    let compile_options = placement.compile_options();
    let plugin = runtime.plugin_path();
    let identity = plugin_identity(plugin, &target, cache, &mut warnings)?;
    let (env, unknown) = knobs::current();
    warn_unknown(unknown, &mut warnings);
    let parts = key_parts(
        sha256(module.text.as_bytes()),
        &compile_options,
        &identity,
        &target,
        &env,
    );
    let key = parts.key();
    let (executable, hit) = match caches.lookup(&key, &mut warnings) {
        Some(found) => (runtime.deserialize(&found.payload)?, true),
        None => {
            let started = Instant::now();
            let executable = runtime.compile_with(&module.text, &compile_options)?;
            let fresh = FreshExecutable {
                compile_time: started.elapsed(),
                bytes: executable.serialize()?,
                report: report_or_warn(executable.report(), &target, &mut warnings),
            };
            let source = Source {
                model: prepared.model_name.clone(),
                plugin,
                module: &module,
            };
            let manifest = new_manifest(parts, &target, &identity, &source, &fresh);
            caches.store(&manifest, &fresh.bytes, &mut warnings);
            (executable, false)
        }
    };
    Ok(CachedRun {
        output: prepared.execute_with(&executable)?,
        key,
        hit,
        warnings,
    })
}

fn warn_unknown(unknown: Vec<String>, warnings: &mut Vec<String>) {
    for name in unknown {
        warnings.push(format!(
            "{name} is not a known tpuc, XLA or libtpu setting; it is hashed into the cache key"
        ));
    }
}

/// The front-end key's parts: the program without metadata, the lowering options and, only
/// when weights are inlined into the module, the weights' bytes.
pub fn frontend_parts(archive: &Archive, options: &LowerOptions) -> Result<FrontendParts> {
    let mut program = serde_json::to_value(archive.program())
        .map_err(|error| DriverError::Unsupported(format!("cannot hash the program: {error}")))?;
    strip_metadata(&mut program);
    let mut lower_options = serde_json::json!({
        "inline_weights": options.inline_weights,
        "dims": options.dims,
        "input_shapes": options.input_shapes,
        "passes": options.passes.pipeline,
        "sharding": options
            .sharding
            .as_ref()
            .map(|request| request.key_text().map_err(tpuc_lower::LowerError::from))
            .transpose()?,
    });
    if let Some(kernels) = &options.passes.kernels {
        lower_options["kernels"] = kernels.digest().into();
    }
    let inlined_weights_sha256 = if options.inline_weights {
        let mut all = Vec::new();
        for weight in archive.weights() {
            let bytes = archive.view(weight).to_contiguous_bytes()?;
            all.extend_from_slice(weight.fqn().as_bytes());
            all.push(0);
            all.extend_from_slice(sha256(&bytes).0.as_slice());
        }
        Some(sha256(&all))
    } else {
        None
    };
    Ok(FrontendParts {
        program_sha256: sha256(program.to_string().as_bytes()),
        lower_options: lower_options.to_string(),
        inlined_weights_sha256,
        tpuc_version: tpuc_cache::TPUC_VERSION.to_owned(),
    })
}

/// Removes every `metadata` member (stack traces, module paths, source names): they change
/// only the locations, which the canonical module text strips.
fn strip_metadata(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(members) => {
            members.remove("metadata");
            members.values_mut().for_each(strip_metadata);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(strip_metadata),
        _ => {}
    }
}

/// The canonical text and the signature of a lowered program.
pub fn module_record(lowered: &tpuc_lower::Lowered) -> ModuleRecord {
    let text = tpuc_ir::print::generic(&lowered.module, &tpuc_ir::PrintOptions::default());
    let binding = |kind: &str,
                   name: Option<&str>,
                   index: Option<usize>,
                   dtype: tpuc_pt2::DType,
                   shape: &[i64]| Binding {
        kind: kind.to_owned(),
        name: name.map(str::to_owned),
        index,
        dtype: dtype.torch_name().to_owned(),
        shape: shape.to_vec(),
        sharding: None,
    };
    let arguments = lowered
        .arguments
        .iter()
        .map(|arg| match &arg.source {
            ArgumentSource::Parameter { fqn } => {
                binding("parameter", Some(fqn), None, arg.dtype, &arg.shape)
            }
            ArgumentSource::Buffer { fqn, .. } => {
                binding("buffer", Some(fqn), None, arg.dtype, &arg.shape)
            }
            ArgumentSource::Constant { fqn } => {
                binding("constant", Some(fqn), None, arg.dtype, &arg.shape)
            }
            ArgumentSource::UserInput { index, name } => {
                binding("input", Some(name), Some(*index), arg.dtype, &arg.shape)
            }
        })
        .collect();
    let results = lowered
        .results
        .iter()
        .map(|result| match &result.source {
            ResultSource::UserOutput { index } => {
                binding("output", None, Some(*index), result.dtype, &result.shape)
            }
            ResultSource::BufferMutation { fqn } => binding(
                "buffer_mutation",
                Some(fqn),
                None,
                result.dtype,
                &result.shape,
            ),
            ResultSource::UserInputMutation { name } => binding(
                "input_mutation",
                Some(name),
                None,
                result.dtype,
                &result.shape,
            ),
            ResultSource::IndexCheck { node, .. } => {
                binding("index_check", Some(node), None, result.dtype, &result.shape)
            }
            ResultSource::NonFiniteCheck { node, .. } => {
                binding("nan_check", Some(node), None, result.dtype, &result.shape)
            }
        })
        .collect();
    let mut signature = Signature {
        arguments,
        results,
        mesh: None,
        replicas: lowered
            .module
            .num_replicas
            .filter(|&n| n > 1)
            .map(u64::from),
    };
    record_shardings(&lowered.module, &mut signature);
    ModuleRecord {
        text,
        signature,
        dims: lowered.dims.clone(),
    }
}

/// Copies a sharded module's mesh and the `sdy.sharding` of `main`'s arguments and results
/// into the signature, for runtimes that place the slices.
fn record_shardings(module: &tpuc_ir::Module, signature: &mut Signature) {
    let (Some(mesh), Some(main)) = (module.meshes.first(), module.function("main")) else {
        return;
    };
    signature.mesh = Some(
        mesh.axes
            .iter()
            .map(|axis| tpuc_cache::MeshAxis {
                name: axis.name.clone(),
                size: axis.size,
            })
            .collect(),
    );
    let axes = |attrs: &tpuc_ir::NamedAttrs, rank: usize| match attrs.get("sdy.sharding") {
        Some(tpuc_ir::Attribute::Sharding(sharding)) => {
            sharding.dims.iter().map(|d| d.axes.clone()).collect()
        }
        _ => vec![Vec::new(); rank],
    };
    for (binding, attrs) in signature.arguments.iter_mut().zip(&main.arg_attrs) {
        binding.sharding = Some(axes(attrs, binding.shape.len()));
    }
    for (binding, attrs) in signature.results.iter_mut().zip(&main.result_attrs) {
        binding.sharding = Some(axes(attrs, binding.shape.len()));
    }
}

/// Compiles StableHLO text (either form) for `target` without touching the cache: the time the
/// plugin's compile call took (not loading the plugin, nor opening a topology or client) and
/// what the plugin reports about the executable. For benchmarks of the compiler itself. A
/// sharded module compiles over its `mhlo.num_partitions` devices.
pub fn compile_module_report(
    module_text: &str,
    target: &Target,
    plugins: &PluginPaths,
) -> Result<(Duration, ExecutableReport)> {
    let plugin = plugins.locate(target.plugin_kind())?;
    // A sharded module says over how many devices (`mhlo.num_partitions`), a program with
    // collectives how many ranks run it (`mhlo.num_replicas`).
    let module = tpuc_ir::parse::parse_module(module_text).ok();
    let count =
        |of: fn(&tpuc_ir::Module) -> Option<u32>| module.as_ref().and_then(of).map_or(1, u64::from);
    let options = device_options(count(|m| m.num_partitions), count(|m| m.num_replicas));
    let (executable, compile_time) = compile_executable(&plugin, target, module_text, &options)?;
    let report = executable.report().map_err(DriverError::pjrt(
        "reading the executable's memory and cost",
    ))?;
    Ok((compile_time, report))
}

/// Compiles the module text for `target`: the executable, and the time the compile call took.
fn compile_executable(
    plugin_path: &Path,
    target: &Target,
    text: &str,
    options: &CompileOptions,
) -> Result<(Executable, Duration)> {
    let plugin = Plugin::load(plugin_path).map_err(DriverError::pjrt("loading the PJRT plugin"))?;
    let program = Program::mlir(text);
    match target {
        Target::Tpu { topology } => {
            let topology = plugin
                .topology(topology)
                .map_err(DriverError::pjrt("describing the TPU topology"))?;
            let started = Instant::now();
            let executable = topology
                .compile(&program, options)
                .map_err(DriverError::pjrt("compiling the module with libtpu"))?;
            Ok((executable, started.elapsed()))
        }
        Target::Cpu { devices } => {
            let client = plugin
                .cpu_client(*devices)
                .map_err(DriverError::pjrt("opening an XLA:CPU client"))?;
            let started = Instant::now();
            let loaded = client
                .compile(&program, options)
                .map_err(DriverError::pjrt("compiling the module on XLA:CPU"))?;
            let compile_time = started.elapsed();
            let executable = loaded
                .executable()
                .map_err(DriverError::pjrt("reading the compiled executable"))?;
            Ok((executable, compile_time))
        }
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
    fn target_id(&self, target: &Target) -> TargetId {
        TargetId {
            platform: self.platform.clone(),
            platform_version: self.platform_version.clone(),
            pjrt_api_version: self.api_version.clone(),
            plugin_sha256: self.sha256,
            topology: target.topology(),
        }
    }

    fn info(&self, path: &Path) -> PluginInfo {
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

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_and_print() {
        for text in ["cpu", "cpu:4", "tpu:v5e:2x2", "tpu:v4:2x2x1", "tpu:v6e:2x2"] {
            assert_eq!(text.parse::<Target>().unwrap().to_string(), text);
        }
        assert_eq!("cpu:1".parse::<Target>().unwrap().to_string(), "cpu");
        for bad in [
            "gpu",
            "cpu:0",
            "cpu:x",
            "tpu:v9:2x2",
            "tpu:v5e",
            "tpu:v5e:2xa",
            "tpu",
        ] {
            let error = bad.parse::<Target>().unwrap_err();
            assert!(error.contains("tpu:v5e:2x2"), "{bad}: {error}");
            assert!(error.contains("tpu:v4:2x2x1"), "{bad}: {error}");
        }
    }

    #[test]
    fn near_misses_get_a_suggestion() {
        for (bad, meant) in [
            ("tpu", "tpu:v5e:2x2"),
            ("tpu:v5e-2x2", "tpu:v5e:2x2"),
            ("v5e:2x2", "tpu:v5e:2x2"),
            ("v5e-4x4", "tpu:v5e:4x4"),
            ("tpu:v5e", "tpu:v5e:2x2"),
            ("tpu:v4", "tpu:v4:2x2x1"),
        ] {
            let error = bad.parse::<Target>().unwrap_err();
            assert!(
                error.contains(&format!("did you mean `{meant}`?")),
                "{bad}: {error}"
            );
        }
        let error = "gpu".parse::<Target>().unwrap_err();
        assert!(!error.contains("did you mean"), "{error}");
    }

    #[test]
    fn metadata_is_stripped_at_every_depth() {
        let mut value = serde_json::json!({
            "metadata": {"a": 1},
            "nodes": [{"target": "add", "metadata": {"stack_trace": "x.py:1"}}],
        });
        strip_metadata(&mut value);
        assert_eq!(value, serde_json::json!({"nodes": [{"target": "add"}]}));
    }
}
