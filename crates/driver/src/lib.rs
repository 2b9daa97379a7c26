//! What the `tpuc` commands call: the front end (read a `.pt2` archive and lower it, or read
//! StableHLO text), the middle end (the pipeline the options ask for), compiling through the
//! cache for each target's PJRT plugin, running on XLA:CPU, and the reports.
//!
//! ```no_run
//! use tpuc_driver::{Input, Options, Runtime};
//! let runtime = Runtime::cpu(None)?;
//! let inputs = [Input::read("mlp.in0.npy")?];
//! let run = tpuc_driver::run(&runtime, "mlp.pt2".as_ref(), &inputs, &Options::default())?;
//! let out0 = run.outputs[0].to_npy().expect("float32 output");
//! # Ok::<(), tpuc_driver::DriverError>(())
//! ```

mod backend;
mod blocks;
mod compare;
pub mod compile;
mod debug;
mod emit;
mod entry;
mod error;
mod files;
mod frontend;
mod frontend_cache;
pub mod fx;
mod generate;
mod jax_envelope;
mod keys;
mod lower;
mod middle;
mod options;
mod parallel;
mod parameters;
pub mod plugins;
pub mod prewarm;
mod record;
mod run;
mod runtime;
mod shapes;
mod shard_auto;
mod shard_io;
mod signature;
pub mod target;
mod tensor;
mod tiers;
mod train;

pub use backend::compile_module_report;
pub use compare::{Comparison, Tolerance, compare, nans, position};
pub use compile::{
    CachedRun, CompileReport, Compiled, LoadedRun, ShapeCompile, compile, compile_shapes,
    family_key, load_cached, run_cached,
};
pub use emit::{Emit, fx_graph};
pub use error::{DriverError, InputMismatch, MlirParseError, NonFinite, Result};
pub use files::{write_all_atomically, write_atomically};
pub use frontend::{ProgramSource, is_mlir};
pub use generate::{GenerateRequest, Generated, generate};
pub use jax_envelope::jax_envelope;
pub use keys::{Keys, TargetKey, cached_key, keys};
pub use lower::{Lowered, emit, lower, lower_dynamic};
pub use middle::{Built, build, build_dynamic};
pub use options::Options;
pub use plugins::PluginPaths;
pub use record::module_record;
pub use run::{Input, Prepared, RunOutput, output_path, prepare, run};
pub use runtime::{Executable, Runtime};
pub use shapes::{DimName, DimSizes, axis_names, parse_shape, smallest_bucket, specialisations};
pub use shard_auto::{AutoShard, Candidate, Estimate, choose as choose_shard};
pub use shard_io::{Layout, Placement};
pub use signature::{ArgumentBinding, ResultBinding, bindings};
pub use target::Target;
pub use tensor::{HostTensor, npy_dtype, npy_dtype_for_input};
pub use tiers::{CacheTiers, Found, Origin, error_chain};
pub use tpuc_ir::{ArgumentRole, CheckKind, Interface, Program, ResultRole};
pub use tpuc_lower::{LowerError, LowerOptions, SourceLine};
pub use tpuc_pjrt::{CostAnalysis, ExecutableReport, MemoryStats, show_plugin_logs};
pub use train::{TrainRequest, Trained, TrainedTensor, batch_path, train};
