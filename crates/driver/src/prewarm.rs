//! `tpuc prewarm`: compile every item of a plan into the cache, in parallel, skipping items
//! already there; or only report their keys (`--dry-run`) or which are missing (`--check`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use crate::options::Options;
use serde::Serialize;
use tpuc_cache::Key;
use tpuc_prewarm::{Item, Plan};

use crate::compile::compile;
use crate::error::DriverError;
use crate::keys::cached_key;
use crate::plugins::PluginPaths;
use crate::shapes::DimSizes;
use crate::target::Target;
use crate::tiers::{CacheTiers, Origin};

/// What a prewarm run does with each item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Compile the items the cache lacks.
    Compile,
    /// Derive each item's key; compile nothing.
    DryRun,
    /// Report the items the cache lacks; compile nothing.
    Check,
}

/// What happened to one item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Already in the local cache.
    Hit,
    /// Fetched from the shared tier (and stored locally).
    Fetched,
    /// Compiled and stored now.
    Compiled,
    /// In neither tier (`--dry-run`, `--check`).
    Missing,
    Failed,
}

/// One item's outcome, as the report records it.
#[derive(Debug)]
pub struct ItemOutcome {
    pub model: PathBuf,
    pub shape: String,
    pub target: Target,
    pub key: Option<Key>,
    pub status: Status,
    pub seconds: f64,
    /// The executable's size, when it was compiled or found.
    pub bytes: Option<u64>,
    pub error: Option<DriverError>,
    pub warnings: Vec<String>,
}

/// Told when each item starts and ends, from the worker threads.
pub trait Progress: Sync {
    fn started(&self, _index: usize, _item: &Item<Target>) {}
    fn finished(&self, index: usize, outcome: &ItemOutcome);
}

/// Runs `mode` over the plan's items with `jobs` workers, telling `progress`. Outcomes come
/// back in plan order; a failed item does not stop the others.
pub fn prewarm(
    plan: &Plan<Target>,
    mode: Mode,
    jobs: usize,
    base: &Options,
    plugins: &PluginPaths,
    caches: &CacheTiers,
    progress: &dyn Progress,
) -> Vec<ItemOutcome> {
    crate::parallel::map(&plan.items, jobs, |index, item| {
        progress.started(index, item);
        let outcome = run_item(item, mode, base, plugins, caches);
        progress.finished(index, &outcome);
        outcome
    })
}

/// The item's sizes by symbol: names that are input axes (`input_ids.1`) become the symbol
/// they are.
fn item_dims(item: &Item<Target>) -> Result<BTreeMap<String, i64>, DriverError> {
    let dims = item
        .shape
        .dims()
        .map(|(name, size)| {
            let name = name.parse().map_err(|message| DriverError::Shape {
                message,
                help: None,
            })?;
            let sizes = vec![i64::try_from(size).unwrap_or(i64::MAX)];
            Ok(DimSizes { name, sizes })
        })
        .collect::<Result<Vec<_>, DriverError>>()?;
    Ok(crate::shapes::specialisations(&item.model, &dims)?
        .pop()
        .unwrap_or_default())
}

fn run_item(
    item: &Item<Target>,
    mode: Mode,
    base: &Options,
    plugins: &PluginPaths,
    caches: &CacheTiers,
) -> ItemOutcome {
    let started = Instant::now();
    let mut options = base.clone();
    let sharding = item_sharding(item);
    let named = item_dims(item);
    let mut outcome = ItemOutcome {
        model: item.model.clone(),
        shape: item.shape.to_string(),
        target: item.target.clone(),
        key: None,
        status: Status::Failed,
        seconds: 0.0,
        bytes: None,
        error: None,
        warnings: Vec::new(),
    };
    let result = match (sharding, named) {
        (Err(error), _) | (_, Err(error)) => Err(error),
        (Ok(sharding), Ok(dims)) => {
            options.lower.dims.extend(dims);
            Ok(sharding)
        }
    };
    let result = match (result, &item.optimizer) {
        (Ok(sharding), Some(spec)) => tpuc_passes::OptimizerSpec::parse(spec)
            .map(|spec| {
                options.pipeline.optimizer = Some(spec);
                sharding
            })
            .map_err(crate::error::DriverError::from),
        (result, _) => result,
    };
    let result = match (result, &item.kv_dtype) {
        (Ok(sharding), Some(text)) => tpuc_passes::KvDtype::parse(text)
            .map(|dtype| {
                options.pipeline.kv_dtype = Some(dtype);
                sharding
            })
            .map_err(crate::error::DriverError::from),
        (result, _) => result,
    };
    let result = match result {
        Err(error) => Err(error),
        Ok(Some(request)) => {
            options.pipeline.sharding = Some(request);
            Ok(())
        }
        Ok(None) => Ok(()),
    };
    let result = result.and_then(|()| match mode {
        Mode::Compile => compile(
            &item.model,
            std::slice::from_ref(&item.target),
            &options,
            plugins,
            caches,
        )
        .map(|mut report| {
            outcome.warnings = std::mem::take(&mut report.warnings);
            if let Some(compiled) = report.compiled.pop() {
                outcome.key = Some(compiled.key);
                outcome.bytes = Some(compiled.executable.len() as u64);
                outcome.status = match compiled.origin {
                    Origin::Local => Status::Hit,
                    Origin::Shared => Status::Fetched,
                    Origin::Compiled => Status::Compiled,
                };
            }
        }),
        Mode::DryRun | Mode::Check => cached_key(
            &item.model,
            &item.target,
            &options,
            plugins,
            caches,
            &mut outcome.warnings,
        )
        .map(|(key, present)| {
            outcome.key = Some(key);
            outcome.status = if present {
                Status::Hit
            } else {
                Status::Missing
            };
        }),
    });
    if let Err(error) = result {
        outcome.status = Status::Failed;
        outcome.error = Some(error);
    }
    outcome.seconds = started.elapsed().as_secs_f64();
    outcome
}

/// The item's own sharding plan and mesh, when its entry gives one.
fn item_sharding(
    item: &Item<Target>,
) -> crate::error::Result<Option<tpuc_passes::sharding::ShardRequest>> {
    let Some(shard) = &item.shard else {
        if item.mesh.is_some() {
            return Err(crate::error::DriverError::Unsupported(
                "the entry gives a `mesh` but no `shard` plan to use it".to_owned(),
            ));
        }
        return Ok(None);
    };
    let plan =
        tpuc_passes::sharding::PlanSource::parse(shard).map_err(tpuc_passes::PassError::from)?;
    let mesh = item
        .mesh
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(tpuc_passes::PassError::from)?;
    Ok(Some(tpuc_passes::sharding::ShardRequest::new(plan, mesh)))
}
