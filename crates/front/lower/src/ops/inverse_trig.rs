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
    aten("acos(Tensor self) -> Tensor", |cx, args| {
        chlo(cx, args, ChloUnaryOp::Acos)
    }),
    aten("asin(Tensor self) -> Tensor", |cx, args| {
        chlo(cx, args, ChloUnaryOp::Asin)
    }),
    aten("atan(Tensor self) -> Tensor", |cx, args| {
        chlo(cx, args, ChloUnaryOp::Atan)
    }),
    aten("acosh(Tensor self) -> Tensor", |cx, args| {
        chlo(cx, args, ChloUnaryOp::Acosh)
    }),
    aten("asinh(Tensor self) -> Tensor", |cx, args| {
        chlo(cx, args, ChloUnaryOp::Asinh)
    }),
    aten("atanh(Tensor self) -> Tensor", |cx, args| {
        chlo(cx, args, ChloUnaryOp::Atanh)
    }),
    aten("cosh(Tensor self) -> Tensor", |cx, args| {
        chlo(cx, args, ChloUnaryOp::Cosh)
    }),
    aten("sinh(Tensor self) -> Tensor", |cx, args| {
        chlo(cx, args, ChloUnaryOp::Sinh)
    }),
];

fn chlo(cx: &mut Cx<'_>, args: &Args<'_>, op: ChloUnaryOp) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    one(in_f32(cx.b, x, |b, x| Ok(b.chlo_unary(op, x)?))?)
}
