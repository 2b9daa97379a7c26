//! `chlo.broadcast_*`, `chlo.broadcast_compare` and `chlo.broadcast_select`: each operand
//! broadcast to the result shape (`stablehlo.broadcast_in_dim`), then the op on equal shapes
//! (StableHLO's, or the CHLO binary op's formula).

use tpuc_ir::broadcast::rank_broadcast;
use tpuc_ir::{
    BroadcastBinary, ChloBroadcastOp, ComparisonDirection, ComparisonType, IrError, OpBuilder,
    Value,
};

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
    match op.binary() {
        BroadcastBinary::Stablehlo(op) => Ok(Some(vec![b.binary(op, same[0], same[1])?])),
        BroadcastBinary::Chlo(op) => super::binary_op(b, op, same[0], same[1]),
    }
}

pub(super) fn compare(
    b: &mut OpBuilder<'_>,
    dims: &[i64],
    direction: ComparisonDirection,
    compare_type: Option<ComparisonType>,
    operands: &[Value],
) -> Built {
    let Some(same) = to_common_shape(b, operands, dims)? else {
        return Ok(None);
    };
    let compared = b.compare_with_type(direction, compare_type, same[0], same[1])?;
    Ok(Some(vec![compared]))
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
