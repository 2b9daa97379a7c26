//! `tpuc cache`: list, show, verify, evict and remove compiled executables.

use crate::render::{human_size, print_json};
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use clap::Subcommand;
use miette::{IntoDiagnostic, Result};
use tpuc_cache::{Cache, EntryInfo, Mode, SecretKey, TrustedKeys};
use tpuc_driver::CacheTiers;
use tpuc_prewarm::PlanOptions;
use tpuc_remote::{Limits, RemoteOptions, RemoteStore, SharedTier};

use crate::Format;
use crate::age::ago;

/// Where the cache is and whether it may be written; shared by every command that uses it.
#[derive(clap::Args, Clone)]
pub struct CacheArgs {
    /// The cache directory (else $TPUC_CACHE_DIR, else $XDG_CACHE_HOME/tpuc, else
    /// ~/.cache/tpuc).
    #[arg(long, value_name = "DIR", global = true)]
    pub cache_dir: Option<PathBuf>,
    /// Use the cache without writing to it (also: TPUC_CACHE_READ_ONLY=1).
    #[arg(long, global = true)]
    pub cache_read_only: bool,
}

impl CacheArgs {
    pub fn open(&self) -> Result<Cache> {
        let mode = if self.cache_read_only {
            Mode::ReadOnly
        } else {
            Mode::ReadWrite
        };
        Ok(match &self.cache_dir {
            Some(dir) => {
                let read_only = std::env::var("TPUC_CACHE_READ_ONLY").is_ok_and(|v| v == "1");
                Cache::open(dir, if read_only { Mode::ReadOnly } else { mode })
            }
            None => Cache::open_default(mode)?,
        })
    }
}

/// The shared tier behind the local cache; shared by the commands that compile.
#[derive(clap::Args)]
pub struct RemoteArgs {
    /// A shared cache tier behind the local one: s3://BUCKET[/PREFIX] on AWS S3 or any
    /// S3-compatible store, with credentials from the AWS_* environment variables.
    #[arg(long, value_name = "s3://BUCKET/PREFIX", env = "TPUC_REMOTE")]
    pub remote: Option<String>,
    /// The S3-compatible endpoint of --remote, e.g. http://127.0.0.1:9000 (else
    /// AWS_ENDPOINT_URL, else AWS).
    #[arg(long, value_name = "URL", env = "TPUC_REMOTE_ENDPOINT")]
    pub endpoint: Option<String>,
    /// Read the shared tier but never write to it: for untrusted jobs, such as pull requests
    /// from forks.
    #[arg(
        long,
        env = "TPUC_REMOTE_READ_ONLY",
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub remote_read_only: bool,
    /// Give up on a shared-tier operation after this many seconds (a transfer gets one more
    /// second per MiB it may move); it then counts as a fault, and the compile goes on
    /// locally.
    #[arg(
        long,
        value_name = "SECONDS",
        env = "TPUC_REMOTE_DEADLINE",
        value_parser = parse_seconds
    )]
    pub remote_deadline: Option<Duration>,
    /// Accept a shared-tier entry only if it is signed by this public key (repeatable; also
    /// TPUC_TRUST_KEYS, files separated by `:`); others are compiled locally.
    #[arg(
        long = "trust-key",
        value_name = "FILE.pub",
        env = "TPUC_TRUST_KEYS",
        value_delimiter = ':'
    )]
    pub trust_keys: Vec<PathBuf>,
    /// Sign every entry compiled here with this secret key (mode 0600; see `tpuc cache
    /// keygen`), locally and in the shared tier.
    #[arg(long, value_name = "FILE", env = "TPUC_SIGN_KEY")]
    pub sign_key: Option<PathBuf>,
}

impl RemoteArgs {
    /// The local cache, and the shared tier if one is configured here or, failing that, in a
    /// plan's `[options]`; and the warnings of opening them. A shared tier that cannot be used
    /// is a warning, not an error: the local cache keeps working.
    pub fn open(&self, local: Cache, plan: &PlanOptions) -> Result<(CacheTiers, Vec<String>)> {
        let signer = self.sign_key.as_deref().map(SecretKey::read).transpose()?;
        let trust_keys = if self.trust_keys.is_empty() {
            &plan.trust_keys
        } else {
            &self.trust_keys
        };
        let trusted = TrustedKeys::read(trust_keys)?;
        let Some(url) = self.remote.as_ref().or(plan.remote.as_ref()) else {
            if self.endpoint.is_some() {
                return Err(miette::miette!(
                    help = "add --remote s3://BUCKET/PREFIX (or TPUC_REMOTE)",
                    "--endpoint names the server of a shared cache, but no --remote was given"
                ));
            }
            let tiers = CacheTiers {
                signer,
                ..CacheTiers::from(local)
            };
            return Ok((tiers, Vec::new()));
        };
        let defaults = Limits::default();
        let options = RemoteOptions {
            endpoint: self.endpoint.clone().or_else(|| plan.endpoint.clone()),
            read_only: self.remote_read_only || plan.read_only,
            limits: Limits {
                overall: self.remote_deadline.unwrap_or(defaults.overall),
                ..defaults
            },
            ..RemoteOptions::default()
        };
        let shared = SharedTier::new(RemoteStore::open(url, &options)?).trusting(trusted);
        Ok(CacheTiers::with_shared(local, shared, signer)?)
    }
}

/// A positive number of seconds, such as `60` or `0.5`.
fn parse_seconds(text: &str) -> Result<Duration, String> {
    text.parse::<f64>()
        .ok()
        .filter(|seconds| *seconds > 0.0)
        .and_then(|seconds| Duration::try_from_secs_f64(seconds).ok())
        .ok_or_else(|| format!("`{text}` is not a positive number of seconds"))
}

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: CacheCommand,
    #[command(flatten)]
    cache: CacheArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text, global = true)]
    format: Format,
}

#[derive(Subcommand)]
enum CacheCommand {
    /// List the entries, most recently used first.
    Ls,
    /// Print an entry's manifest.
    Show {
        /// The entry's key, or a unique prefix of it (4 or more hex digits).
        key: String,
    },
    /// Check every entry's manifest, payload digest and signature; quarantine the bad ones.
    Verify {
        /// Only this entry: its key, or a unique prefix of it (4 or more hex digits).
        key: Option<String>,
        /// Also list the entries not signed by this public key (repeatable; also
        /// TPUC_TRUST_KEYS), and exit with status 5 if there are any.
        #[arg(
            long = "trust-key",
            value_name = "FILE.pub",
            env = "TPUC_TRUST_KEYS",
            value_delimiter = ':'
        )]
        trust_keys: Vec<PathBuf>,
    },
    /// Make an Ed25519 key pair for signing entries: the secret key in FILE (mode 0600), the
    /// public key in FILE.pub. The secret key is never printed.
    Keygen {
        /// Where the secret key goes; it must not exist.
        file: PathBuf,
    },
    /// Evict least recently used entries until the cache fits in a size; delete debris.
    Gc {
        /// The size cap, e.g. 20G, 512M (powers of 1024).
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        max_size: u64,
    },
    /// Count entries and bytes.
    Stats,
    /// Write one executable to a file for another runtime (JAX, any PJRT client).
    Export(crate::cache_export::ExportArgs),
    /// Remove one entry.
    Rm {
        /// The entry's key, or a unique prefix of it (4 or more hex digits).
        key: String,
    },
}

fn parse_size(text: &str) -> Result<u64, String> {
    tpuc_cache::parse_size(text).map_err(|error| error.to_string())
}

pub fn run(args: &Args) -> Result<std::process::ExitCode> {
    let json = args.format == Format::Json;
    if let CacheCommand::Keygen { file } = &args.command {
        return keygen(file, json);
    }
    let cache = args.cache.open()?;
    match &args.command {
        CacheCommand::Keygen { .. } => unreachable!("handled above"),
        CacheCommand::Ls => {
            let listing = cache.list()?;
            warn_all(&listing.warnings);
            let entries = listing.entries;
            if json {
                let rows: Vec<_> = entries.iter().map(summary).collect();
                print_json(&serde_json::json!({
                    "root": cache.root(),
                    "entries": rows,
                    "warnings": listing.warnings,
                }))?;
            } else {
                println!("{} entries in {}", entries.len(), cache.root().display());
                let now = SystemTime::now();
                for entry in &entries {
                    let manifest = entry.manifest.as_ref();
                    let target = manifest.map_or("?", |m| m.target.as_str());
                    let model = manifest.and_then(|m| m.model.as_deref()).unwrap_or("?");
                    println!(
                        "{}  {:<14} {:>10}  {:<16} last used {}",
                        entry.key,
                        target,
                        human_size(entry.size),
                        model,
                        ago(entry.last_used, now)
                    );
                }
            }
        }
        CacheCommand::Show { key } => {
            let entry = cache.show(&cache.resolve(key)?)?;
            if json {
                print_json(&serde_json::json!({
                    "key": entry.key,
                    "path": entry.path,
                    "size": entry.size,
                    "last_used_unix": entry.last_used_unix,
                    "manifest": entry.manifest,
                }))?;
            } else {
                println!("path       {}", entry.path.display());
                println!("size       {}", human_size(entry.size));
                println!(
                    "last used  {} ({} unix seconds)",
                    ago(entry.last_used, SystemTime::now()),
                    entry.last_used_unix
                );
                if let Some(model) = entry.manifest.as_ref().and_then(|m| m.model.as_deref()) {
                    println!("model      {model}");
                }
                match &entry.manifest {
                    Some(manifest) => println!(
                        "{}",
                        serde_json::to_string_pretty(manifest).into_diagnostic()?
                    ),
                    None => println!("manifest   unreadable (run `tpuc cache verify`)"),
                }
            }
        }
        CacheCommand::Verify { key, trust_keys } => {
            let trusted = if trust_keys.is_empty() {
                None
            } else {
                Some(TrustedKeys::read(trust_keys)?)
            };
            let report = match (key, &trusted) {
                (Some(key), trusted) => cache.verify_one(&cache.resolve(key)?, trusted.as_ref())?,
                (None, Some(trusted)) => cache.verify_trusted(trusted)?,
                (None, None) => cache.verify()?,
            };
            warn_all(&report.warnings);
            if json {
                print_json(&serde_json::to_value(&report).into_diagnostic()?)?;
            } else {
                println!("{} entries verified ({} signed)", report.ok, report.signed);
                for (key, reason) in &report.corrupt {
                    println!("corrupt {key}: {reason}");
                }
                for (key, reason) in &report.untrusted {
                    println!("untrusted {key}: {reason}");
                }
            }
            if !report.corrupt.is_empty() {
                return Ok(std::process::ExitCode::from(crate::exit::CACHE_CORRUPT));
            }
            if !report.untrusted.is_empty() {
                return Ok(std::process::ExitCode::from(crate::exit::CACHE_UNTRUSTED));
            }
        }
        CacheCommand::Gc { max_size } => {
            let report = cache.gc(*max_size)?;
            warn_all(&report.warnings);
            if json {
                print_json(&serde_json::to_value(&report).into_diagnostic()?)?;
            } else {
                println!(
                    "removed {} entries ({}), kept {} ({}), deleted {} left-overs",
                    report.removed_entries,
                    human_size(report.removed_bytes),
                    report.kept_entries,
                    human_size(report.kept_bytes),
                    report.removed_debris
                );
            }
        }
        CacheCommand::Stats => {
            let stats = cache.stats()?;
            warn_all(&stats.warnings);
            if json {
                print_json(&serde_json::to_value(&stats).into_diagnostic()?)?;
            } else {
                println!("root          {}", stats.root.display());
                println!(
                    "entries       {} ({})",
                    stats.entries,
                    human_size(stats.entry_bytes)
                );
                println!(
                    "modules       {} ({})",
                    stats.modules,
                    human_size(stats.module_bytes)
                );
                println!("front-end keys {}", stats.frontend_keys);
                println!("quarantined   {}", stats.quarantined);
                println!("temporary     {}", stats.temporary);
            }
        }
        CacheCommand::Export(export) => {
            let size = crate::cache_export::run(&cache, export)?;
            if json {
                print_json(&serde_json::json!({
                    "output": export.output(),
                    "size": size,
                }))?;
            } else {
                println!("wrote {} ({})", export.output().display(), human_size(size));
            }
        }
        CacheCommand::Rm { key } => {
            let key = cache.resolve(key)?;
            cache.remove(&key)?;
            if json {
                print_json(&serde_json::json!({ "removed": key }))?;
            } else {
                println!("removed {key}");
            }
        }
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// `tpuc cache keygen FILE`: the secret key to FILE (0600, never over an existing file), the
/// public key to FILE.pub; prints the public half only.
fn keygen(file: &std::path::Path, json: bool) -> Result<std::process::ExitCode> {
    let mut public_file = file.as_os_str().to_owned();
    public_file.push(".pub");
    let public_file = PathBuf::from(public_file);
    if public_file.exists() {
        return Err(miette::miette!(
            help = "choose another FILE, or remove the old key pair first",
            "{} exists already",
            public_file.display()
        ));
    }
    let secret = SecretKey::generate()?;
    let public = secret.public_key();
    secret.write_new(file)?;
    tpuc_driver::write_atomically(&public_file, public.to_pem().as_bytes())?;
    if json {
        print_json(&serde_json::json!({
            "secret_key": file,
            "public_key": public_file,
            "key_id": public.id(),
        }))?;
    } else {
        println!("secret key {} (keep it private)", file.display());
        println!("public key {}", public_file.display());
        println!("key id     {}", public.id());
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// What a maintenance command refused to follow, on stderr.
fn warn_all(warnings: &[String]) {
    for warning in warnings {
        eprintln!("warning: {warning}");
    }
}

fn summary(entry: &EntryInfo) -> serde_json::Value {
    serde_json::json!({
        "key": entry.key,
        "target": entry.manifest.as_ref().map(|m| m.target.clone()),
        "model": entry.manifest.as_ref().and_then(|m| m.model.clone()),
        "created_unix": entry.manifest.as_ref().map(|m| m.created_unix),
        "path": entry.path,
        "size": entry.size,
        "last_used_unix": entry.last_used_unix,
    })
}
