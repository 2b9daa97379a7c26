//! `tpuc cache export`: one cached executable as a file another runtime loads: the bytes
//! `PJRT_Executable_DeserializeAndLoad` takes, or the envelope jaxlib's
//! `Client.deserialize_executable` takes.

use std::path::PathBuf;

use clap::ValueEnum;
use miette::{Result, miette};
use tpuc_cache::{Cache, Lookup};

#[derive(clap::Args)]
pub struct ExportArgs {
    /// The entry's key, or a unique prefix of it (4 or more hex digits).
    key: String,
    /// Who loads the file.
    #[arg(long = "for", value_enum, value_name = "RUNTIME")]
    runtime: Runtime,
    /// The file to write (replaced whole, never left partial).
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Runtime {
    /// jaxlib: `backend.deserialize_executable(bytes)` (metadata envelope + PJRT bytes).
    Jax,
    /// Any PJRT client: the bytes `PJRT_Executable_Serialize` returned.
    Pjrt,
}

impl ExportArgs {
    pub fn output(&self) -> &std::path::Path {
        &self.output
    }
}

/// Writes the verified entry `key`, in the form `args` asks for; the size written.
pub fn run(cache: &Cache, args: &ExportArgs) -> Result<u64> {
    let key = cache.resolve(&args.key)?;
    let hit = match cache.lookup(&key)? {
        Lookup::Hit(hit) => hit,
        Lookup::Miss => {
            return Err(miette!(
                help = "`tpuc cache ls` lists the entries; `tpuc key MODEL --target T` prints a model's key",
                "no cache entry {key}"
            ));
        }
        Lookup::Corrupt { path, reason } => {
            return Err(miette!(
                help = "compile the model again to replace it",
                "the entry {key} is corrupt ({reason}); it was not exported (at {})",
                path.display()
            ));
        }
    };
    let bytes = match args.runtime {
        Runtime::Jax => tpuc_driver::jax_envelope(&hit.envelope.manifest.signature, &hit.payload)?,
        Runtime::Pjrt => hit.payload,
    };
    tpuc_driver::write_atomically(&args.output, &bytes)?;
    Ok(bytes.len() as u64)
}
