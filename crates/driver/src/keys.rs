//! `tpuc key`: a program's front-end key and, per target, its compile key and whether the
//! cache holds that executable, without compiling.

use std::path::Path;

use tpuc_cache::{Digest, Key, knobs};

use crate::compile::{CompileRequest, compile_key, compile_options, model_name};
use crate::error::{DriverError, Result};
use crate::frontend_cache::Frontends;
use crate::options::Options;
use crate::plugins::PluginPaths;
use crate::target::Target;
use crate::tiers::CacheTiers;

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

/// The keys of `model`, built with `options`, for each target, without compiling. The program
/// is built (and its module stored) if the local cache does not know it yet.
pub fn keys(
    model: &Path,
    targets: &[Target],
    options: &Options,
    plugins: &PluginPaths,
    caches: &CacheTiers,
    warnings: &mut Vec<String>,
) -> Result<Keys> {
    let (env, _) = knobs::current();
    let mut frontends = Frontends::new(model)?;
    let mut keys = Vec::with_capacity(targets.len());
    for target in targets {
        let frontend = frontends.for_target(target, options, &caches.local, warnings)?;
        let request = CompileRequest {
            module: &frontend.module,
            target,
            compile_options: compile_options(&frontend.module),
            model: model_name(model),
        };
        let (parts, _, _) = compile_key(&request, plugins, &caches.local, &env, warnings)?;
        let key = parts.key();
        let cached = caches.contains(&key, warnings);
        keys.push(TargetKey {
            target: target.clone(),
            key,
            cached,
        });
    }
    let first = frontends.into_first(options, &caches.local, warnings)?;
    Ok(Keys {
        frontend_key: first.key,
        module_sha256: first.module_sha256,
        targets: keys,
    })
}

/// Whether `model`, built with `options`, has an executable for `target` in the local cache
/// or the shared tier, without compiling: its compile key and the answer.
pub fn cached_key(
    model: &Path,
    target: &Target,
    options: &Options,
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
