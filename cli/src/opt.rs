//! `tpuc opt`: read StableHLO text (ours, or what JAX, torch_xla or torchax print, CHLO
//! included), verify it, legalize CHLO (unless `--passes` says otherwise) and print it again in
//! the form asked for.

use std::io::Write;
use std::path::PathBuf;

use clap::ValueEnum;
use miette::{IntoDiagnostic, Result, WrapErr};
use tpuc_ir::print::{LocationStyle, PrintOptions};

use crate::passes::PassArgs;

#[derive(clap::Args)]
pub struct Args {
    /// The module to read: MLIR text in the pretty or the generic form.
    input: PathBuf,
    /// The form to print.
    #[arg(long, value_enum, default_value_t = EmitForm::Pretty)]
    emit: EmitForm,
    /// Drop locations from the output.
    #[arg(long)]
    strip_locations: bool,
    /// Write to this file (replaced whole, never left partial) instead of stdout.
    #[arg(short, long, value_name = "OUT.mlir")]
    output: Option<PathBuf>,
    #[command(flatten)]
    passes: PassArgs,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EmitForm {
    /// The readable form, as JAX prints it.
    Pretty,
    /// MLIR's generic operation form (what tpuc hands to the PJRT plugins).
    Generic,
}

pub fn run(args: &Args) -> Result<()> {
    let name = args.input.display().to_string();
    let text = std::fs::read_to_string(&args.input)
        .into_diagnostic()
        .wrap_err_with(|| format!("cannot read `{name}`"))?;
    let (module, spans) =
        tpuc_ir::parse::parse_module_with_spans(&text).map_err(|e| e.with_source(&name, &text))?;
    tpuc_ir::verify(&module)
        .map_err(|e| e.with_module_text(&name, &text, &spans).with_user_sources())?;
    let mut program = tpuc_ir::Program::from_module(module)?;
    let report = args
        .passes
        .request(Some("tpu"))?
        .spec(tpuc_passes::Source::Opt)
        .run(&mut program, &args.passes.run_options())?;
    let module = program.module;
    args.passes.print_report(&report);
    let options = PrintOptions::with_locations(if args.strip_locations {
        LocationStyle::Strip
    } else {
        LocationStyle::Aliases
    });
    let printed = match args.emit {
        EmitForm::Pretty => tpuc_ir::print::pretty(&module, &options),
        EmitForm::Generic => tpuc_ir::print::generic(&module, &options),
    };
    match &args.output {
        Some(path) => tpuc_driver::write_atomically(path, printed.as_bytes())?,
        None => std::io::stdout()
            .lock()
            .write_all(printed.as_bytes())
            .into_diagnostic()?,
    }
    Ok(())
}
