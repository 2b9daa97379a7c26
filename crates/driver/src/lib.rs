//! The compiler pipeline behind the `tpuc` commands: open an archive, lower it to StableHLO,
//! print it, compile and run it on XLA:CPU with `.npy` inputs, compare with expected outputs.
//!
//! ```no_run
//! use tpuc_driver::{Input, LowerOptions, Runtime};
//! let runtime = Runtime::cpu(None)?;
//! let inputs = [Input::read("mlp.in0.npy")?];
//! let run = tpuc_driver::run(&runtime, "mlp.pt2".as_ref(), &inputs, &LowerOptions::default())?;
//! let out0 = run.outputs[0].to_npy().expect("float32 output");
//! # Ok::<(), tpuc_driver::DriverError>(())
//! ```

mod compare;
pub mod compile;
mod debug;
mod emit;
mod error;
mod files;
pub mod fx;
mod jax_envelope;
mod lower;
pub mod mlir;
mod parallel;
pub mod prewarm;
mod run;
mod runtime;
mod shapes;
mod shard_io;
mod tensor;
mod tiers;

pub use compare::{Comparison, Tolerance, compare};
pub use compile::{
    CachedRun, CompileReport, Compiled, Keys, PluginPaths, ShapeCompile, Target, TargetKey,
    compile, compile_module_report, compile_shapes, family_key, keys, run_cached,
};
pub use emit::{Emit, fx_graph};
pub use error::{DriverError, InputMismatch, MlirParseError, NonFinite, Result};
pub use files::{write_all_atomically, write_atomically};
pub use jax_envelope::jax_envelope;
pub use lower::{Lowered, emit, lower, lower_dynamic};
pub use run::{Input, Prepared, RunOutput, output_path, prepare, run};
pub use runtime::{Executable, Runtime};
pub use shapes::{DimName, DimSizes, axis_names, parse_shape, smallest_bucket, specialisations};
pub use shard_io::{Layout, Placement};
pub use tensor::{HostTensor, npy_dtype, npy_dtype_for_input};
pub use tiers::{CacheTiers, Found, Origin, error_chain};
pub use tpuc_lower::{
    ArgumentBinding, ArgumentSource, LowerError, LowerOptions, ResultBinding, ResultSource,
    SourceLine,
};
pub use tpuc_pjrt::{CostAnalysis, ExecutableReport, MemoryStats, show_plugin_logs};
