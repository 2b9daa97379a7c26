//! What a command asks of the compiler: how to lower, which pipeline, how to run it.

use tpuc_lower::LowerOptions;
use tpuc_passes::{PipelineRequest, RunOptions};

use crate::target::Target;

#[derive(Clone, Debug, Default)]
pub struct Options {
    /// How the front end lowers a `.pt2` program (ignored for `.mlir`).
    pub lower: LowerOptions,
    /// What the middle end runs: passes, fusion, kernels, sharding.
    pub pipeline: PipelineRequest,
    /// Verification, IR dumps: not part of any key.
    pub run: RunOptions,
    /// `tpuc run` of a `.mlir` program: the archive its weights are read from, or a
    /// directory of `NAME.npy` files.
    pub weights: Option<std::path::PathBuf>,
    /// `--parameters`: for StableHLO text whose `main` carries no roles (JAX's), the arguments
    /// (by `jax.arg_info` name, `argN` or position) that are trained parameters.
    pub parameters: Vec<String>,
}

impl Options {
    /// The options for `target`: a sharding plan learns the target's device count.
    pub fn for_target(&self, target: &Target) -> Options {
        let mut options = self.clone();
        if let Some(request) = &self.pipeline.sharding {
            options.pipeline.sharding = Some(request.for_devices(target.devices()));
        }
        options
    }
}
