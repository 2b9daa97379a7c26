//! `sharding-propagate`: Shardy-style sharding propagation over the public functions of a
//! module with an `sdy.mesh`. It reads the `sdy.sharding` of the arguments (closed dimensions
//! are the user's and never change; open ones may gain axes) and every
//! `sdy.sharding_constraint`, propagates through each op's factor rule ([`rules`]) forward
//! and backward to a fixed point ([`propagate`]), and writes what it decided
//! ([`annotate`]): `sdy.sharding` on every op with tensor results (dimensions open, so XLA
//! may still refine them), and closed shardings on every argument and result of the function,
//! so a runtime knows the layout of everything it passes in and gets back.

mod annotate;
mod plan;
pub mod propagate;
pub mod rule;
pub mod rules;
pub mod state;

use tpuc_ir::{Module, OpKind, Visibility};

use crate::error::PassError;
use crate::pass::{Pass, PassContext};
pub use plan::{
    Assignment, DATA_AXIS, DimSpec, DimValue, MESH_NAME, MODEL_AXIS, MemoryEstimate, MeshSpec,
    PlanError, PlanFile, PlanSource, Preset, Shard, ShardReport, ShardRequest, SpecValue,
    TensorSpec,
};
pub use rule::{Factor, FactorKind, OpRule, TensorFactors};
pub use rules::op_rule;
pub use state::{DimState, State};
use tpuc_ir::Program;

/// The `sharding-propagate` pass. A module without a mesh is left unchanged.
pub struct ShardingPropagate;

impl Pass for ShardingPropagate {
    fn name(&self) -> &'static str {
        "sharding-propagate"
    }

    fn run(&self, program: &mut Program, _: &mut PassContext) -> Result<(), PassError> {
        propagate_module(&mut program.module);
        donated_like_their_arguments(program)
    }
}

/// A result donated into an argument's buffer is sharded as the argument is (the settled
/// sharding, not an open one the plan gave before propagation): XLA writes it in place, and
/// runtimes put it back together by that sharding.
fn donated_like_their_arguments(program: &mut Program) -> Result<(), PassError> {
    let aliases = program.interface()?.aliases;
    let main = program.main_mut()?;
    for (argument, result) in aliases {
        let sharding = main
            .arg_attrs
            .get(argument)
            .and_then(|attrs| attrs.get(annotate::SHARDING))
            .cloned();
        if let (Some(sharding), Some(attrs)) = (sharding, main.result_attrs.get_mut(result)) {
            attrs.set(annotate::SHARDING, sharding);
        }
    }
    Ok(())
}

/// Propagates the shardings of every public function of a module with a mesh.
pub(crate) fn propagate_module(module: &mut Module) {
    let Some(mesh) = module.meshes.first().cloned() else {
        return;
    };
    for function in &mut module.functions {
        if function.visibility != Visibility::Public {
            continue;
        }
        let mut state = State::new(&mesh);
        for (index, attrs) in function.arg_attrs.iter().enumerate() {
            if let Some(tpuc_ir::Attribute::Sharding(sharding)) = attrs.get(annotate::SHARDING) {
                state.seed(function.args()[index], sharding);
            }
        }
        let block = function.entry_block();
        let mut ruled = Vec::new();
        for &op in &function.block(block).ops {
            if let OpKind::ShardingConstraint(sharding) = &function.op(op).kind {
                let fixed = tpuc_ir::TensorSharding {
                    dims: sharding
                        .dims
                        .iter()
                        .map(|d| tpuc_ir::DimSharding {
                            is_open: false,
                            ..d.clone()
                        })
                        .collect(),
                    ..sharding.clone()
                };
                state.seed(function.op(op).results[0], &fixed);
            }
            if let Some(rule) = op_rule(function, op) {
                ruled.push((op, rule));
            }
        }
        propagate::run(function, &propagate::RuledOps { ops: ruled }, &mut state);
        annotate::write(function, &state);
    }
}
