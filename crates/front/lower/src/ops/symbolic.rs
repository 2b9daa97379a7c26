//! SymInt arithmetic, evaluated at lowering time: sizes are specialised, so `sym_size` and the
//! Python operators on its results are plain integers.

use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten, target};
use crate::support;

pub(super) const OPS: &[OpDef] = &[
    aten("sym_size.int(Tensor self, int dim) -> SymInt", sym_size),
    aten("sym_numel(Tensor self) -> SymInt", sym_numel),
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
