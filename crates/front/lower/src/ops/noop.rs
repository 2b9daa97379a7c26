//! Ops that change nothing in a functional, inference-only program: copies, aliases, metadata
//! assertions, inference-mode dropout.

use tpuc_pt2::DType;

use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpError, OpResult};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support;

pub(super) const OPS: &[OpDef] = &[
    aten(
        "_assert_tensor_metadata(Tensor a, SymInt[]? size=None, SymInt[]? stride=None, ScalarType? dtype=None, *, Device? device=None, Layout? layout=None) -> ()",
        nothing,
    ),
    aten("_assert_scalar(Scalar self, str assert_msg) -> ()", nothing),
    // A runtime check of a tensor condition; compiled programs do not raise.
    aten(
        "_assert_async.msg(Tensor self, str assert_msg) -> ()",
        nothing,
    ),
    aten("_assert_async(Tensor self) -> ()", nothing),
    aten(
        "sym_constrain_range_for_size(Scalar size, *, int? min=None, int? max=None) -> ()",
        nothing,
    ),
    aten(
        "sym_constrain_range(Scalar size, *, int? min=None, int? max=None) -> ()",
        nothing,
    ),
    aten(
        "clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
        identity,
    ),
    aten(
        "contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)",
        identity,
    ),
    aten("alias(Tensor(a) self) -> Tensor(a)", identity),
    aten("detach(Tensor(a) self) -> Tensor(a)", identity),
    aten("lift_fresh_copy(Tensor self) -> Tensor", identity),
    aten(
        "dropout(Tensor input, float p, bool train) -> Tensor",
        dropout,
    ),
    aten(
        "native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)",
        native_dropout,
    ),
];

fn nothing(_: &mut Cx<'_>, _: &Args<'_>) -> OpResult<Vec<Val>> {
    Ok(Vec::new())
}

fn identity(_: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    one(args.tensor("self")?)
}

fn training_dropout() -> OpError {
    OpError::unsupported("dropout in training mode (call `model.eval()` before exporting)")
}

fn dropout(_: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    if args.bool("train")? && args.float("p")? > 0.0 {
        return Err(training_dropout());
    }
    one(args.tensor("input")?)
}

/// The input and the mask of kept elements: all kept outside training (`train=False`) or with
/// `p = 0`; a random mask (training with `0 < p`) is refused. `train=None` means training.
fn native_dropout(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("input")?;
    let training = match args.value_of(args.raw("train")?)? {
        Val::None => true,
        _ => args.bool("train")?,
    };
    if training && args.float("p")? > 0.0 {
        return Err(training_dropout());
    }
    let shape = support::shape(cx.b, x)?;
    let mask = support::splat(cx.b, DType::Bool, &shape, Scalar::Bool(true))?;
    Ok(vec![Val::Tensor(x), Val::Tensor(mask)])
}
