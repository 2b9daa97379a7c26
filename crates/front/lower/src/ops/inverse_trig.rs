//! The inverse trigonometric functions and the hyperbolic ones but `tanh`: CHLO ops (the
//! driver's `chlo-legalize` expands them), computed in float32 for half types as torch's CPU
//! kernels do, integers and bools promoted to float.

use tpuc_ir::ChloUnaryOp;

use super::elementwise::in_f32;
use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::OpResult;
use crate::op_def::{OpDef, aten};

pub(super) const OPS: &[OpDef] = &[
    aten("acos(Tensor self) -> Tensor", acos),
    aten("asin(Tensor self) -> Tensor", asin),
    aten("atan(Tensor self) -> Tensor", atan),
    aten("acosh(Tensor self) -> Tensor", acosh),
    aten("asinh(Tensor self) -> Tensor", asinh),
    aten("atanh(Tensor self) -> Tensor", atanh),
    aten("cosh(Tensor self) -> Tensor", cosh),
    aten("sinh(Tensor self) -> Tensor", sinh),
];

fn chlo(cx: &mut Cx<'_>, args: &Args<'_>, op: ChloUnaryOp) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    one(in_f32(cx.b, x, |b, x| Ok(b.chlo_unary(op, x)?))?)
}

fn acos(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    chlo(cx, args, ChloUnaryOp::Acos)
}
fn asin(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    chlo(cx, args, ChloUnaryOp::Asin)
}
fn atan(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    chlo(cx, args, ChloUnaryOp::Atan)
}
fn acosh(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    chlo(cx, args, ChloUnaryOp::Acosh)
}
fn asinh(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    chlo(cx, args, ChloUnaryOp::Asinh)
}
fn atanh(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    chlo(cx, args, ChloUnaryOp::Atanh)
}
fn cosh(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    chlo(cx, args, ChloUnaryOp::Cosh)
}
fn sinh(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    chlo(cx, args, ChloUnaryOp::Sinh)
}
