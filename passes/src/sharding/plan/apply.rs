//! Writing a plan into the module: the mesh, the partition count, the arguments' and pinned
//! results' shardings, then propagation over the rest.

use crate::pass::{Pass, PassContext};
use tpuc_ir::{Attribute, Module};

use super::assign::{ArgumentRole, Assignment, ResultRole, assign};
use super::error::PlanError;
use super::memory::MemoryEstimate;
use super::pin::pin_intermediates;
use super::request::{PlanSource, ShardRequest};

const SHARDING: &str = "sdy.sharding";

/// What applying a plan did.
#[derive(Clone, Debug, PartialEq)]
pub struct ShardReport {
    pub assignment: Assignment,
    pub memory: MemoryEstimate,
}

/// Shards `module`'s public `main` by `request`: afterwards the module has one `sdy.mesh`,
/// `mhlo.num_partitions` equal to the mesh's device count, a closed `sdy.sharding` on every
/// argument and result of `main`, an `sdy.sharding_constraint` after every intermediate the
/// plan pins, and an open sharding on every op of its body.
pub fn apply(
    module: &mut Module,
    arguments: &[ArgumentRole],
    results: &[ResultRole],
    request: &ShardRequest,
) -> Result<ShardReport, PlanError> {
    let main = module
        .function("main")
        .expect("a lowered module has a public main");
    let assignment = assign(main, arguments, results, request)?;
    module.meshes = vec![assignment.mesh.to_ir()];
    module.num_partitions = Some(assignment.mesh.devices() as u32);
    module.num_replicas = Some(1);
    let main = module.function_mut("main").expect("checked above");
    for (attrs, spec) in main.arg_attrs.iter_mut().zip(&assignment.arguments) {
        attrs.set(SHARDING, Attribute::Sharding(spec.to_ir()));
    }
    for (attrs, spec) in main.result_attrs.iter_mut().zip(&assignment.results) {
        if let Some(spec) = spec {
            attrs.set(SHARDING, Attribute::Sharding(spec.to_ir()));
        }
    }
    if let PlanSource::File(file) = &request.plan {
        pin_intermediates(main, file, &assignment.mesh)?;
    }
    crate::sharding::ShardingPropagate.run(module, &mut PassContext::default());
    debug_assert!(
        tpuc_ir::verify(module).is_ok(),
        "a sharded module verifies: {:?}",
        tpuc_ir::verify(module)
    );
    let is_weight: Vec<bool> = arguments
        .iter()
        .map(|r| matches!(r, ArgumentRole::Weight { .. }))
        .collect();
    let memory = MemoryEstimate::of(module, &is_weight);
    Ok(ShardReport { assignment, memory })
}
