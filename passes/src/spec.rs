//! The pipeline as data: which passes run, in which order, configured how. Every command
//! builds its pipeline with [`PipelineRequest::spec`]; the spec's canonical text
//! ([`PipelineSpec::canonical_text`]) is what cache keys hash, so equivalent requests give one
//! key.

use std::fmt;

use crate::error::PassError;
use crate::fusion::{KernelLibrary, SubstituteKernels};
use crate::kv_dtype::{KvDtype, NarrowState};
use crate::optimizer::{OptimizerSpec, Train};
use crate::pass::Pass;
use crate::sharding::{Shard, ShardRequest};

/// A pass that needs no configuration, by the name pipelines give it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PassName {
    ChloLegalize,
    Canonicalize,
    Fold,
    Evaluate,
    Cse,
    Dce,
    PruneArgs,
    ShardingPropagate,
    Fuse,
    InlineComposites,
    Autodiff,
}

impl PassName {
    /// Every pass, in the order `--help` lists them.
    pub const ALL: [PassName; 11] = [
        PassName::ChloLegalize,
        PassName::Canonicalize,
        PassName::Fold,
        PassName::Evaluate,
        PassName::Cse,
        PassName::Dce,
        PassName::PruneArgs,
        PassName::ShardingPropagate,
        PassName::Fuse,
        PassName::InlineComposites,
        PassName::Autodiff,
    ];

    pub fn name(self) -> &'static str {
        self.pass().name()
    }

    pub fn from_name(name: &str) -> Option<PassName> {
        PassName::ALL.into_iter().find(|pass| pass.name() == name)
    }

    /// `name,name,...` (spaces around names and empty entries are ignored): `--passes`.
    pub fn parse_list(text: &str) -> Result<Vec<PassName>, PassError> {
        text.split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(|name| {
                PassName::from_name(name).ok_or_else(|| PassError::UnknownPass {
                    name: name.to_owned(),
                    pipeline: text.to_owned(),
                    known: PassName::ALL.map(PassName::name).join(", "),
                })
            })
            .collect()
    }

    fn pass(self) -> Box<dyn Pass> {
        match self {
            PassName::ChloLegalize => Box::new(crate::chlo::ChloLegalize),
            PassName::Canonicalize => Box::new(crate::canonicalize::Canonicalize),
            PassName::Fold => Box::new(crate::canonicalize::Fold),
            PassName::Evaluate => Box::new(crate::evaluate::Evaluate),
            PassName::Cse => Box::new(crate::cse::Cse),
            PassName::Dce => Box::new(crate::dce::Dce),
            PassName::PruneArgs => Box::new(crate::prune_args::PruneArgs),
            PassName::ShardingPropagate => Box::new(crate::sharding::ShardingPropagate),
            PassName::Fuse => Box::new(crate::fusion::Fuse),
            PassName::InlineComposites => Box::new(crate::fusion::InlineComposites),
            PassName::Autodiff => Box::new(crate::autodiff::Differentiate),
        }
    }
}

/// The simplification passes every command runs unless `--passes` says otherwise.
pub const DEFAULT_PASSES: [PassName; 7] = [
    PassName::Canonicalize,
    PassName::Evaluate,
    PassName::Cse,
    PassName::Canonicalize,
    PassName::Cse,
    PassName::Dce,
    PassName::PruneArgs,
];

/// What fusion adds: outlining composites, then erasing what they left dead.
pub const FUSE_PASSES: [PassName; 2] = [PassName::Fuse, PassName::Dce];

/// One step of a pipeline.
#[derive(Clone, Debug)]
pub enum Stage {
    Pass(PassName),
    /// Kernel substitution with a library (`--kernels`).
    Kernels(KernelLibrary),
    /// A sharding plan over a target's devices (`--shard`).
    Shard(ShardRequest),
    /// A training step: gradients of the loss, then the optimizer's update (`--optimizer`).
    Train(OptimizerSpec),
    /// The KV cache stored in a narrower type (`--kv-dtype`).
    KvDtype(KvDtype),
}

impl Stage {
    pub(crate) fn pass(&self) -> Box<dyn Pass> {
        match self {
            Stage::Pass(name) => name.pass(),
            Stage::Kernels(library) => Box::new(SubstituteKernels {
                library: library.clone(),
            }),
            Stage::Shard(request) => Box::new(Shard {
                request: request.clone(),
            }),
            Stage::Train(spec) => Box::new(Train { spec: spec.clone() }),
            Stage::KvDtype(dtype) => Box::new(NarrowState { dtype: *dtype }),
        }
    }

    /// The stage in the canonical text: its name, and what configures it in parentheses.
    fn canonical_text(&self) -> Result<String, PassError> {
        Ok(match self {
            Stage::Pass(name) => name.name().to_owned(),
            Stage::Kernels(library) => format!("kernels({})", library.digest()),
            Stage::Shard(request) => format!("shard({})", request.key_text()?),
            Stage::Train(spec) => format!("train({spec})"),
            Stage::KvDtype(dtype) => format!("kv-dtype({dtype})"),
        })
    }
}

/// A pipeline: stages in order.
#[derive(Clone, Debug, Default)]
pub struct PipelineSpec {
    pub stages: Vec<Stage>,
}

impl PipelineSpec {
    /// The pipeline of these passes alone.
    pub fn of_passes(passes: &[PassName]) -> Self {
        PipelineSpec {
            stages: passes.iter().copied().map(Stage::Pass).collect(),
        }
    }

    /// [`PassName::parse_list`] as a pipeline.
    pub fn parse(text: &str) -> Result<Self, PassError> {
        Ok(Self::of_passes(&PassName::parse_list(text)?))
    }

    /// The text keys hash: one line, the stages separated by commas, a configured stage with
    /// the digest of its configuration (`kernels(<sha256>)`, `shard(<plan>)`).
    pub fn canonical_text(&self) -> Result<String, PassError> {
        let stages = self
            .stages
            .iter()
            .map(Stage::canonical_text)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(stages.join(","))
    }
}

impl fmt::Display for PipelineSpec {
    /// The stages' names (`kernels`, `shard` without their configuration).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.stages.iter().map(|s| s.pass().name()).collect();
        f.write_str(&names.join(","))
    }
}

/// Where a program comes from, which decides what runs first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Lowered from a `.pt2` archive: StableHLO only.
    Archive,
    /// StableHLO text from any producer (JAX, torch_xla, `tpuc lower`): CHLO is legalized first.
    Text,
    /// `tpuc opt`: CHLO legalization alone unless `--passes` says otherwise.
    Opt,
}

/// Whether to outline composites.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fusion {
    /// As the passes say (the default pipeline does not fuse).
    #[default]
    AsListed,
    /// `--fuse`: fusion is appended unless the passes already fuse.
    Fuse,
    /// `--no-fuse`: every `fuse` is dropped.
    NoFuse,
}

/// What a command asks of the middle end.
#[derive(Clone, Debug, Default)]
pub struct PipelineRequest {
    /// `--passes`; `None`: [`DEFAULT_PASSES`].
    pub passes: Option<Vec<PassName>>,
    pub fusion: Fusion,
    /// `--kernels` (implies fusion).
    pub kernels: Option<KernelLibrary>,
    /// `--shard`, for the target's device count.
    pub sharding: Option<ShardRequest>,
    /// `--optimizer`: the program becomes one training step.
    pub optimizer: Option<OptimizerSpec>,
    /// `--kv-dtype`: the cache a decode step updates in place, stored narrower.
    pub kv_dtype: Option<KvDtype>,
}

impl PipelineRequest {
    /// The one place a pipeline is built: the source's first passes, the simplification passes
    /// (`--passes` or the default), fusion, kernels, then sharding and its propagation.
    pub fn spec(&self, source: Source) -> PipelineSpec {
        let mut passes = Vec::new();
        if source == Source::Text {
            passes.push(PassName::ChloLegalize);
        }
        let mut spec = PipelineSpec::default();
        if let Some(optimizer) = &self.optimizer {
            spec.stages.extend(passes.drain(..).map(Stage::Pass));
            spec.stages.push(Stage::Train(optimizer.clone()));
        }
        if let Some(dtype) = self.kv_dtype {
            spec.stages.extend(passes.drain(..).map(Stage::Pass));
            spec.stages.push(Stage::KvDtype(dtype));
        }
        match (&self.passes, source) {
            (Some(listed), _) => passes.extend(listed),
            (None, Source::Opt) => passes.push(PassName::ChloLegalize),
            (None, _) => passes.extend(DEFAULT_PASSES),
        }
        let fuses = self.fusion == Fusion::Fuse || self.kernels.is_some();
        if self.fusion == Fusion::NoFuse {
            passes.retain(|&pass| pass != PassName::Fuse);
        } else if fuses && !passes.contains(&PassName::Fuse) {
            passes.extend(FUSE_PASSES);
        }
        spec.stages.extend(passes.into_iter().map(Stage::Pass));
        if let Some(library) = &self.kernels {
            spec.stages.push(Stage::Kernels(library.clone()));
        }
        if let Some(request) = &self.sharding {
            spec.stages.push(Stage::Shard(request.clone()));
            spec.stages.push(Stage::Pass(PassName::ShardingPropagate));
        }
        spec
    }

    /// The request without fusion (composites carry static shapes: `--dynamic`).
    pub fn without_fusion(&self) -> Self {
        PipelineRequest {
            fusion: Fusion::NoFuse,
            kernels: None,
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(request: &PipelineRequest, source: Source) -> String {
        request.spec(source).canonical_text().unwrap()
    }

    #[test]
    fn spellings_of_one_pipeline_are_one_spec() {
        let spaced = PipelineRequest {
            passes: Some(PassName::parse_list("cse, dce").unwrap()),
            ..PipelineRequest::default()
        };
        let tight = PipelineRequest {
            passes: Some(PassName::parse_list("cse,dce,").unwrap()),
            ..PipelineRequest::default()
        };
        assert_eq!(text(&spaced, Source::Archive), "cse,dce");
        assert_eq!(
            text(&spaced, Source::Archive),
            text(&tight, Source::Archive)
        );
    }

    #[test]
    fn the_kv_cache_type_is_in_the_key_text() {
        let request = |text: &str| PipelineRequest {
            kv_dtype: Some(KvDtype::parse(text).unwrap()),
            ..PipelineRequest::default()
        };
        assert!(text(&request("bf16"), Source::Archive).starts_with("kv-dtype(bf16),canonicalize"));
        assert_eq!(
            text(&request("f8e4m3fn"), Source::Archive),
            text(&request("f8e4m3fn:1.0"), Source::Archive)
        );
        assert!(
            text(&request("f8e4m3fn:0.5"), Source::Archive).starts_with("kv-dtype(f8e4m3fn:0.5)")
        );
    }

    #[test]
    fn unknown_passes_are_refused_with_the_list() {
        let error = PassName::parse_list("cse,fusee").unwrap_err();
        let PassError::UnknownPass { name, known, .. } = error else {
            panic!("{error:?}");
        };
        assert_eq!(name, "fusee");
        assert!(
            known.contains("canonicalize") && known.contains("prune-args"),
            "{known}"
        );
    }

    #[test]
    fn each_source_and_flag_builds_its_pipeline() {
        let default = PipelineRequest::default();
        assert_eq!(
            text(&default, Source::Archive),
            "canonicalize,evaluate,cse,canonicalize,cse,dce,prune-args"
        );
        assert_eq!(
            text(&default, Source::Text),
            "chlo-legalize,canonicalize,evaluate,cse,canonicalize,cse,dce,prune-args"
        );
        assert_eq!(text(&default, Source::Opt), "chlo-legalize");
        let fused = PipelineRequest {
            fusion: Fusion::Fuse,
            ..PipelineRequest::default()
        };
        assert!(text(&fused, Source::Archive).ends_with("prune-args,fuse,dce"));
        assert_eq!(
            text(&fused.without_fusion(), Source::Archive),
            text(&default, Source::Archive)
        );
        let sharded = PipelineRequest {
            sharding: Some(
                ShardRequest::new(crate::sharding::PlanSource::parse("dp").unwrap(), None)
                    .for_devices(4),
            ),
            ..PipelineRequest::default()
        };
        let sharded = text(&sharded, Source::Archive);
        assert!(
            sharded.contains(",shard(") && sharded.ends_with("),sharding-propagate"),
            "{sharded}"
        );
    }
}
