//! Operands of elementwise ops: promotion to a common dtype and broadcast to a common shape.

use tpuc_ir::{FunctionBuilder, Value};
use tpuc_pt2::DType;

use crate::args::Operand;
use crate::error::OpResult;
use crate::promote::{self, Participant};

fn participant(b: &FunctionBuilder, operand: &Operand) -> OpResult<Participant> {
    Ok(match *operand {
        Operand::Tensor(v) => Participant::Tensor {
            dtype: super::dtype(b, v)?,
            zero_dim: super::rank(b, v)? == 0,
        },
        Operand::Scalar(s) => Participant::Wrapped(s),
    })
}

/// `torch.result_type` of the operands.
pub(crate) fn result_type(b: &FunctionBuilder, operands: &[Operand]) -> OpResult<DType> {
    let participants = operands
        .iter()
        .map(|o| participant(b, o))
        .collect::<OpResult<Vec<_>>>()?;
    promote::result_type(&participants)
}

fn operand_shape(b: &FunctionBuilder, operand: &Operand) -> OpResult<Vec<i64>> {
    match *operand {
        Operand::Tensor(v) => super::shape(b, v),
        Operand::Scalar(_) => Ok(Vec::new()),
    }
}

/// The broadcast shape of the operands.
pub(crate) fn common_shape(b: &FunctionBuilder, operands: &[Operand]) -> OpResult<Vec<i64>> {
    let mut shape = Vec::new();
    for operand in operands {
        shape = super::broadcast_shapes(&shape, &operand_shape(b, operand)?)?;
    }
    Ok(shape)
}

/// One operand converted to `dtype` and broadcast to `shape`; a Python scalar becomes a splat
/// constant of that shape.
pub(crate) fn materialize(
    b: &mut FunctionBuilder,
    operand: Operand,
    dtype: DType,
    shape: &[i64],
) -> OpResult<Value> {
    match operand {
        Operand::Tensor(v) => {
            let v = super::convert(b, v, dtype)?;
            super::broadcast_to(b, v, shape)
        }
        Operand::Scalar(s) => super::splat(b, dtype, shape, s),
    }
}

/// Every operand converted to `dtype` and broadcast to the operands' common shape.
pub(crate) fn broadcast_operands(
    b: &mut FunctionBuilder,
    operands: &[Operand],
    dtype: DType,
) -> OpResult<Vec<Value>> {
    let shape = common_shape(b, operands)?;
    operands
        .iter()
        .map(|&operand| materialize(b, operand, dtype, &shape))
        .collect()
}
