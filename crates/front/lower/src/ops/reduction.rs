//! Reductions: sums, means, extrema, arg-extrema, any/all, softmax, cumulative sums and products.

use tpuc_ir::{BinaryOp, ComparisonDirection, FunctionBuilder, Value, WindowAttrs};
use tpuc_pt2::DType;

use super::elementwise::truthy;
use super::norm::compute_dtype;
use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::dtype::{element_type, is_integral};
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::{Scalar, real_part, to_float};
use crate::support::{
    self, arg_extremum, broadcast_back, norm_dims, reduce, reduce_extremum, reduce_init,
    reduce_mean,
};

pub(super) const OPS: &[OpDef] = &[
    aten(
        "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
        sum,
    ),
    aten("sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", sum),
    aten(
        "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
        mean,
    ),
    aten(
        "mean(Tensor self, *, ScalarType? dtype=None) -> Tensor",
        mean,
    ),
    aten(
        "prod(Tensor self, *, ScalarType? dtype=None) -> Tensor",
        prod,
    ),
    aten(
        "prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
        prod,
    ),
    aten(
        "amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
        amax,
    ),
    aten(
        "amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
        amin,
    ),
    aten("max(Tensor self) -> Tensor", amax),
    aten("min(Tensor self) -> Tensor", amin),
    aten(
        "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
        max_dim,
    ),
    aten(
        "min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
        min_dim,
    ),
    aten(
        "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
        argmax,
    ),
    aten(
        "argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
        argmin,
    ),
    aten("any(Tensor self) -> Tensor", any),
    aten(
        "any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor",
        any,
    ),
    aten(
        "any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor",
        any,
    ),
    aten("all(Tensor self) -> Tensor", all),
    aten(
        "all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor",
        all,
    ),
    aten(
        "all.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor",
        all,
    ),
    aten(
        "var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
        var,
    ),
    aten(
        "std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
        std,
    ),
    aten("var(Tensor self, bool unbiased=True) -> Tensor", var),
    aten(
        "var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor",
        var,
    ),
    aten("std(Tensor self, bool unbiased=True) -> Tensor", std),
    aten(
        "std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor",
        std,
    ),
    aten(
        "softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
        softmax,
    ),
    aten(
        "_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
        softmax,
    ),
    aten(
        "_safe_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
        safe_softmax,
    ),
    aten(
        "log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
        log_softmax,
    ),
    aten(
        "_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor",
        log_softmax,
    ),
    aten(
        "logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor",
        logsumexp,
    ),
    aten(
        "cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
        cumsum,
    ),
    aten(
        "cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
        cumprod,
    ),
];

/// The reduced dimensions: all of them when the argument is absent, None or empty.
fn reduced_dims(b: &FunctionBuilder, x: Value, args: &Args<'_>) -> OpResult<Vec<usize>> {
    let rank = support::rank(b, x)?;
    let dims = match args.raw("dim") {
        Ok(_) => match args.opt_ints("dim")? {
            Some(d) if !d.is_empty() => d,
            _ => (0..rank as i64).collect(),
        },
        Err(_) => (0..rank as i64).collect(),
    };
    // A 0-d tensor accepts dimension 0 (or -1) and has nothing to reduce.
    Ok(norm_dims(&dims, rank)?
        .into_iter()
        .filter(|&d| d < rank)
        .collect())
}

fn keepdim(args: &Args<'_>) -> OpResult<bool> {
    match args.raw("keepdim") {
        Ok(_) => args.bool("keepdim"),
        Err(_) => Ok(false),
    }
}

/// The input converted to the `dtype` argument, or for sums of integers and bools to int64.
fn accumulate_input(
    b: &mut FunctionBuilder,
    x: Value,
    args: &Args<'_>,
    promote_ints: bool,
) -> OpResult<Value> {
    let requested = match args.raw("dtype") {
        Ok(_) => args.opt_dtype("dtype")?,
        Err(_) => None,
    };
    let dtype = support::dtype(b, x)?;
    let target = requested.unwrap_or(
        if promote_ints && (is_integral(dtype) || dtype == DType::Bool) {
            DType::I64
        } else {
            dtype
        },
    );
    support::convert(b, x, target)
}

fn sum(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let x = accumulate_input(cx.b, x, args, true)?;
    let dims = reduced_dims(cx.b, x, args)?;
    one(reduce(cx.b, BinaryOp::Add, x, &dims, keepdim(args)?)?)
}

fn prod(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let x = accumulate_input(cx.b, x, args, true)?;
    let dims = reduced_dims(cx.b, x, args)?;
    one(reduce(cx.b, BinaryOp::Multiply, x, &dims, keepdim(args)?)?)
}

fn mean(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let x = accumulate_input(cx.b, x, args, false)?;
    let element = support::element(cx.b, x)?;
    if !element.is_float() && !element.is_complex() {
        bail!(
            "mean needs a floating or complex tensor (pass `dtype=`), got {}",
            support::dtype(cx.b, x)?
        );
    }
    let dims = reduced_dims(cx.b, x, args)?;
    let m = reduce_mean(cx.b, x, &dims)?;
    if !keepdim(args)? {
        return one(m);
    }
    let mut kept = support::shape(cx.b, x)?;
    for &d in &dims {
        kept[d] = 1;
    }
    one(support::reshape(cx.b, m, &kept)?)
}

fn extremum(cx: &mut Cx<'_>, args: &Args<'_>, max: bool) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let dims = reduced_dims(cx.b, x, args)?;
    one(reduce_extremum(cx.b, max, x, &dims, keepdim(args)?)?)
}

fn amax(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    extremum(cx, args, true)
}
fn amin(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    extremum(cx, args, false)
}

/// Value and index of the maximum (`max`) or minimum along `dim`; ties take the first index,
/// NaN counts as the extremum (as torch).
fn arg_reduce(
    b: &mut FunctionBuilder,
    x: Value,
    dim: usize,
    max: bool,
) -> OpResult<(Value, Value)> {
    let shape = support::shape(b, x)?;
    if shape.is_empty() {
        // A 0-d tensor is its own extremum, at index 0.
        return Ok((x, support::splat(b, DType::I64, &[], Scalar::Int(0))?));
    }
    let element = support::element(b, x)?;
    let index_ty = element_type(DType::I64)?;
    let iota = b.iota(support::tensor_type(index_ty, &shape), dim as i64)?;
    let init_value = reduce_init(
        b,
        if max {
            BinaryOp::Maximum
        } else {
            BinaryOp::Minimum
        },
        element,
    )?;
    let init_index = support::splat(b, DType::I64, &[], Scalar::Int(0))?;
    let results = b.reduce(
        &[x, iota],
        &[init_value, init_index],
        &[dim as i64],
        |b, a| {
            let (value, index) = arg_extremum(b, (a[0], a[1]), (a[2], a[3]), max, false)?;
            Ok(vec![value, index])
        },
    )?;
    Ok((results[0], results[1]))
}

fn with_kept_dim(
    b: &mut FunctionBuilder,
    v: Value,
    shape: &[i64],
    dim: usize,
    keep: bool,
) -> OpResult<Value> {
    if !keep || shape.is_empty() {
        return Ok(v);
    }
    let mut to = shape.to_vec();
    to[dim] = 1;
    support::reshape(b, v, &to)
}

fn minmax_dim(cx: &mut Cx<'_>, args: &Args<'_>, max: bool) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let shape = support::shape(cx.b, x)?;
    let dim = support::norm_dim(args.int("dim")?, shape.len())?;
    let keep = args.bool("keepdim")?;
    let (values, indices) = arg_reduce(cx.b, x, dim, max)?;
    let values = with_kept_dim(cx.b, values, &shape, dim, keep)?;
    let indices = with_kept_dim(cx.b, indices, &shape, dim, keep)?;
    Ok(vec![Val::Tensor(values), Val::Tensor(indices)])
}

fn max_dim(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    minmax_dim(cx, args, true)
}
fn min_dim(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    minmax_dim(cx, args, false)
}

fn argext(cx: &mut Cx<'_>, args: &Args<'_>, max: bool) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let keep = args.bool("keepdim")?;
    let shape = support::shape(cx.b, x)?;
    match args.opt_int("dim")? {
        Some(dim) => {
            let dim = support::norm_dim(dim, shape.len())?;
            let (_, indices) = arg_reduce(cx.b, x, dim, max)?;
            one(with_kept_dim(cx.b, indices, &shape, dim, keep)?)
        }
        None => {
            let flat = support::reshape(cx.b, x, &[support::numel(&shape)])?;
            let (_, index) = arg_reduce(cx.b, flat, 0, max)?;
            let to = if keep {
                vec![1; shape.len()]
            } else {
                Vec::new()
            };
            one(support::reshape(cx.b, index, &to)?)
        }
    }
}

fn argmax(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    argext(cx, args, true)
}
fn argmin(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    argext(cx, args, false)
}

fn boolean(cx: &mut Cx<'_>, args: &Args<'_>, op: BinaryOp) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let x = truthy(cx.b, x)?;
    let rank = support::rank(cx.b, x)?;
    let dims = match args.raw("dim") {
        Ok(_) => match args.opt_ints("dim")? {
            Some(d) => norm_dims(&d, rank)?,
            None => (0..rank).collect(),
        },
        Err(_) => (0..rank).collect(),
    };
    one(reduce(cx.b, op, x, &dims, keepdim(args)?)?)
}

fn any(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    boolean(cx, args, BinaryOp::Or)
}
fn all(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    boolean(cx, args, BinaryOp::And)
}

/// The variance in the dtype it is computed in, and the result's dtype.
fn variance(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<(Value, DType)> {
    let x = args.tensor("self")?;
    let dims = reduced_dims(cx.b, x, args)?;
    let keep = keepdim(args)?;
    let correction = if args.raw("correction").is_ok() {
        args.opt_scalar("correction")?
            .unwrap_or(Scalar::Int(1))
            .as_f64()
    } else if args.raw("unbiased").is_ok() {
        f64::from(u8::from(args.bool("unbiased")?))
    } else {
        1.0
    };
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    let count: i64 = dims.iter().map(|&d| shape[d]).product();
    // Half types accumulate in float32 and round once, as torch's kernel.
    let dtype = support::dtype(b, x)?;
    let x = support::convert(b, x, compute_dtype(dtype))?;
    let m = reduce_mean(b, x, &dims)?;
    let m = broadcast_back(b, m, &dims, &shape)?;
    let c = b.subtract(x, m)?;
    let sq = support::squared_magnitude(b, c)?;
    let ss = reduce(b, BinaryOp::Add, sq, &dims, keep)?;
    let degrees = (count as f64 - correction).max(0.0);
    let reciprocal = support::like(b, ss, Scalar::Float(1.0 / degrees))?;
    Ok((b.multiply(ss, reciprocal)?, real_part(dtype)))
}

fn var(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let (v, dtype) = variance(cx, args)?;
    one(support::convert(cx.b, v, dtype)?)
}

fn std(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let (v, dtype) = variance(cx, args)?;
    let s = cx.b.sqrt(v)?;
    one(support::convert(cx.b, s, dtype)?)
}

/// The softmax input: converted to `dtype` if given, and computed in float32 for half types.
fn softmax_input(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<(Value, DType, usize)> {
    let x = args.tensor("self")?;
    let requested = match args.raw("dtype") {
        Ok(_) => args.opt_dtype("dtype")?,
        Err(_) => None,
    };
    let half_to_float = args.raw("half_to_float").is_ok() && args.bool("half_to_float")?;
    let mut out = requested.unwrap_or(support::dtype(cx.b, x)?);
    if half_to_float {
        out = DType::F32;
    }
    let x = support::convert(cx.b, x, out)?;
    let x = support::convert(cx.b, x, compute_dtype(out))?;
    let dim = support::norm_dim(args.int("dim")?, support::rank(cx.b, x)?)?;
    Ok((x, out, dim))
}

/// `exp(x - max)` and its sum over `dim` (reduced shape), for softmax and friends.
fn shifted_exp(b: &mut FunctionBuilder, x: Value, dim: usize) -> OpResult<(Value, Value, Value)> {
    let shape = support::shape(b, x)?;
    let max = reduce(b, BinaryOp::Maximum, x, &[dim], false)?;
    let max_full = broadcast_back(b, max, &[dim], &shape)?;
    let shifted = b.subtract(x, max_full)?;
    let e = b.exponential(shifted)?;
    let s = reduce(b, BinaryOp::Add, e, &[dim], false)?;
    Ok((shifted, e, s))
}

fn softmax(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let (x, out, dim) = softmax_input(cx, args)?;
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    let (_, e, s) = shifted_exp(b, x, dim)?;
    let s = broadcast_back(b, s, &[dim], &shape)?;
    let y = b.divide(e, s)?;
    one(support::convert(b, y, out)?)
}

/// Softmax where a row of only `-inf` gives zeros instead of NaN.
fn safe_softmax(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let (x, out, dim) = softmax_input(cx, args)?;
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    let (_, e, s) = shifted_exp(b, x, dim)?;
    let s = broadcast_back(b, s, &[dim], &shape)?;
    let y = b.divide(e, s)?;
    let neg_inf = support::like(b, x, Scalar::Float(f64::NEG_INFINITY))?;
    let masked = b.compare(ComparisonDirection::Eq, x, neg_inf)?;
    let all_masked = reduce(b, BinaryOp::And, masked, &[dim], false)?;
    let all_masked = broadcast_back(b, all_masked, &[dim], &shape)?;
    let zero = support::like(b, y, Scalar::Int(0))?;
    let y = b.select(all_masked, zero, y)?;
    one(support::convert(b, y, out)?)
}

fn log_softmax(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let (x, out, dim) = softmax_input(cx, args)?;
    let y = log_softmax_of(cx.b, x, dim)?;
    one(support::convert(cx.b, y, out)?)
}

/// `x - logsumexp(x)` along `dim`, shifted by the maximum for stability.
pub(crate) fn log_softmax_of(b: &mut FunctionBuilder, x: Value, dim: usize) -> OpResult<Value> {
    let shape = support::shape(b, x)?;
    let (shifted, _, s) = shifted_exp(b, x, dim)?;
    let l = b.log(s)?;
    let l = broadcast_back(b, l, &[dim], &shape)?;
    Ok(b.subtract(shifted, l)?)
}

fn logsumexp(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let dtype = support::dtype(cx.b, x)?;
    let x = support::convert(cx.b, x, to_float(dtype))?;
    let dims = reduced_dims(cx.b, x, args)?;
    let keep = keepdim(args)?;
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    // A complex tensor shifts by its real parts' maximum (as torch), which leaves the
    // imaginary parts, and so the branch of the logarithm, as they are.
    let real = if dtype.is_complex() { b.real(x)? } else { x };
    let max = reduce(b, BinaryOp::Maximum, real, &dims, false)?;
    let max = support::convert(b, max, support::dtype(b, x)?)?;
    let max_full = broadcast_back(b, max, &dims, &shape)?;
    let shifted = b.subtract(x, max_full)?;
    let e = b.exponential(shifted)?;
    let s = reduce(b, BinaryOp::Add, e, &dims, false)?;
    let l = b.log(s)?;
    let y = b.add(l, max)?;
    let to: Vec<i64> = shape
        .iter()
        .enumerate()
        .filter_map(|(i, &d)| {
            if dims.contains(&i) {
                keep.then_some(1)
            } else {
                Some(d)
            }
        })
        .collect();
    one(support::reshape(b, y, &to)?)
}

/// A running sum (`Add`) or product (`Multiply`) along `dim`: a window over every earlier
/// element. Half types accumulate in float32, each result rounded once, as torch's kernel.
fn cumulative(cx: &mut Cx<'_>, args: &Args<'_>, op: BinaryOp) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let x = accumulate_input(cx.b, x, args, true)?;
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    if shape.is_empty() {
        return one(x);
    }
    let dim = support::norm_dim(args.int("dim")?, shape.len())?;
    let dtype = support::dtype(b, x)?;
    let wide = support::convert(b, x, compute_dtype(dtype))?;
    let y = running(b, wide, dim, op)?;
    one(support::convert(b, y, dtype)?)
}

/// The running `op` of `x` along `dim`: a window over every earlier element.
pub(crate) fn running(
    b: &mut FunctionBuilder,
    x: Value,
    dim: usize,
    op: BinaryOp,
) -> OpResult<Value> {
    let shape = support::shape(b, x)?;
    let n = shape[dim];
    let element = support::element(b, x)?;
    let init = reduce_init(b, op, element)?;
    let mut window = vec![1; shape.len()];
    window[dim] = n;
    let mut padding = vec![(0, 0); shape.len()];
    padding[dim] = (n - 1, 0);
    let attrs = WindowAttrs {
        window_dimensions: window,
        padding,
        ..WindowAttrs::default()
    };
    let out = b.reduce_window(&[x], &[init], attrs, |b, a| {
        Ok(vec![b.binary(op, a[0], a[1])?])
    })?;
    Ok(out[0])
}

fn cumsum(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    cumulative(cx, args, BinaryOp::Add)
}

fn cumprod(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    cumulative(cx, args, BinaryOp::Multiply)
}
