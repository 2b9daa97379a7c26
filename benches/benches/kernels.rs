//! Attention with and without the shipped Pallas flash-attention kernels, as libtpu's cost model
//! sees it: for each TPU kernel of `kernels/tpu`, the attention it implements (written as tpuc's
//! lowering writes `scaled_dot_product_attention`, then fused) is compiled for `tpu:v5e:1x1`
//! twice, with the composite kept (XLA inlines its plain StableHLO decomposition) and with the
//! kernel substituted, and libtpu's `bytes accessed`, `flops` and `optimal_seconds` are printed
//! side by side.
//!
//!     cargo bench -p tpuc-benches --bench kernels
//!
//! Exits non-zero if a module fails to compile or the kernel does not access fewer bytes.

use std::path::Path;
use std::process::ExitCode;

use tpuc_driver::{CostAnalysis, PluginPaths, Target};
use tpuc_passes::{Fusion, KernelLibrary, PipelineRequest, RunOptions, Source};
use tpuc_testkit::attention::Attention;

fn cost(
    text: &str,
    kernels: Option<&KernelLibrary>,
    target: &Target,
) -> Result<CostAnalysis, String> {
    let module = tpuc_ir::parse::parse_module(text).map_err(|e| format!("{e:?}"))?;
    let mut program = tpuc_ir::Program::from_module(module).map_err(|e| e.to_string())?;
    let request = PipelineRequest {
        fusion: Fusion::Fuse,
        kernels: kernels.cloned(),
        ..PipelineRequest::default()
    };
    let report = request
        .spec(Source::Archive)
        .run(&mut program, &RunOptions::default())
        .map_err(|e| e.to_string())?;
    let module = program.module;
    if kernels.is_some() && report.kernels.values().sum::<usize>() != 1 {
        return Err("the kernel did not replace the composite".to_owned());
    }
    let text = tpuc_ir::print::generic(&module, &Default::default());
    let (_, report) = tpuc_driver::compile_module_report(&text, target, &PluginPaths::default())
        .map_err(|e| e.to_string())?;
    report.cost.ok_or_else(|| "no cost analysis".to_owned())
}

fn show(x: Option<f64>) -> String {
    x.map_or_else(|| "unknown".to_owned(), |v| format!("{v:.4e}"))
}

fn main() -> ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let library = match KernelLibrary::load(&root.join("kernels/tpu"), "tpu") {
        Ok(library) => library,
        Err(error) => {
            eprintln!("{error}");
            return ExitCode::FAILURE;
        }
    };
    let target: Target = "tpu:v5e:1x1".parse().expect("a known target");
    println!(
        "{:<46} {:>12} {:>12} {:>7} {:>11} {:>11} {:>12} {:>12}",
        "attention (tpu:v5e:1x1)",
        "bytes plain",
        "bytes kernel",
        "ratio",
        "flops plain",
        "flops kern.",
        "optimal s pl.",
        "optimal s k."
    );
    let mut ok = true;
    for kernel in &library.kernels {
        let attention = Attention::of(kernel);
        let text = attention.module();
        match (
            cost(&text, None, &target),
            cost(&text, Some(&library), &target),
        ) {
            (Ok(plain), Ok(with)) => {
                let ratio = match (with.bytes_accessed, plain.bytes_accessed) {
                    (Some(w), Some(p)) => w / p,
                    _ => f64::NAN,
                };
                ok &= ratio < 1.0;
                println!(
                    "{:<46} {:>12} {:>12} {:>7.3} {:>11} {:>11} {:>12} {:>12}",
                    kernel.name,
                    show(plain.bytes_accessed),
                    show(with.bytes_accessed),
                    ratio,
                    show(plain.flops),
                    show(with.flops),
                    show(plain.optimal_seconds),
                    show(with.optimal_seconds)
                );
            }
            (plain, with) => {
                ok = false;
                println!(
                    "{}: plain {:?}, kernel {:?}",
                    kernel.name,
                    plain.err(),
                    with.err()
                );
            }
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
