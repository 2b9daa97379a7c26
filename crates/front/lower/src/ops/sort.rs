//! Sorting: sort, argsort, topk. One stable `sort` of the values and their positions, so equal
//! values keep their input order (ascending or descending) and NaN sorts above every number,
//! as torch's sort does.

use tpuc_ir::{ComparisonDirection, FunctionBuilder, Value};
use tpuc_pt2::DType;

use crate::args::Args;
use crate::cx::Cx;
use crate::dtype::element_type;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::support;

pub(super) const OPS: &[OpDef] = &[
    aten(
        "sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)",
        sort,
    ),
    aten(
        "sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)",
        sort,
    ),
    aten(
        "argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor",
        argsort,
    ),
    aten(
        "argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) -> Tensor",
        argsort,
    ),
    aten(
        "topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)",
        topk,
    ),
];

/// `lhs` goes before `rhs`: smaller first (larger first when `descending`), NaN counting as
/// the largest value. A strict weak order, so a stable sort keeps ties in input order.
fn before(
    b: &mut FunctionBuilder,
    lhs: Value,
    rhs: Value,
    descending: bool,
    float: bool,
) -> tpuc_ir::Result<Value> {
    let (first, second, direction) = if descending {
        (rhs, lhs, ComparisonDirection::Gt)
    } else {
        (lhs, rhs, ComparisonDirection::Lt)
    };
    let ordered = b.compare(direction, lhs, rhs)?;
    if !float {
        return Ok(ordered);
    }
    // `first` is a number and `second` NaN.
    let second_nan = b.compare(ComparisonDirection::Ne, second, second)?;
    let first_number = b.compare(ComparisonDirection::Eq, first, first)?;
    let nan_last = b.and(first_number, second_nan)?;
    b.or(ordered, nan_last)
}

/// The values sorted along `dim` and, with `indices`, their original positions (int64).
fn sorted(
    b: &mut FunctionBuilder,
    x: Value,
    dim: usize,
    descending: bool,
    indices: bool,
) -> OpResult<(Value, Option<Value>)> {
    let shape = support::shape(b, x)?;
    let float = support::element(b, x)?.is_float();
    let mut inputs = vec![x];
    if indices {
        let ty = support::tensor_type(element_type(DType::I64)?, &shape);
        inputs.push(b.iota(ty, dim as i64)?);
    }
    let out = b.sort(&inputs, dim as i64, true, |b, a| {
        Ok(vec![before(b, a[0], a[1], descending, float)?])
    })?;
    Ok((out[0], out.get(1).copied()))
}

/// The input, the normalised `dim` and `descending`; a 0-d input sorts as itself.
fn sort_args(cx: &Cx<'_>, args: &Args<'_>) -> OpResult<(Value, Option<usize>, bool)> {
    let x = args.tensor("self")?;
    let rank = support::rank(cx.b, x)?;
    let dim = support::norm_dim(args.int("dim")?, rank)?;
    Ok((x, (rank > 0).then_some(dim), args.bool("descending")?))
}

fn sort(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let (x, dim, descending) = sort_args(cx, args)?;
    let Some(dim) = dim else {
        let zero = support::zeros(cx.b, DType::I64, &[])?;
        return Ok(vec![Val::Tensor(x), Val::Tensor(zero)]);
    };
    let (values, indices) = sorted(cx.b, x, dim, descending, cx.used(1))?;
    Ok(vec![
        Val::Tensor(values),
        indices.map_or(Val::None, Val::Tensor),
    ])
}

fn argsort(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let (x, dim, descending) = sort_args(cx, args)?;
    let Some(dim) = dim else {
        return super::one(support::zeros(cx.b, DType::I64, &[])?);
    };
    let (_, indices) = sorted(cx.b, x, dim, descending, true)?;
    super::one(indices.expect("sorted with indices"))
}

/// The first `k` of the values sorted largest (or smallest) first; ties keep the lower index.
/// Always sorted, which `sorted=False` allows.
fn topk(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let k = args.int("k")?;
    let largest = args.bool("largest")?;
    let with_indices = cx.used(1);
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    let dim = support::norm_dim(args.int("dim")?, shape.len())?;
    let size = shape.get(dim).copied().unwrap_or(1);
    if k < 0 || k > size {
        bail!("topk: k = {k} is out of range for a dimension of size {size}");
    }
    if shape.is_empty() {
        let zero = support::zeros(b, DType::I64, &[])?;
        return Ok(vec![Val::Tensor(x), Val::Tensor(zero)]);
    }
    let (values, indices) = sorted(b, x, dim, largest, with_indices)?;
    let mut limit = shape.clone();
    limit[dim] = k;
    let mut take = |v: Value| -> OpResult<Value> {
        if k == size {
            return Ok(v);
        }
        let start = vec![0; shape.len()];
        let strides = vec![1; shape.len()];
        Ok(b.slice(v, &start, &limit, &strides)?)
    };
    let values = take(values)?;
    let indices = indices.map(&mut take).transpose()?;
    Ok(vec![
        Val::Tensor(values),
        indices.map_or(Val::None, Val::Tensor),
    ])
}
