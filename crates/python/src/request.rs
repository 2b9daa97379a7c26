//! What a call asks for: the program, its target and options (as `tpuc key` and `tpuc compile`
//! build them from their flags), and the cache tiers (as the CLI opens them from its flags and
//! environment variables).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use miette::{Result, miette};
use tpuc_cache::{Cache, Mode, SecretKey, TrustedKeys};
use tpuc_driver::{CacheTiers, DimSizes, LowerOptions, Options, Target};
use tpuc_passes::sharding::{PlanSource, ShardRequest};
use tpuc_passes::{Fusion, KvDtype, OptimizerSpec, PassName, PipelineRequest};
use tpuc_remote::{Limits, RemoteOptions, RemoteStore, SharedTier};

/// A program, one target, and the options its keys and compile use.
pub struct Request {
    pub model: PathBuf,
    pub target: Target,
    pub options: Options,
}

impl Request {
    /// `--target`, `--shard`, `--optimizer`, `--kv-dtype`, `--dim NAME=N` (one size each) and
    /// `--passes`, as the CLI parses them.
    pub fn new(
        model: PathBuf,
        target: &str,
        shard: Option<String>,
        optimizer: Option<String>,
        kv_dtype: Option<String>,
        dims: Option<Vec<(String, i64)>>,
        passes: Option<String>,
    ) -> Result<Request> {
        let target: Target = target.parse().map_err(|error: String| miette!("{error}"))?;
        let passes = passes
            .map(|text| PassName::parse_list(&text).map_err(|_| unknown_passes(&text)))
            .transpose()?;
        let optimizer = optimizer
            .map(|spec| OptimizerSpec::parse(&spec))
            .transpose()?;
        let kv_dtype = kv_dtype.map(|text| KvDtype::parse(&text)).transpose()?;
        let sharding = shard
            .map(|plan| PlanSource::parse(&plan).map(|plan| ShardRequest::new(plan, None)))
            .transpose()?;
        let dims = dims
            .unwrap_or_default()
            .into_iter()
            .map(|(name, size)| DimSizes::parse_list(&format!("{name}={size}")))
            .collect::<Result<Vec<_>, String>>()
            .map_err(|error| miette!("{error}"))?;
        let mut shapes = tpuc_driver::specialisations(&model, &dims)?;
        let options = Options {
            lower: LowerOptions {
                dims: shapes.pop().unwrap_or_default(),
                input_shapes: BTreeMap::new(),
                ..LowerOptions::default()
            },
            pipeline: PipelineRequest {
                passes,
                fusion: Fusion::AsListed,
                kernels: None,
                sharding,
                optimizer,
                kv_dtype,
            },
            ..Options::default()
        };
        Ok(Request {
            model,
            target,
            options,
        })
    }
}

/// The CLI's message for a `--passes` list with unknown names.
fn unknown_passes(text: &str) -> miette::Report {
    let unknown: Vec<&str> = text
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty() && PassName::from_name(name).is_none())
        .collect();
    miette!(
        "unknown pass `{}`; the passes are {}",
        unknown.join("`, `"),
        PassName::ALL.map(PassName::name).join(", ")
    )
}

/// The local cache at `dir` (else `TPUC_CACHE_DIR`, `XDG_CACHE_HOME/tpuc`, `~/.cache/tpuc`),
/// read-only when `TPUC_CACHE_READ_ONLY=1`.
pub fn open_local(dir: Option<PathBuf>) -> Result<Cache> {
    let read_only = std::env::var("TPUC_CACHE_READ_ONLY").is_ok_and(|v| v == "1");
    let mode = if read_only {
        Mode::ReadOnly
    } else {
        Mode::ReadWrite
    };
    Ok(match dir {
        Some(dir) => Cache::open(dir, mode),
        None => Cache::open_default(mode)?,
    })
}

/// The public keys of `trust_keys`, else of `TPUC_TRUST_KEYS` (files separated by `:`).
pub fn trusted_keys(trust_keys: Option<Vec<PathBuf>>) -> Result<TrustedKeys> {
    let paths = trust_keys.unwrap_or_else(|| {
        std::env::var_os("TPUC_TRUST_KEYS")
            .map(|value| std::env::split_paths(&value).collect())
            .unwrap_or_default()
    });
    let paths: Vec<PathBuf> = paths
        .into_iter()
        .filter(|path| !path.as_os_str().is_empty())
        .collect();
    Ok(TrustedKeys::read(&paths)?)
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.is_empty())
}

/// The local cache and, when `TPUC_REMOTE` names one, the shared tier (with `TPUC_REMOTE_*`,
/// `TPUC_TRUST_KEYS` or `trust_keys`, and `TPUC_SIGN_KEY`), exactly as the CLI opens them
/// from those variables; and the warnings of opening them.
pub fn open_tiers(
    dir: Option<PathBuf>,
    trust_keys: Option<Vec<PathBuf>>,
) -> Result<(CacheTiers, Vec<String>)> {
    let local = open_local(dir)?;
    let signer = env("TPUC_SIGN_KEY")
        .map(|path| SecretKey::read(path.as_ref()))
        .transpose()?;
    let trusted = trusted_keys(trust_keys)?;
    let Some(url) = env("TPUC_REMOTE") else {
        let tiers = CacheTiers {
            signer,
            ..CacheTiers::from(local)
        };
        return Ok((tiers, Vec::new()));
    };
    let defaults = Limits::default();
    let deadline = env("TPUC_REMOTE_DEADLINE")
        .and_then(|text| text.parse::<f64>().ok())
        .filter(|seconds| *seconds > 0.0)
        .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok());
    let read_only = env("TPUC_REMOTE_READ_ONLY").is_some_and(|value| {
        matches!(
            value.to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on" | "y"
        )
    });
    let options = RemoteOptions {
        endpoint: env("TPUC_REMOTE_ENDPOINT"),
        read_only,
        limits: Limits {
            overall: deadline.unwrap_or(defaults.overall),
            ..defaults
        },
        ..RemoteOptions::default()
    };
    let shared = SharedTier::new(RemoteStore::open(&url, &options)?).trusting(trusted);
    Ok(CacheTiers::with_shared(local, shared, signer)?)
}
