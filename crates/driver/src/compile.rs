//! Compiling through the cache: each target's executable is looked up by its compile key in
//! the local cache and the shared tier, and only on a miss compiled by the target's PJRT
//! plugin and stored. `compile`, `key`, `prewarm` and `run` all take the one miss path,
//! [`through_cache`].
//!
//! A warm compile opens the archive (the program JSON only: weight bytes stay unread), derives
//! the front-end key, finds the built module's record and each target's entry, and returns;
//! neither lowering nor the plugins run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use tpuc_cache::{
    Cache, Digest, InputShape, Key, KeyParts, Manifest, Mode, ModuleRecord, SHAPE_FORMAT,
    ShapeRecord, Signature, knobs, sha256,
};
use tpuc_pjrt::CompileOptions;

use crate::backend::compile_executable;
use crate::entry::{FreshExecutable, Source, new_manifest, report_or_warn};
use crate::error::{DriverError, Result};
use crate::frontend::ProgramSource;
use crate::frontend_cache::Frontends;
use crate::options::Options;
use crate::plugins::{PluginIdentity, PluginPaths, plugin_identity};
use crate::run::{Prepared, RunOutput};
use crate::runtime::{Executable, Runtime, device_options};
use crate::target::Target;
use crate::tiers::{CacheTiers, Origin};

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

/// Builds `model` (unless the local cache knows its module) and compiles it for each target
/// not cached in `caches`, storing new executables there. Cache failures become warnings: the
/// executables are returned regardless.
pub fn compile(
    model: &Path,
    targets: &[Target],
    options: &Options,
    plugins: &PluginPaths,
    caches: &CacheTiers,
) -> Result<CompileReport> {
    let mut warnings = Vec::new();
    let (env, unknown) = knobs::current();
    warn_unknown(unknown, &mut warnings);
    let mut frontends = Frontends::new(model)?;
    let mut compiled = Vec::new();
    for target in targets {
        let started = Instant::now();
        let family = family_key_of(frontends.source(), target, options)?;
        let module = frontends.for_target(target, options, &caches.local, &mut warnings)?;
        let request = CompileRequest {
            module: &module.module,
            target,
            compile_options: compile_options(&module.module),
            model: model_name(model),
        };
        let mut found = through_cache(&request, plugins, caches, &env, &mut warnings)?;
        record_shape(
            &caches.local,
            &family,
            target,
            &options.lower.dims,
            &found.manifest,
            &mut warnings,
        );
        found.seconds = started.elapsed().as_secs_f64();
        compiled.push(found);
    }
    let first = frontends.into_first(options, &caches.local, &mut warnings)?;
    Ok(CompileReport {
        frontend_hit: first.hit,
        frontend_key: first.key,
        module_sha256: first.module_sha256,
        compiled,
        warnings,
        passes: first.passes,
    })
}

/// One module to compile for one target.
pub struct CompileRequest<'a> {
    pub module: &'a ModuleRecord,
    pub target: &'a Target,
    pub compile_options: CompileOptions,
    /// The model's file name, recorded in the entry.
    pub model: Option<String>,
}

/// The compile key of `request`, and the plugin and its identity it was derived with.
pub(crate) fn compile_key(
    request: &CompileRequest<'_>,
    plugins: &PluginPaths,
    cache: &Cache,
    env: &BTreeMap<String, Option<String>>,
    warnings: &mut Vec<String>,
) -> Result<(KeyParts, PathBuf, PluginIdentity)> {
    let plugin = plugins.locate(request.target.plugin_kind())?;
    let identity = plugin_identity(&plugin, request.target, cache, warnings)?;
    let parts = key_parts(
        sha256(request.module.text.as_bytes()),
        &request.compile_options,
        &identity,
        request.target,
        env,
    );
    Ok((parts, plugin, identity))
}

/// The executable of `request`: from the local cache or the shared tier, or compiled by the
/// target's plugin now and stored in both. The one miss path of every command.
pub fn through_cache(
    request: &CompileRequest<'_>,
    plugins: &PluginPaths,
    caches: &CacheTiers,
    env: &BTreeMap<String, Option<String>>,
    warnings: &mut Vec<String>,
) -> Result<Compiled> {
    let started = Instant::now();
    let (parts, plugin, identity) = compile_key(request, plugins, &caches.local, env, warnings)?;
    let key = parts.key();
    let target = request.target;
    if let Some(found) = caches.lookup(&key, warnings) {
        return Ok(Compiled {
            target: target.clone(),
            key,
            origin: found.origin,
            entry: found.entry,
            manifest: found.manifest,
            executable: found.payload,
            seconds: started.elapsed().as_secs_f64(),
        });
    }
    let (executable, compile_time) = compile_executable(
        &plugin,
        target,
        &request.module.text,
        &request.compile_options,
    )?;
    let fresh = FreshExecutable {
        bytes: executable
            .serialize()
            .map_err(DriverError::pjrt("serializing the executable"))?,
        compile_time,
        report: report_or_warn(executable.report(), target, warnings),
    };
    let source = Source {
        model: request.model.clone(),
        plugin: &plugin,
        module: request.module,
    };
    let manifest = new_manifest(parts, target, &identity, &source, &fresh);
    let entry = caches.store(&manifest, &fresh.bytes, warnings);
    Ok(Compiled {
        target: target.clone(),
        key,
        origin: Origin::Compiled,
        entry,
        manifest,
        executable: fresh.bytes,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// One shape's compile: the sizes given to the symbols, and what [`compile`] did.
#[derive(Debug)]
pub struct ShapeCompile {
    pub dims: BTreeMap<String, i64>,
    pub report: CompileReport,
}

/// Compiles `model` for every target once per shape (its sizes added to the symbol values),
/// `jobs` shapes at a time, each through the cache like [`compile`]. Reports come back in
/// shape order; the first failure, in that order, is the error.
pub fn compile_shapes(
    model: &Path,
    targets: &[Target],
    options: &Options,
    shapes: &[BTreeMap<String, i64>],
    jobs: usize,
    plugins: &PluginPaths,
    caches: &CacheTiers,
) -> Result<Vec<ShapeCompile>> {
    let reports = crate::parallel::map(shapes, jobs, |_, dims| {
        let mut options = options.clone();
        options.lower.dims.extend(dims.clone());
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
pub fn family_key(model: &Path, target: &Target, options: &Options) -> Result<Key> {
    family_key_of(&ProgramSource::open(model)?, target, options)
}

/// [`family_key`] of a program already open.
fn family_key_of(source: &ProgramSource, target: &Target, options: &Options) -> Result<Key> {
    let mut without_sizes = options.for_target(target);
    without_sizes.lower.dims.clear();
    without_sizes.lower.input_shapes.clear();
    let frontend = source.key_parts(&without_sizes)?.key();
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
    dims: &BTreeMap<String, i64>,
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
        dims: dims.clone(),
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

/// The file name of `model`, as cache entries record it.
pub(crate) fn model_name(model: &Path) -> Option<String> {
    model
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
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

/// Runs a prepared program on the XLA:CPU `runtime` through the cache: the executable comes
/// from [`through_cache`] and is loaded with `PJRT_Executable_DeserializeAndLoad`.
pub fn run_cached(
    prepared: &Prepared,
    runtime: &Runtime,
    caches: &CacheTiers,
) -> Result<CachedRun> {
    let loaded = load_cached(prepared, runtime, caches)?;
    Ok(CachedRun {
        output: prepared.execute_with(&loaded.executable)?,
        key: loaded.key,
        hit: loaded.hit(),
        warnings: loaded.warnings,
    })
}

/// An executable of a prepared program, loaded on a runtime, and where it came from.
#[derive(Debug)]
pub struct LoadedRun {
    pub executable: Executable,
    pub key: Key,
    pub origin: Origin,
    pub warnings: Vec<String>,
}

impl LoadedRun {
    /// Whether the executable came from a cache tier rather than a compile.
    pub fn hit(&self) -> bool {
        self.origin != Origin::Compiled
    }
}

/// The executable of a prepared program for the XLA:CPU `runtime`, through the cache (as
/// [`run_cached`] gets it), loaded and ready for [`Prepared::execute_with`] and
/// [`Prepared::execute_inputs`] as often as needed.
pub fn load_cached(
    prepared: &Prepared,
    runtime: &Runtime,
    caches: &CacheTiers,
) -> Result<LoadedRun> {
    let mut warnings = Vec::new();
    let (env, unknown) = knobs::current();
    warn_unknown(unknown, &mut warnings);
    let module = crate::record::module_record(&prepared.built);
    let placement = prepared.placement()?;
    let target = Target::Cpu {
        devices: placement.device_count(),
    };
    let request = CompileRequest {
        module: &module,
        target: &target,
        compile_options: placement.compile_options(),
        model: prepared.model_name.clone(),
    };
    let plugins = PluginPaths {
        cpu: Some(runtime.plugin_path().to_owned()),
        tpu: None,
    };
    let compiled = through_cache(&request, &plugins, caches, &env, &mut warnings)?;
    Ok(LoadedRun {
        executable: runtime.deserialize(&compiled.executable)?,
        key: compiled.key,
        origin: compiled.origin,
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

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}
