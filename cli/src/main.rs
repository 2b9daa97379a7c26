//! `tpuc`: the command-line front end. Parses arguments, calls the compiler crates and renders
//! their results; no compiler logic lives here.

mod fx;
mod inspect;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

/// A standalone compiler from PyTorch `torch.export` programs to TPUs.
#[derive(Parser)]
#[command(name = "tpuc", version, about, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Inspect {
            model,
            graph,
            format,
        } => inspect::run(&model, graph, format),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(report) => {
            eprintln!("{report:?}");
            ExitCode::FAILURE
        }
    }
}
