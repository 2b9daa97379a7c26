//! One vector-Jacobian product rule per op: given the cotangents of an op's results, the
//! cotangents of its operands, built with ops inserted at the builder's point. A rule returns
//! `None` for an operand that gets no cotangent (an index, a non-differentiable input) and
//! refuses, with the reason, an op it cannot differentiate.

mod contraction;
mod elementwise;
mod reduction;
mod structural;

use tpuc_ir::{ElementType, IrError, OpBuilder, OpId, OpKind, Operation, TensorType, Value};

/// Why an op cannot be differentiated (shown with the op and its source line).
pub(super) type Refusal = String;

pub(super) type Cotangents = Vec<Option<Value>>;

pub(super) fn vjp(
    b: &mut OpBuilder<'_>,
    op: OpId,
    operation: &Operation,
    results: &[Option<Value>],
    active: &[bool],
) -> Result<Cotangents, Refusal> {
    let x = &operation.operands;
    let y = &operation.results;
    let only = || results[0].ok_or_else(|| "its result has no cotangent".to_owned());
    match &operation.kind {
        OpKind::Unary(unary) => Ok(vec![elementwise::unary(b, *unary, x[0], y[0], only()?)?]),
        OpKind::Binary(binary) => elementwise::binary(b, *binary, x, y[0], only()?, active),
        OpKind::ChloUnary(unary) => Ok(vec![elementwise::chlo_unary(b, *unary, x[0], only()?)?]),
        OpKind::CustomCall { target, .. } if target == "mhlo.erf" => {
            Ok(vec![elementwise::chlo_unary(
                b,
                tpuc_ir::ChloUnaryOp::Erf,
                x[0],
                only()?,
            )?])
        }
        OpKind::Select => elementwise::select(b, x, only()?),
        OpKind::Clamp => elementwise::clamp(b, x, only()?, active),
        OpKind::Convert => Ok(vec![elementwise::convert(b, x[0], only()?)?]),
        OpKind::OptimizationBarrier => Ok(results.to_vec()),
        OpKind::BroadcastInDim { dims } => {
            Ok(vec![Some(structural::unbroadcast(b, x[0], dims, only()?)?)])
        }
        OpKind::Reshape => {
            let shape = shape_of(b, x[0])?;
            Ok(vec![Some(
                b.reshape(only()?, shape_u64(&shape)).map_err(ir)?,
            )])
        }
        OpKind::Transpose { permutation } => Ok(vec![Some(structural::untranspose(
            b,
            only()?,
            permutation,
        )?)]),
        OpKind::Slice { start, strides, .. } => Ok(vec![Some(structural::unslice(
            b,
            x[0],
            only()?,
            start,
            strides,
        )?)]),
        OpKind::Pad {
            low,
            high,
            interior,
        } => structural::unpad(b, only()?, low, high, interior, active),
        OpKind::Concatenate { dimension } => structural::unconcatenate(b, x, only()?, *dimension),
        OpKind::Reverse { dims } => Ok(vec![Some(b.reverse(only()?, dims).map_err(ir)?)]),
        OpKind::DynamicSlice { .. } => structural::dynamic_slice(b, x, only()?),
        OpKind::DynamicUpdateSlice => structural::dynamic_update_slice(b, x, only()?, active),
        OpKind::Gather { dims, .. } => structural::gather(b, x, only()?, dims),
        OpKind::Scatter { dims, .. } => structural::scatter(b, op, x, results, dims, active),
        OpKind::Sort { dimension, .. } => structural::sort(b, op, x, y, results, *dimension),
        OpKind::DotGeneral { dims, .. } => contraction::dot_general(b, x, only()?, dims, active),
        OpKind::Convolution(attrs) => contraction::convolution(b, x, only()?, attrs, active),
        OpKind::Reduce { dimensions } => reduction::reduce(b, op, x, y, results, dimensions),
        OpKind::ReduceWindow(window) => reduction::reduce_window(b, op, x, results, window, active),
        kind => Err(format!(
            "there is no differentiation rule for `{}`",
            kind.name()
        )),
    }
}

pub(super) fn ir(error: IrError) -> Refusal {
    format!("building its derivative failed: {error}")
}

pub(super) fn tensor_type(b: &OpBuilder<'_>, value: Value) -> Result<TensorType, Refusal> {
    b.tensor_type(value).cloned().map_err(ir)
}

/// The static shape of `value`; differentiation needs static shapes.
pub(super) fn shape_of(b: &OpBuilder<'_>, value: Value) -> Result<Vec<i64>, Refusal> {
    tensor_type(b, value)?
        .static_shape()
        .map(|shape| shape.into_iter().map(|d| d as i64).collect())
        .ok_or_else(|| "differentiation needs static shapes; this operand's is dynamic".into())
}

pub(super) fn shape_u64(shape: &[i64]) -> Vec<u64> {
    shape.iter().map(|&d| d as u64).collect()
}

/// A splat of `value` with `like`'s type.
pub(super) fn splat_like(b: &mut OpBuilder<'_>, like: Value, value: f64) -> Result<Value, Refusal> {
    let ty = tensor_type(b, like)?;
    let shape = shape_of(b, like)?;
    b.splat(ty.element, shape_u64(&shape), value).map_err(ir)
}

pub(super) fn scalar(
    b: &mut OpBuilder<'_>,
    element: ElementType,
    value: f64,
) -> Result<Value, Refusal> {
    b.splat(element, [], value).map_err(ir)
}
