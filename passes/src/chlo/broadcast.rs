//! `chlo.broadcast_*` and `chlo.broadcast_select`: each operand broadcast to the result shape
//! (`stablehlo.broadcast_in_dim`), then the StableHLO op on equal shapes.

use tpuc_ir::broadcast::rank_broadcast;
use tpuc_ir::{ChloBroadcastOp, IrError, OpBuilder, Value};

use super::Built;

pub(super) fn binary(
    b: &mut OpBuilder<'_>,
    op: ChloBroadcastOp,
    dims: &[i64],
    operands: &[Value],
) -> Built {
    let Some(same) = to_common_shape(b, operands, dims)? else {
        return Ok(None);
    };
    Ok(Some(vec![b.binary(op.binary(), same[0], same[1])?]))
}

pub(super) fn select(b: &mut OpBuilder<'_>, operands: &[Value]) -> Built {
    let Some(same) = to_common_shape(b, operands, &[])? else {
        return Ok(None);
    };
    Ok(Some(vec![b.select(same[0], same[1], same[2])?]))
}

/// The operands broadcast to their common static shape; `None` when a shape is dynamic.
fn to_common_shape(
    b: &mut OpBuilder<'_>,
    operands: &[Value],
    dims: &[i64],
) -> Result<Option<Vec<Value>>, IrError> {
    let types = operands
        .iter()
        .map(|&v| b.tensor_type(v).cloned())
        .collect::<Result<Vec<_>, _>>()?;
    if !types.iter().all(|t| t.is_static()) {
        return Ok(None);
    }
    let shapes: Vec<&[tpuc_ir::Dim]> = types.iter().map(|t| t.shape.as_slice()).collect();
    // The verifier checked the broadcast; an op it rejects is left alone.
    let Ok(plan) = rank_broadcast(&shapes, dims) else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(operands.len());
    for ((&value, ty), map) in operands.iter().zip(&types).zip(&plan.maps) {
        if ty.shape == plan.shape {
            out.push(value);
        } else {
            out.push(b.broadcast_in_dim(value, map, plan.shape.clone())?);
        }
    }
    Ok(Some(out))
}
