//! The sharding plan, applied to the module once the passes have run (`tpuc-shard`).

use tpuc_ir::Module;
use tpuc_passes::sharding::{ArgumentRole, ResultRole, ShardReport, ShardRequest};

use crate::bindings::{ArgumentBinding, ArgumentSource, ResultBinding, ResultSource};
use crate::error::LowerError;

pub(crate) fn apply(
    module: &mut Module,
    arguments: &[ArgumentBinding],
    results: &[ResultBinding],
    request: &ShardRequest,
) -> Result<ShardReport, LowerError> {
    let arguments: Vec<ArgumentRole> = arguments
        .iter()
        .map(|binding| match &binding.source {
            ArgumentSource::Parameter { fqn }
            | ArgumentSource::Buffer { fqn, .. }
            | ArgumentSource::Constant { fqn } => ArgumentRole::Weight { fqn: fqn.clone() },
            ArgumentSource::UserInput { index, name } => ArgumentRole::Input {
                index: *index,
                name: name.clone(),
            },
        })
        .collect();
    let results: Vec<ResultRole> = results
        .iter()
        .map(|binding| match &binding.source {
            ResultSource::UserOutput { index } => ResultRole::Output { index: *index },
            ResultSource::BufferMutation { fqn } => ResultRole::Mutation { name: fqn.clone() },
            ResultSource::UserInputMutation { name } => ResultRole::Mutation { name: name.clone() },
            ResultSource::IndexCheck { node, .. } => ResultRole::Mutation {
                name: format!("index check of {node}"),
            },
            ResultSource::NonFiniteCheck { node, output, .. } => ResultRole::Mutation {
                name: format!("NaN check of {node} output {output}"),
            },
        })
        .collect();
    Ok(tpuc_passes::sharding::apply(
        module, &arguments, &results, request,
    )?)
}
