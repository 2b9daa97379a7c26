//! Sharding plans: device meshes (`--mesh dp=2,tp=2`), the presets (`dp`, `fsdp`,
//! `tp`, `dp+tp`, `fsdp+tp`) and TOML plans (`--shard PLAN.toml`), applied to a lowered
//! module as Shardy annotations (`sdy.mesh`, `sdy.sharding`), followed by
//! `sharding-propagate`. See docs/sharding.md.
//!
//! A plan that cannot apply (an axis that does not divide a dimension, a glob that matches
//! nothing, a mesh that does not fit the target) is a [`PlanError`] naming the tensor, its
//! shape and the axis.

mod apply;
mod assign;
mod error;
mod heads;
mod megatron;
mod memory;
mod mesh;
mod pin;
mod plan_file;
mod request;
mod spec;
mod tiles;

pub use apply::{Shard, ShardReport};
pub use assign::Assignment;
pub use error::PlanError;
pub use memory::MemoryEstimate;
pub use mesh::{MESH_NAME, MeshSpec};
pub use plan_file::{DimValue, PlanFile, SpecValue};
pub use request::{DATA_AXIS, MODEL_AXIS, PlanSource, Preset, ShardRequest};
pub use spec::{DimSpec, TensorSpec};
