//! The `shard` pass: writes a plan into the program (the mesh, the partition count, the
//! arguments' and pinned results' shardings, the pinned intermediates); `sharding-propagate`
//! then settles the rest.

use tpuc_ir::{Attribute, Program};

use super::assign::{Assignment, assign};
use super::memory::MemoryEstimate;
use super::pin::pin_intermediates;
use super::request::{PlanSource, ShardRequest};
use crate::error::PassError;
use crate::pass::{Pass, PassContext};

const SHARDING: &str = "sdy.sharding";

/// What applying a plan did.
#[derive(Clone, Debug, PartialEq)]
pub struct ShardReport {
    pub assignment: Assignment,
    pub memory: MemoryEstimate,
}

impl ShardReport {
    /// The report on a program the pipeline sharded with `assignment`.
    pub fn of(program: &Program, assignment: Assignment) -> Result<ShardReport, PassError> {
        let is_weight: Vec<bool> = program
            .interface()?
            .arguments
            .iter()
            .map(tpuc_ir::ArgumentRole::is_weight)
            .collect();
        let memory = MemoryEstimate::of(&program.module, &is_weight);
        Ok(ShardReport { assignment, memory })
    }
}

/// Shards the program's public `main` by a request: afterwards the module has one `sdy.mesh`,
/// `mhlo.num_partitions` equal to the mesh's device count, a closed `sdy.sharding` on every
/// argument and on each result the plan pins, and an `sdy.sharding_constraint` after every
/// intermediate the plan pins.
pub struct Shard {
    pub request: ShardRequest,
}

impl Pass for Shard {
    fn name(&self) -> &'static str {
        "shard"
    }

    fn run(&self, program: &mut Program, cx: &mut PassContext) -> Result<(), PassError> {
        if let Some(ranks) = program.module.num_replicas.filter(|&n| n > 1) {
            return Err(PassError::Refused {
                pass: self.name(),
                message: format!(
                    "the program has torch.distributed collectives for {ranks} ranks, and \
                     --shard would also partition it over the target's devices; tpuc does not \
                     combine the two"
                ),
                help: format!(
                    "compile it without --shard: each of its {ranks} ranks then runs on its own \
                     device (`--target cpu:{ranks}`, or a TPU topology of {ranks} chips)"
                ),
            });
        }
        let interface = program.interface()?;
        let assignment = assign(
            program.main()?,
            &interface.arguments,
            &interface.results,
            &self.request,
        )?;
        let module = &mut program.module;
        module.meshes = vec![assignment.mesh.to_ir()];
        module.num_partitions = Some(assignment.mesh.devices() as u32);
        module.num_replicas = Some(1);
        let main = program.main_mut()?;
        for (attrs, spec) in main.arg_attrs.iter_mut().zip(&assignment.arguments) {
            attrs.set(SHARDING, Attribute::Sharding(spec.to_ir()));
        }
        for (attrs, spec) in main.result_attrs.iter_mut().zip(&assignment.results) {
            if let Some(spec) = spec {
                attrs.set(SHARDING, Attribute::Sharding(spec.to_ir()));
            }
        }
        // A donated result is laid out as the buffer it is written into.
        for &(argument, result) in &interface.aliases {
            let spec = assignment.arguments[argument].to_ir();
            main.result_attrs[result].set(SHARDING, Attribute::Sharding(spec));
        }
        if let PlanSource::File(file) = &self.request.plan {
            pin_intermediates(main, file, &assignment.mesh)?;
        }
        cx.sharding = Some(assignment);
        Ok(())
    }
}
