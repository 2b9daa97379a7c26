//! Pointwise ops of three tensors: `addcmul` (`self + value·t1·t2`) and `addcdiv`
//! (`self + value·t1/t2`), with torch's type promotion over all three.

use tpuc_ir::FunctionBuilder;

use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::OpResult;
use crate::op_def::{OpDef, aten};
use crate::support::{self, broadcast_operands, result_type};

pub(super) const OPS: &[OpDef] = &[
    aten(
        "addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
        addcmul,
    ),
    aten(
        "addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
        addcdiv,
    ),
];

fn combine(
    cx: &mut Cx<'_>,
    args: &Args<'_>,
    inner: fn(&mut FunctionBuilder, tpuc_ir::Value, tpuc_ir::Value) -> OpResult<tpuc_ir::Value>,
) -> OpResult<Vec<Val>> {
    let operands = [
        args.operand("self")?,
        args.operand("tensor1")?,
        args.operand("tensor2")?,
    ];
    let value = args.scalar("value")?;
    let b = &mut *cx.b;
    let dtype = result_type(b, &operands)?;
    let v = broadcast_operands(b, &operands, dtype)?;
    let mut term = inner(b, v[1], v[2])?;
    if !value.is(1.0) {
        let k = support::like(b, term, value)?;
        term = b.multiply(term, k)?;
    }
    one(b.add(v[0], term)?)
}

fn addcmul(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    combine(cx, args, |b, x, y| Ok(b.multiply(x, y)?))
}

fn addcdiv(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    combine(cx, args, |b, x, y| Ok(b.divide(x, y)?))
}
