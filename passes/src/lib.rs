//! The middle end: passes over a [`Program`](tpuc_ir::Program), and the pipeline that runs
//! them. [`PipelineRequest::spec`] builds every command's pipeline ([`PipelineSpec`]: the
//! simplification passes `canonicalize` (folds and rewrite patterns), `fold`, `cse`, `dce`
//! and `prune-args`; `chlo-legalize`, which rewrites CHLO ops into StableHLO; fusion into
//! composites and kernel substitution ([`fusion`]); sharding plans and Shardy-style
//! propagation ([`sharding`])), and [`PipelineSpec::run`] runs it with verification, timing
//! and IR dumps. [`rewrite`] is the greedy pattern rewriter the passes share.
//!
//! ```
//! let spec = tpuc_passes::PipelineSpec::parse("canonicalize, cse,dce").unwrap();
//! assert_eq!(spec.canonical_text().unwrap(), "canonicalize,cse,dce");
//! ```

mod autodiff;
mod canonicalize;
mod chlo;
mod cse;
mod dce;
mod error;
mod evaluate;
mod fusion;
mod kv_dtype;
mod optimizer;
mod pass;
mod pipeline;
mod prune_args;
pub mod rewrite;
pub mod sharding;
mod spec;

pub use chlo::{has_chlo, legalize_chlo};
pub use error::PassError;
pub use fusion::{Kernel, KernelLibrary, composite_counts, names as composite_names};
pub use kv_dtype::KvDtype;
pub use optimizer::{OptimizerSpec, Rule as OptimizerRule, STEP_FQN, STEP_SLOT};
pub use pass::{Pass, PassContext};
pub use pipeline::{PassStat, PipelineReport, RunOptions, op_count};
pub use spec::{
    DEFAULT_PASSES, FUSE_PASSES, Fusion, PassName, PipelineRequest, PipelineSpec, Source, Stage,
};
