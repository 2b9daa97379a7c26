//! `tpuc setup-plugins`: installs the pinned PJRT plugins (XLA:CPU, libtpu) for someone who
//! has the `tpuc` binary (e.g. from `pip install tpuc`) but not the repository. It runs the
//! repository's `scripts/setup-plugins.sh` with `scripts/plugins.lock`, both built into the
//! binary, so the pins, the sha256 checks and the destination are the same.

use std::process::{Command, ExitCode};

use miette::{IntoDiagnostic, Result, WrapErr, miette};

const SCRIPT: &str = include_str!("../../scripts/setup-plugins.sh");
const LOCK: &str = include_str!("../../scripts/plugins.lock");

#[derive(clap::Args)]
pub struct Args {
    /// Which plugins to install (default: both).
    #[arg(value_parser = ["cpu", "tpu"], value_name = "cpu|tpu")]
    plugins: Vec<String>,
    /// Also re-hash the installed libraries and reinstall those that differ.
    #[arg(long)]
    verify: bool,
}

pub fn run(args: &Args) -> Result<ExitCode> {
    let dir = tempfile::tempdir()
        .into_diagnostic()
        .wrap_err("cannot make a temporary directory for the setup script")?;
    let script = dir.path().join("setup-plugins.sh");
    std::fs::write(&script, SCRIPT).into_diagnostic()?;
    std::fs::write(dir.path().join("plugins.lock"), LOCK).into_diagnostic()?;
    let mut command = Command::new("bash");
    command.arg(&script);
    if args.verify {
        command.arg("--verify");
    }
    command.args(&args.plugins);
    let status = command.status().map_err(|error| {
        miette!(
            help = "tpuc setup-plugins needs bash, python3 and pip",
            "cannot run bash: {error}"
        )
    })?;
    Ok(match status.code() {
        Some(0) => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    })
}
