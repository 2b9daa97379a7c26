//! `[intermediates]` of a plan file: the value an FX node computes, pinned to a sharding with
//! an `sdy.sharding_constraint` right after the op that produces it (the last op of `main`
//! lowered from that node).

use tpuc_ir::{Function, InsertPoint, NewOp, OpKind};

use super::error::PlanError;
use super::mesh::MeshSpec;
use super::plan_file::PlanFile;

/// Pins every `[intermediates]` entry of `file` in `main`.
pub fn pin_intermediates(
    main: &mut Function,
    file: &PlanFile,
    mesh: &MeshSpec,
) -> Result<(), PlanError> {
    let block = main.entry_block();
    for (node, value) in &file.intermediates {
        let ops = main.block(block).ops.clone();
        let producer = ops.iter().rev().copied().find(|&op| {
            let data = main.op(op);
            data.results.len() == 1
                && !matches!(data.kind, OpKind::ShardingConstraint(_))
                && data.location.node_name() == Some(node.as_str())
        });
        let Some(producer) = producer else {
            let mut known: Vec<&str> = ops
                .iter()
                .filter_map(|&op| main.op(op).location.node_name())
                .collect();
            known.dedup();
            known.truncate(12);
            return Err(PlanError::MatchesNothing {
                path: file.path.clone(),
                section: "intermediates",
                pattern: node.clone(),
                what: "FX node with a tensor result",
                known: known.join(", "),
            });
        };
        let result = main.op(producer).results[0];
        let ty = main.value_type(result).clone();
        let shape = super::spec::static_shape(&ty);
        let tensor = format!("intermediate `{node}`");
        let spec = value
            .resolve(shape.len(), mesh)
            .map_err(|message| PlanError::PlanFile {
                path: file.path.clone(),
                message: format!("[intermediates] `{node}`: {message}"),
                help: "see docs/sharding.md for the forms a sharding takes".to_owned(),
            })?;
        spec.check(&tensor, &shape, mesh)?;
        let mut constraint = NewOp::new(
            OpKind::ShardingConstraint(spec.to_ir()),
            vec![result],
            vec![ty],
        );
        constraint.location = main.op(producer).location.clone();
        let pinned = main.insert_op(InsertPoint::After(producer), constraint);
        let pinned_value = main.op(pinned).results[0];
        main.replace_all_uses_with(result, pinned_value);
        main.set_operand(pinned, 0, result);
    }
    Ok(())
}
