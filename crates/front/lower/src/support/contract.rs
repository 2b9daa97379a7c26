//! `dot_general` with transposed operands folded into its dimension numbers.

use tpuc_ir::{
    DotDims, ElementType, FunctionBuilder, OpKind, Value, dot_operand_through_transpose,
};

use crate::error::OpResult;

/// When `v` is a `transpose` the product can read through: the transpose's operand and the
/// batch/contracting dimensions mapped onto it ([`dot_operand_through_transpose`]).
fn fold_transpose(
    b: &FunctionBuilder,
    v: Value,
    batch: &[i64],
    contract: &[i64],
) -> Option<(Value, Vec<i64>, Vec<i64>)> {
    let op = b.function().op(b.defining_op(v)?);
    let OpKind::Transpose { permutation } = &op.kind else {
        return None;
    };
    let (batch, contract) = dot_operand_through_transpose(permutation, batch, contract)?;
    Some((op.operands[0], batch, contract))
}

/// The operand of `rhs = broadcast_in_dim(w)` when the broadcast adds exactly the batch
/// dimensions `0..n` and both sides batch over their leading dimensions.
fn unbatched_rhs(
    b: &FunctionBuilder,
    rhs: Value,
    lhs_batching: &[i64],
    rhs_batching: &[i64],
) -> Option<Value> {
    let n = rhs_batching.len() as i64;
    let leading: Vec<i64> = (0..n).collect();
    if n == 0 || lhs_batching != leading || rhs_batching != leading {
        return None;
    }
    let op = b.function().op(b.defining_op(rhs)?);
    let OpKind::BroadcastInDim { dims } = &op.kind else {
        return None;
    };
    let rank = b.tensor_type(rhs).ok()?.rank() as i64;
    (dims.iter().copied().eq(n..rank)).then_some(op.operands[0])
}

/// `dot_general(lhs, rhs)`; transposes feeding either side are folded away when the result
/// layout allows it (the transpose is then left for dead-code removal).
pub(crate) fn dot(
    b: &mut FunctionBuilder,
    lhs: Value,
    rhs: Value,
    dims: DotDims,
) -> OpResult<Value> {
    dot_into(b, lhs, rhs, dims, None)
}

/// [`dot`] with the result in `element` (a half-type product accumulated and returned in
/// float32) instead of the operands' type.
pub(crate) fn dot_into(
    b: &mut FunctionBuilder,
    lhs: Value,
    rhs: Value,
    dims: DotDims,
    element: Option<ElementType>,
) -> OpResult<Value> {
    let DotDims {
        mut lhs_batching,
        mut rhs_batching,
        mut lhs_contracting,
        mut rhs_contracting,
    } = dims;
    let (mut lhs, mut rhs) = (lhs, rhs);
    // A right side broadcast along the leading batch dimensions only (torch's decomposition of
    // an N-D `linear` or `matmul` expands the weight) contracts unbatched: the result layout
    // (batch, lhs free, rhs free) is the same.
    if let Some(w) = unbatched_rhs(b, rhs, &lhs_batching, &rhs_batching) {
        let n = rhs_batching.len() as i64;
        rhs = w;
        rhs_contracting = rhs_contracting.iter().map(|&d| d - n).collect();
        lhs_batching.clear();
        rhs_batching.clear();
    }
    if let Some((v, batch, contract)) = fold_transpose(b, lhs, &lhs_batching, &lhs_contracting) {
        (lhs, lhs_batching, lhs_contracting) = (v, batch, contract);
    }
    if let Some((v, batch, contract)) = fold_transpose(b, rhs, &rhs_batching, &rhs_contracting) {
        (rhs, rhs_batching, rhs_contracting) = (v, batch, contract);
    }
    let dims = DotDims {
        lhs_batching,
        rhs_batching,
        lhs_contracting,
        rhs_contracting,
    };
    Ok(match element {
        Some(element) => b.dot_general_to(lhs, rhs, dims, Vec::new(), element)?,
        None => b.dot_general(lhs, rhs, dims, Vec::new())?,
    })
}
