//! IR quality against torch_xla: for every archive of the peer comparison set
//! (`../shared/peers/models`, both `<name>.pt2` as exported and `<name>.core.pt2`), the StableHLO
//! ops tpuc emits against the ops torch_xla emitted for the same program
//! (`../shared/peers/torch_xla/<name>.mlir`), both counted by [`OpCounts`]. The goal is a ratio
//! of at most 0.8 on every row.
//!
//!     cargo bench -p tpuc-benches --bench ir_quality [-- --verbose]
//!
//! `--verbose` adds, per row, the ops of each name. Exits non-zero if a model fails to lower.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use tpuc_benches::op_count::OpCounts;
use tpuc_benches::peers_dir;
use tpuc_driver::{Emit, LowerOptions};

const GOAL: f64 = 0.8;

/// One archive of the comparison set.
struct Archive {
    model: String,
    dialect: &'static str,
    path: PathBuf,
}

/// The archives of `models`, by model name, as exported before core.
fn archives(models: &Path) -> Vec<Archive> {
    let mut archives: Vec<Archive> = std::fs::read_dir(models)
        .expect("reads the models directory")
        .map(|entry| entry.expect("directory entry").path())
        .filter_map(|path| {
            let stem = path.file_name()?.to_str()?.strip_suffix(".pt2")?.to_owned();
            let (model, dialect) = match stem.strip_suffix(".core") {
                Some(model) => (model.to_owned(), "core"),
                None => (stem, "as exported"),
            };
            Some(Archive {
                model,
                dialect,
                path,
            })
        })
        .collect();
    archives.sort_by(|a, b| (&a.model, a.dialect == "core").cmp(&(&b.model, b.dialect == "core")));
    archives
}

/// Per op name: torch_xla's count, tpuc's, and the difference.
fn print_breakdown(torch_xla: &OpCounts, tpuc: &OpCounts) {
    let names: BTreeSet<&String> = torch_xla
        .by_name()
        .keys()
        .chain(tpuc.by_name().keys())
        .collect();
    for name in names {
        let (theirs, ours) = (torch_xla.get(name), tpuc.get(name));
        let delta = ours as isize - theirs as isize;
        println!("    {name:<34} {theirs:>9} {ours:>6} {delta:>+6}");
    }
}

fn main() -> ExitCode {
    let verbose = std::env::args().any(|arg| arg == "--verbose");
    let Some(peers) = peers_dir() else {
        println!("skipped: no peer comparison set at ../shared/peers (beside the checkout)");
        return ExitCode::SUCCESS;
    };
    let options = LowerOptions::default();
    let mut failed = false;
    let mut worst: f64 = 0.0;
    println!(
        "{:<10} {:<12} {:>9} {:>6} {:>6}",
        "model", "dialect", "torch_xla", "tpuc", "ratio"
    );
    for archive in archives(&peers.join("models")) {
        let reference = peers
            .join("torch_xla")
            .join(format!("{}.mlir", archive.model));
        let Ok(reference) = std::fs::read_to_string(&reference) else {
            println!(
                "{:<10} {:<12} no torch_xla text",
                archive.model, archive.dialect
            );
            continue;
        };
        let torch_xla = OpCounts::of(&reference);
        let lowered = match tpuc_driver::lower(&archive.path, &options) {
            Ok(lowered) => lowered,
            Err(error) => {
                println!(
                    "{:<10} {:<12} fails to lower: {error}",
                    archive.model, archive.dialect
                );
                failed = true;
                continue;
            }
        };
        let tpuc = OpCounts::of(&lowered.text(Emit::Stablehlo));
        let ratio = tpuc.total() as f64 / torch_xla.total() as f64;
        worst = worst.max(ratio);
        println!(
            "{:<10} {:<12} {:>9} {:>6} {:>6.2}",
            archive.model,
            archive.dialect,
            torch_xla.total(),
            tpuc.total(),
            ratio
        );
        if verbose {
            print_breakdown(&torch_xla, &tpuc);
        }
    }
    println!(
        "worst ratio {worst:.2} (goal at most {GOAL}): {}",
        if worst <= GOAL { "met" } else { "not met" }
    );
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
