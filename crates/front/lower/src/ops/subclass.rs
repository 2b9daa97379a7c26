//! Tensor-subclass weights (torchao's quantized tensors): the training dialect reads their inner
//! tensors with `export.access_subclass_inner_tensor`, then spells out the arithmetic in
//! ordinary ops. The weight's inner tensors are arguments of their own.

use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::OpResult;
use crate::op_def::{OpDef, aten};

pub(super) const OPS: &[OpDef] = &[aten(
    "export::access_subclass_inner_tensor(Tensor src_subclass_tensor, str attr) -> Tensor",
    inner_tensor,
)];

fn inner_tensor(_: &mut Cx, a: &Args) -> OpResult<Vec<Val>> {
    one(a.inner_tensor("src_subclass_tensor", a.str("attr")?)?)
}
