//! Passes over a StableHLO [`Module`](tpuc_ir::Module): the pass manager ([`Pipeline`]), the
//! greedy pattern rewriter ([`rewrite`]) and the simplification passes: `canonicalize`
//! (folds and rewrite patterns), `fold` (constant folding alone), `cse`, `dce` and `prune-args`;
//! `chlo-legalize`, which rewrites CHLO ops into StableHLO; and `sharding-propagate`
//! ([`sharding`]), Shardy-style sharding propagation.
//!
//! ```
//! let pipeline = tpuc_passes::Pipeline::parse("canonicalize,cse,dce").unwrap();
//! assert_eq!(pipeline.to_string(), "canonicalize,cse,dce");
//! ```

mod canonicalize;
mod chlo;
mod cse;
mod dce;
mod error;
mod fusion;
mod pass;
mod pipeline;
mod prune_args;
pub mod rewrite;
pub mod sharding;

pub use chlo::has_chlo;
pub use error::PassError;
pub use fusion::{Kernel, KernelLibrary, composite_counts, names as composite_names};
pub use pass::{Pass, PassContext};
pub use pipeline::{
    DEFAULT_PIPELINE, FUSE_PASSES, MLIR_INPUT_PASSES, PassOptions, PassStat, Pipeline,
    PipelineReport, RunOptions, op_count, without_fusion,
};
