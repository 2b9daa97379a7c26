//! SymInt arithmetic, evaluated at lowering time: sizes are specialised, so `sym_size` and the
//! Python operators on its results are plain integers. Strides and storage offsets are the
//! ones torch recorded for the tensor (tpuc's values have no layout of their own).

use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten, target};
use crate::support;

pub(super) const OPS: &[OpDef] = &[
    aten("sym_size.int(Tensor self, int dim) -> SymInt", sym_size),
    aten("sym_numel(Tensor self) -> SymInt", sym_numel),
    aten("sym_stride.int(Tensor self, int dim) -> SymInt", sym_stride),
    aten(
        "sym_storage_offset(Tensor self) -> SymInt",
        sym_storage_offset,
    ),
    target("_operator.add", add),
    target("_operator.sub", sub),
    target("_operator.mul", mul),
    target("_operator.floordiv", floordiv),
    target("_operator.mod", modulo),
    target("_operator.neg", neg),
    target("_operator.eq", eq),
    target("_operator.ne", ne),
    target("_operator.lt", lt),
    target("_operator.le", le),
    target("_operator.gt", gt),
    target("_operator.ge", ge),
];

fn sym_size(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let shape = support::shape(cx.b, x)?;
    let dim = support::norm_dim(args.int("dim")?, shape.len())?;
    Ok(vec![Val::Int(shape[dim])])
}

fn sym_numel(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    Ok(vec![Val::Int(support::numel(&support::shape(cx.b, x)?))])
}

/// Torch's metadata of the tensor argument `self`.
fn self_meta<'g>(cx: &Cx<'g>, args: &Args<'_>) -> OpResult<&'g tpuc_pt2::schema::TensorMeta> {
    let name = args
        .raw("self")?
        .as_tensor_name()
        .ok_or_else(|| crate::error::OpError::new("`self` is not a tensor of the graph"))?;
    cx.graph
        .tensor_values
        .get(name)
        .ok_or_else(|| crate::error::OpError::new(format!("`{name}` has no tensor metadata")))
}

fn sym_stride(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let meta = self_meta(cx, args)?;
    let dim = support::norm_dim(args.int("dim")?, meta.strides.len())?;
    Ok(vec![Val::Int(cx.symbols().eval(&meta.strides[dim])?)])
}

fn sym_storage_offset(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let meta = self_meta(cx, args)?;
    Ok(vec![Val::Int(cx.symbols().eval(&meta.storage_offset)?)])
}

fn int_arg(args: &Args<'_>, i: usize) -> OpResult<i64> {
    match args.value_of(args.positional(i)?)? {
        Val::Int(v) => Ok(v),
        Val::Bool(v) => Ok(v as i64),
        other => bail!("operand {i} must be an integer, got {other:?}"),
    }
}

fn binary(args: &Args<'_>, f: impl Fn(i64, i64) -> Option<i64>) -> OpResult<Vec<Val>> {
    let (a, b) = (int_arg(args, 0)?, int_arg(args, 1)?);
    match f(a, b) {
        Some(v) => Ok(vec![Val::Int(v)]),
        None => bail!("integer overflow or division by zero in {a} and {b}"),
    }
}

fn compare(args: &Args<'_>, f: impl Fn(i64, i64) -> bool) -> OpResult<Vec<Val>> {
    let (a, b) = (int_arg(args, 0)?, int_arg(args, 1)?);
    Ok(vec![Val::Bool(f(a, b))])
}

fn add(_: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    binary(args, i64::checked_add)
}
fn sub(_: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    binary(args, i64::checked_sub)
}
fn mul(_: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    binary(args, i64::checked_mul)
}
fn floordiv(_: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    binary(args, |a, b| {
        (b != 0).then(|| a.div_euclid(b) - i64::from(b < 0 && a.rem_euclid(b) != 0))
    })
}
fn modulo(_: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    binary(args, |a, b| {
        (b != 0).then(|| a - b * (a.div_euclid(b) - i64::from(b < 0 && a.rem_euclid(b) != 0)))
    })
}
fn neg(_: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let a = int_arg(args, 0)?;
    Ok(vec![Val::Int(-a)])
}
fn eq(_: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    compare(args, |a, b| a == b)
}
fn ne(_: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    compare(args, |a, b| a != b)
}
fn lt(_: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    compare(args, |a, b| a < b)
}
fn le(_: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    compare(args, |a, b| a <= b)
}
fn gt(_: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    compare(args, |a, b| a > b)
}
fn ge(_: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    compare(args, |a, b| a >= b)
}
