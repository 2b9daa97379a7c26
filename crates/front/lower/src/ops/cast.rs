//! Dtype conversions: `_to_copy`, `to.*`, `type_as`. Device and layout changes are no-ops.

use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::OpResult;
use crate::op_def::{OpDef, aten};
use crate::support;

pub(super) const OPS: &[OpDef] = &[
    aten(
        "_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor",
        to_dtype,
    ),
    aten(
        "to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
        to_dtype,
    ),
    aten(
        "to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
        to_dtype,
    ),
    aten(
        "to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
        to_dtype,
    ),
    aten(
        "to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
        to_other,
    ),
    aten("type_as(Tensor self, Tensor other) -> Tensor", to_other),
];

fn to_dtype(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    match args.opt_dtype("dtype")? {
        Some(dtype) => one(support::convert(cx.b, x, dtype)?),
        None => one(x),
    }
}

fn to_other(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let other = args.tensor("other")?;
    let dtype = support::dtype(cx.b, other)?;
    one(support::convert(cx.b, x, dtype)?)
}
