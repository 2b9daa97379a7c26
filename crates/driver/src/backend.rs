//! The back end: StableHLO text compiled by a target's PJRT plugin (libtpu ahead of time for a
//! TPU topology, XLA:CPU for its devices).

use std::path::Path;
use std::time::{Duration, Instant};

use tpuc_pjrt::{CompileOptions, Executable, ExecutableReport, Plugin, Program};

use crate::error::{DriverError, Result};
use crate::plugins::PluginPaths;
use crate::runtime::device_options;
use crate::target::Target;

/// Compiles StableHLO text (either form) for `target` without touching the cache: the time the
/// plugin's compile call took (not loading the plugin, nor opening a topology or client) and
/// what the plugin reports about the executable. For benchmarks of the compiler itself. A
/// sharded module compiles over its `mhlo.num_partitions` devices.
pub fn compile_module_report(
    module_text: &str,
    target: &Target,
    plugins: &PluginPaths,
) -> Result<(Duration, ExecutableReport)> {
    let plugin = plugins.locate(target.plugin_kind())?;
    // A sharded module says over how many devices (`mhlo.num_partitions`), a program with
    // collectives how many ranks run it (`mhlo.num_replicas`).
    let module = tpuc_ir::parse::parse_module(module_text).ok();
    let count =
        |of: fn(&tpuc_ir::Module) -> Option<u32>| module.as_ref().and_then(of).map_or(1, u64::from);
    let options = device_options(count(|m| m.num_partitions), count(|m| m.num_replicas));
    let (executable, compile_time) = compile_executable(&plugin, target, module_text, &options)?;
    let report = executable.report().map_err(DriverError::pjrt(
        "reading the executable's memory and cost",
    ))?;
    Ok((compile_time, report))
}

/// Compiles the module text for `target`: the executable, and the time the compile call took.
pub(crate) fn compile_executable(
    plugin_path: &Path,
    target: &Target,
    text: &str,
    options: &CompileOptions,
) -> Result<(Executable, Duration)> {
    let plugin = Plugin::load(plugin_path).map_err(DriverError::pjrt("loading the PJRT plugin"))?;
    let program = Program::mlir(text);
    match target {
        Target::Tpu { topology } => {
            let topology = plugin
                .topology(topology)
                .map_err(DriverError::pjrt("describing the TPU topology"))?;
            let started = Instant::now();
            let executable = topology
                .compile(&program, options)
                .map_err(DriverError::pjrt("compiling the module with libtpu"))?;
            Ok((executable, started.elapsed()))
        }
        Target::Cpu { devices } => {
            let client = plugin
                .cpu_client(*devices)
                .map_err(DriverError::pjrt("opening an XLA:CPU client"))?;
            let started = Instant::now();
            let loaded = client
                .compile(&program, options)
                .map_err(DriverError::pjrt("compiling the module on XLA:CPU"))?;
            let compile_time = started.elapsed();
            let executable = loaded
                .executable()
                .map_err(DriverError::pjrt("reading the compiled executable"))?;
            Ok((executable, compile_time))
        }
    }
}
