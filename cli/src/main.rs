//! `tpuc`: the command-line front end. Parses arguments, calls the compiler crates and renders
//! their results; no compiler logic lives here.

mod age;
mod cache;
mod cache_export;
mod compile;
mod diagnostics;
mod exit;
mod generate;
mod inspect;
mod key;
mod lower;
mod opt;
mod output_files;
mod passes;
mod prewarm;
mod render;
mod run;
mod setup_plugins;
mod targets;
mod train;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use tpuc_driver::fx;

/// A standalone compiler from PyTorch `torch.export` programs to TPUs.
#[derive(Parser)]
#[command(name = "tpuc", version, about, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Show more: the plugins' log lines, and the call chain of the nodes a diagnostic names.
    #[arg(short, long, global = true)]
    verbose: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Summarise an exported program: signature, weights, outputs, ops and subgraphs.
    Inspect {
        /// The `.pt2` archive written by `torch.export.save`.
        model: PathBuf,
        /// Also list every node with its arguments and the user's source line.
        #[arg(long)]
        graph: bool,
        /// Also lower the program with `--fuse` and count its composites of each kind.
        #[arg(long)]
        composites: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Lower a program to StableHLO and print it (or its FX graph).
    Lower(lower::Args),
    /// Parse, verify and reprint a StableHLO module (pretty or generic MLIR text).
    Opt(opt::Args),
    /// Compile a program for TPU topologies or XLA:CPU into the compile cache.
    Compile(compile::Args),
    /// Print a program's front-end key and compile keys without compiling.
    Key(key::Args),
    /// Compile a plan's models, shapes and targets into the cache ahead of time.
    Prewarm(prewarm::Args),
    /// List the PJRT plugins found, their versions, and the targets they compile for.
    Targets(targets::Args),
    /// Inspect and maintain the compile cache.
    Cache(cache::Args),
    /// Compile a program for XLA:CPU, run it on `.npy` inputs and write its outputs.
    Run(run::Args),
    /// Train: run optimizer steps of a program's loss on XLA:CPU and write the parameters.
    Train(train::Args),
    /// Generate: greedy-decode a prompt with a static-KV-cache decode step on XLA:CPU.
    Generate(generate::Args),
    /// Install the pinned PJRT plugins (XLA:CPU, libtpu) from PyPI wheels, checked by sha256.
    SetupPlugins(setup_plugins::Args),
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

fn main() -> ExitCode {
    let matches = <Cli as clap::CommandFactory>::command().get_matches();
    let json_errors = asks_for_json(&matches);
    let cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => error.exit(),
    };
    tpuc_driver::show_plugin_logs(cli.verbose);
    let verbose = cli.verbose;
    let result = match cli.command {
        Command::Inspect {
            model,
            graph,
            composites,
            format,
        } => inspect::run(&model, graph, composites, format).map(|()| ExitCode::SUCCESS),
        Command::Lower(args) => lower::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Run(args) => run::run(&args),
        Command::Train(args) => train::run(&args),
        Command::Generate(args) => generate::run(&args),
        Command::Compile(args) => compile::run(&args),
        Command::Key(args) => key::run(&args),
        Command::Prewarm(args) => prewarm::run(&args),
        Command::Targets(args) => targets::run(&args).map(|()| ExitCode::SUCCESS),
        Command::Cache(args) => cache::run(&args),
        Command::Opt(args) => opt::run(&args).map(|()| ExitCode::SUCCESS),
        Command::SetupPlugins(args) => setup_plugins::run(&args),
    };
    match result {
        Ok(code) => code,
        Err(report) => {
            diagnostics::print(&report, json_errors, verbose);
            ExitCode::FAILURE
        }
    }
}

/// Whether the (innermost) subcommand was given `--format json`, so errors are JSON too.
fn asks_for_json(matches: &clap::ArgMatches) -> bool {
    let mut matches = matches;
    while let Some((_, sub)) = matches.subcommand() {
        matches = sub;
    }
    matches
        .try_get_one::<Format>("format")
        .ok()
        .flatten()
        .is_some_and(|format| *format == Format::Json)
}
