//! Layout ops: views, reshapes, permutations, broadcasts, joins and splits.

use tpuc_ir::{ComparisonDirection, ElementType, FunctionBuilder, Value};
use tpuc_pt2::DType;

use super::one;
use crate::args::{Args, Operand};
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support::{self, norm_dim, numel};

pub(super) const OPS: &[OpDef] = &[
    aten("view(Tensor(a) self, SymInt[] size) -> Tensor(a)", view),
    aten("reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)", view),
    aten("_unsafe_view(Tensor self, SymInt[] size) -> Tensor", view),
    aten("permute(Tensor(a) self, int[] dims) -> Tensor(a)", permute),
    aten(
        "broadcast_tensors(Tensor[] tensors) -> Tensor[]",
        broadcast_tensors,
    ),
    aten(
        "transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
        transpose,
    ),
    aten("t(Tensor(a) self) -> Tensor(a)", t),
    aten(
        "expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)",
        expand,
    ),
    aten(
        "expand_as(Tensor(a) self, Tensor other) -> Tensor(a)",
        expand_as,
    ),
    aten("unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", unsqueeze),
    aten("squeeze(Tensor(a) self) -> Tensor(a)", squeeze),
    aten("squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)", squeeze),
    aten(
        "squeeze.dims(Tensor(a) self, int[] dim) -> Tensor(a)",
        squeeze,
    ),
    aten(
        "flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)",
        flatten,
    ),
    aten(
        "unflatten.int(Tensor(a) self, int dim, SymInt[] sizes) -> Tensor(a)",
        unflatten,
    ),
    aten("cat(Tensor[] tensors, int dim=0) -> Tensor", cat),
    aten("concat(Tensor[] tensors, int dim=0) -> Tensor", cat),
    aten("stack(Tensor[] tensors, int dim=0) -> Tensor", stack),
    aten(
        "split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
        split,
    ),
    aten(
        "split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]",
        split_with_sizes,
    ),
    aten(
        "chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]",
        chunk,
    ),
    aten(
        "unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
        unbind,
    ),
    aten(
        "slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)",
        slice,
    ),
    aten(
        "narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)",
        narrow,
    ),
    aten(
        "select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)",
        select,
    ),
    aten("repeat(Tensor self, SymInt[] repeats) -> Tensor", repeat),
    aten(
        "diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor",
        diff,
    ),
    aten("tril(Tensor self, int diagonal=0) -> Tensor", tril),
    aten("triu(Tensor self, int diagonal=0) -> Tensor", triu),
    aten(
        "constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor",
        constant_pad_nd,
    ),
    aten("flip(Tensor self, int[] dims) -> Tensor", flip),
    aten(
        "roll(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor",
        roll,
    ),
    aten(
        "slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor",
        slice_scatter,
    ),
    aten(
        "select_scatter(Tensor self, Tensor src, int dim, SymInt index) -> Tensor",
        select_scatter,
    ),
    aten(
        "copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor",
        copy,
    ),
    aten("fill.Scalar(Tensor self, Scalar value) -> Tensor", fill),
    aten(
        "fill.Tensor(Tensor self, Tensor value) -> Tensor",
        fill_tensor,
    ),
    aten("zero(Tensor self) -> Tensor", zero),
];

/// Resolves one `-1` in a requested shape.
pub(crate) fn infer_shape(requested: &[i64], count: i64) -> OpResult<Vec<i64>> {
    let known: i64 = requested.iter().filter(|&&d| d != -1).product();
    let holes = requested.iter().filter(|&&d| d == -1).count();
    match holes {
        0 if known == count => Ok(requested.to_vec()),
        1 if known != 0 && count % known == 0 => Ok(requested
            .iter()
            .map(|&d| if d == -1 { count / known } else { d })
            .collect()),
        _ => bail!("cannot view {count} elements as {requested:?}"),
    }
}

fn view(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let requested = if args.given("shape") || args.raw("size").is_err() {
        args.ints("shape")?
    } else {
        args.ints("size")?
    };
    let count = numel(&support::shape(cx.b, x)?);
    let to = infer_shape(&requested, count)?;
    one(support::reshape(cx.b, x, &to)?)
}

fn permute(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let rank = support::rank(cx.b, x)?;
    let dims: Vec<i64> = support::norm_dims(&args.ints("dims")?, rank)?
        .into_iter()
        .map(|d| d as i64)
        .collect();
    one(support::transpose(cx.b, x, &dims)?)
}

pub(crate) fn swap_dims(b: &mut FunctionBuilder, x: Value, d0: i64, d1: i64) -> OpResult<Value> {
    let rank = support::rank(b, x)?;
    let (d0, d1) = (norm_dim(d0, rank)?, norm_dim(d1, rank)?);
    let mut perm: Vec<i64> = (0..rank as i64).collect();
    perm.swap(d0, d1);
    support::transpose(b, x, &perm)
}

fn transpose(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    one(swap_dims(cx.b, x, args.int("dim0")?, args.int("dim1")?)?)
}

fn t(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    if support::rank(cx.b, x)? < 2 {
        return one(x);
    }
    one(swap_dims(cx.b, x, 0, 1)?)
}

pub(crate) fn expand_to(b: &mut FunctionBuilder, x: Value, size: &[i64]) -> OpResult<Value> {
    let from = support::shape(b, x)?;
    if size.len() < from.len() {
        bail!("cannot expand {from:?} to {size:?}");
    }
    let offset = size.len() - from.len();
    let to: Vec<i64> = size
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            if s == -1 && i >= offset {
                from[i - offset]
            } else {
                s
            }
        })
        .collect();
    support::broadcast_to(b, x, &to)
}

fn expand(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    one(expand_to(cx.b, x, &args.ints("size")?)?)
}

/// Every tensor expanded to the shape they broadcast to.
fn broadcast_tensors(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let tensors = args.tensors("tensors")?;
    let mut shape = Vec::new();
    for &t in &tensors {
        shape = support::broadcast_shapes(&shape, &support::shape(cx.b, t)?)?;
    }
    let expanded = tensors
        .into_iter()
        .map(|t| support::broadcast_to(cx.b, t, &shape))
        .collect::<OpResult<_>>()?;
    Ok(vec![Val::Tensors(expanded)])
}

fn expand_as(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let other = args.tensor("other")?;
    let to = support::shape(cx.b, other)?;
    one(support::broadcast_to(cx.b, x, &to)?)
}

fn unsqueeze(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let mut shape = support::shape(cx.b, x)?;
    let dim = norm_dim(args.int("dim")?, shape.len() + 1)?;
    shape.insert(dim, 1);
    one(support::reshape(cx.b, x, &shape)?)
}

fn squeeze(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let shape = support::shape(cx.b, x)?;
    let dims: Vec<usize> = match args.opt_ints("dim") {
        Ok(Some(dims)) => support::norm_dims(&dims, shape.len())?,
        _ => (0..shape.len()).collect(),
    };
    let to: Vec<i64> = shape
        .iter()
        .enumerate()
        .filter(|&(i, &s)| !(s == 1 && dims.contains(&i)))
        .map(|(_, &s)| s)
        .collect();
    one(support::reshape(cx.b, x, &to)?)
}

fn flatten(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let shape = support::shape(cx.b, x)?;
    if shape.is_empty() {
        return one(support::reshape(cx.b, x, &[1])?);
    }
    let start = norm_dim(args.int("start_dim")?, shape.len())?;
    let end = norm_dim(args.int("end_dim")?, shape.len())?;
    if start > end {
        bail!("flatten: start_dim {start} comes after end_dim {end}");
    }
    let mut to = shape[..start].to_vec();
    to.push(numel(&shape[start..=end]));
    to.extend_from_slice(&shape[end + 1..]);
    one(support::reshape(cx.b, x, &to)?)
}

fn unflatten(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let shape = support::shape(cx.b, x)?;
    let dim = norm_dim(args.int("dim")?, shape.len())?;
    let sizes = infer_shape(&args.ints("sizes")?, shape[dim])?;
    let mut to = shape[..dim].to_vec();
    to.extend(sizes);
    to.extend_from_slice(&shape[dim + 1..]);
    one(support::reshape(cx.b, x, &to)?)
}

/// Concatenates after promoting to a common dtype; empty 1-D tensors are skipped as torch does.
pub(crate) fn concat(b: &mut FunctionBuilder, tensors: &[Value], dim: i64) -> OpResult<Value> {
    let operands: Vec<Operand> = tensors.iter().map(|&t| Operand::Tensor(t)).collect();
    let dtype = support::result_type(b, &operands)?;
    let mut inputs = Vec::new();
    let mut rank = 0;
    for &t in tensors {
        let shape = support::shape(b, t)?;
        if shape == [0] {
            continue;
        }
        rank = shape.len();
        inputs.push(support::convert(b, t, dtype)?);
    }
    match inputs.as_slice() {
        [] => bail!("cat of no non-empty tensors"),
        [single] => Ok(*single),
        _ => {
            let dim = norm_dim(dim, rank)?;
            Ok(b.concatenate(&inputs, dim as i64)?)
        }
    }
}

fn cat(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let tensors = args.tensors("tensors")?;
    one(concat(cx.b, &tensors, args.int("dim")?)?)
}

fn stack(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let tensors = args.tensors("tensors")?;
    let Some(&first) = tensors.first() else {
        bail!("stack of no tensors");
    };
    let shape = support::shape(cx.b, first)?;
    let dim = norm_dim(args.int("dim")?, shape.len() + 1)?;
    let mut to = shape.clone();
    to.insert(dim, 1);
    let mut parts = Vec::new();
    for t in tensors {
        parts.push(support::reshape(cx.b, t, &to)?);
    }
    one(concat(cx.b, &parts, dim as i64)?)
}

/// A static slice along one dimension.
pub(crate) fn slice_dim(
    b: &mut FunctionBuilder,
    x: Value,
    dim: usize,
    start: i64,
    end: i64,
    step: i64,
) -> OpResult<Value> {
    let shape = support::shape(b, x)?;
    if start == 0 && end == shape[dim] && step == 1 {
        return Ok(x);
    }
    let mut starts = vec![0; shape.len()];
    let mut limits = shape.clone();
    let mut strides = vec![1; shape.len()];
    starts[dim] = start;
    limits[dim] = end.max(start);
    strides[dim] = step;
    Ok(b.slice(x, &starts, &limits, &strides)?)
}

/// Python slice bounds clamped into `[0, size]`.
fn clamp_bound(value: i64, size: i64) -> i64 {
    let v = if value < 0 { value + size } else { value };
    v.clamp(0, size)
}

fn slice(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let shape = support::shape(cx.b, x)?;
    let dim = norm_dim(args.int("dim")?, shape.len())?;
    let size = shape[dim];
    let start = clamp_bound(args.opt_int("start")?.unwrap_or(0), size);
    let end = clamp_bound(args.opt_int("end")?.unwrap_or(size), size);
    let step = args.int("step")?;
    if step < 1 {
        bail!("slice step must be positive, got {step}");
    }
    one(slice_dim(cx.b, x, dim, start, end, step)?)
}

fn narrow(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let shape = support::shape(cx.b, x)?;
    let dim = norm_dim(args.int("dim")?, shape.len())?;
    let mut start = args.int("start")?;
    if start < 0 {
        start += shape[dim];
    }
    let length = args.int("length")?;
    one(slice_dim(cx.b, x, dim, start, start + length, 1)?)
}

/// `x.select(dim, index)`: a slice of one element, dimension dropped.
pub(crate) fn select_index(
    b: &mut FunctionBuilder,
    x: Value,
    dim: usize,
    index: i64,
) -> OpResult<Value> {
    let shape = support::shape(b, x)?;
    let size = shape[dim];
    if index < -size || index >= size {
        bail!("index {index} is out of range for dimension {dim} of size {size}");
    }
    let index = if index < 0 { index + size } else { index };
    let sliced = slice_dim(b, x, dim, index, index + 1, 1)?;
    let mut to = shape;
    to.remove(dim);
    support::reshape(b, sliced, &to)
}

fn select(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let rank = support::rank(cx.b, x)?;
    let dim = norm_dim(args.int("dim")?, rank)?;
    one(select_index(cx.b, x, dim, args.int("index")?)?)
}

/// Consecutive slices of the given sizes along `dim`.
fn split_sizes(b: &mut FunctionBuilder, x: Value, sizes: &[i64], dim: i64) -> OpResult<Vec<Val>> {
    let shape = support::shape(b, x)?;
    let dim = norm_dim(dim, shape.len())?;
    let mut start = 0;
    let mut parts = Vec::new();
    for &size in sizes {
        parts.push(slice_dim(b, x, dim, start, start + size, 1)?);
        start += size;
    }
    if start != shape[dim] {
        bail!("split sizes {sizes:?} do not add up to {}", shape[dim]);
    }
    Ok(vec![Val::Tensors(parts)])
}

fn split(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let shape = support::shape(cx.b, x)?;
    let dim = args.int("dim")?;
    let total = shape[norm_dim(dim, shape.len())?];
    let size = args.int("split_size")?;
    if size <= 0 {
        bail!("split size must be positive, got {size}");
    }
    let mut sizes = vec![size; (total / size) as usize];
    if total % size != 0 {
        sizes.push(total % size);
    }
    split_sizes(cx.b, x, &sizes, dim)
}

fn split_with_sizes(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    split_sizes(cx.b, x, &args.ints("split_sizes")?, args.int("dim")?)
}

fn chunk(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let shape = support::shape(cx.b, x)?;
    let dim = args.int("dim")?;
    let total = shape[norm_dim(dim, shape.len())?];
    let chunks = args.int("chunks")?;
    if chunks <= 0 {
        bail!("chunk count must be positive, got {chunks}");
    }
    let size = (total + chunks - 1) / chunks;
    let mut sizes = Vec::new();
    let mut left = total;
    while left > 0 {
        sizes.push(size.min(left));
        left -= size.min(left);
    }
    split_sizes(cx.b, x, &sizes, dim)
}

fn unbind(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let shape = support::shape(cx.b, x)?;
    let dim = norm_dim(args.int("dim")?, shape.len())?;
    let parts = (0..shape[dim])
        .map(|i| select_index(cx.b, x, dim, i))
        .collect::<OpResult<_>>()?;
    Ok(vec![Val::Tensors(parts)])
}

fn repeat(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let repeats = args.ints("repeats")?;
    let shape = support::shape(cx.b, x)?;
    if repeats.len() < shape.len() {
        bail!("repeat needs at least {} repeat counts", shape.len());
    }
    // Broadcast to [r0, s0, r1, s1, ...] and merge each pair.
    let offset = repeats.len() - shape.len();
    let padded: Vec<i64> = (0..repeats.len())
        .map(|i| if i < offset { 1 } else { shape[i - offset] })
        .collect();
    let mut expanded = Vec::new();
    let mut dims = Vec::new();
    for (i, (&r, &s)) in repeats.iter().zip(&padded).enumerate() {
        expanded.push(r);
        expanded.push(s);
        if i >= offset {
            dims.push(2 * i as i64 + 1);
        }
    }
    let broadcast = support::broadcast_in_dim(cx.b, x, &dims, &expanded)?;
    let to: Vec<i64> = repeats.iter().zip(&padded).map(|(r, s)| r * s).collect();
    one(support::reshape(cx.b, broadcast, &to)?)
}

/// `x[1:] - x[:-1]` along `dim`, `n` times (xor for bools), after joining `prepend`/`append`.
fn diff(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let mut x = args.tensor("self")?;
    let rank = support::rank(cx.b, x)?;
    let dim = norm_dim(args.int("dim")?, rank)?;
    let mut parts = Vec::new();
    parts.extend(args.opt_tensor("prepend")?);
    parts.push(x);
    parts.extend(args.opt_tensor("append")?);
    if parts.len() > 1 {
        x = concat(cx.b, &parts, dim as i64)?;
    }
    let is_bool = support::dtype(cx.b, x)? == tpuc_pt2::DType::Bool;
    for _ in 0..args.int("n")? {
        let size = support::shape(cx.b, x)?[dim];
        if size == 0 {
            break;
        }
        let hi = slice_dim(cx.b, x, dim, 1, size, 1)?;
        let lo = slice_dim(cx.b, x, dim, 0, size - 1, 1)?;
        x = if is_bool {
            cx.b.xor(hi, lo)?
        } else {
            cx.b.subtract(hi, lo)?
        };
    }
    one(x)
}

/// Keeps the elements with `col - row` on the kept side of `diagonal`, zeroes the rest.
fn triangle(cx: &mut Cx<'_>, args: &Args<'_>, lower: bool) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let diagonal = args.int("diagonal")?;
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    let r = shape.len();
    if r < 2 {
        bail!("tril/triu need at least 2 dimensions, got {shape:?}");
    }
    let ty = support::tensor_type(ElementType::I64, &shape[r - 2..]);
    let rows = b.iota(ty.clone(), 0)?;
    let cols = b.iota(ty, 1)?;
    let offset = b.subtract(cols, rows)?;
    let k = support::like(b, offset, Scalar::Int(diagonal))?;
    let direction = if lower {
        ComparisonDirection::Le
    } else {
        ComparisonDirection::Ge
    };
    let keep = b.compare(direction, offset, k)?;
    let keep = support::broadcast_in_dim(b, keep, &[r as i64 - 2, r as i64 - 1], &shape)?;
    let zero = support::like(b, x, Scalar::Int(0))?;
    one(b.select(keep, x, zero)?)
}

fn tril(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    triangle(cx, args, true)
}
fn triu(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    triangle(cx, args, false)
}

/// `pad` lists (low, high) pairs from the last dimension backwards; negative values crop.
fn constant_pad_nd(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let pad = args.ints("pad")?;
    let value = args.scalar("value")?;
    one(pad_constant(cx.b, x, &pad, value)?)
}

/// `x` padded with `value`: `pad` holds (before, after) pairs from the last dimension back,
/// as torch writes them; negative amounts crop.
pub(crate) fn pad_constant(
    b: &mut FunctionBuilder,
    x: Value,
    pad: &[i64],
    value: Scalar,
) -> OpResult<Value> {
    let shape = support::shape(b, x)?;
    if !pad.len().is_multiple_of(2) || pad.len() / 2 > shape.len() {
        bail!(
            "padding {pad:?} does not fit a tensor of rank {}",
            shape.len()
        );
    }
    let mut low = vec![0; shape.len()];
    let mut high = vec![0; shape.len()];
    for (i, pair) in pad.chunks(2).enumerate() {
        let d = shape.len() - 1 - i;
        low[d] = pair[0];
        high[d] = pair[1];
    }
    if low.iter().chain(&high).all(|&p| p == 0) {
        return Ok(x);
    }
    let dtype = support::dtype(b, x)?;
    let fill = support::splat(b, dtype, &[], value)?;
    let interior = vec![0; shape.len()];
    Ok(b.pad(x, fill, &low, &high, &interior)?)
}

fn flip(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let rank = support::rank(cx.b, x)?;
    let dims: Vec<i64> = support::norm_dims(&args.ints("dims")?, rank)?
        .into_iter()
        .filter(|&d| support::shape(cx.b, x).map(|s| s[d] > 1).unwrap_or(true))
        .map(|d| d as i64)
        .collect();
    if dims.is_empty() {
        return one(x);
    }
    one(cx.b.reverse(x, &dims)?)
}

/// Rotates `x` by `shift` along `dim`: the last `shift` elements come first.
fn roll_dim(b: &mut FunctionBuilder, x: Value, shift: i64, dim: usize) -> OpResult<Value> {
    let size = support::shape(b, x)?[dim];
    if size == 0 {
        return Ok(x);
    }
    let shift = shift.rem_euclid(size);
    if shift == 0 {
        return Ok(x);
    }
    let tail = slice_dim(b, x, dim, size - shift, size, 1)?;
    let head = slice_dim(b, x, dim, 0, size - shift, 1)?;
    Ok(b.concatenate(&[tail, head], dim as i64)?)
}

fn roll(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let shifts = args.ints("shifts")?;
    let dims = args.ints("dims")?;
    let shape = support::shape(cx.b, x)?;
    if dims.is_empty() {
        let flat = support::reshape(cx.b, x, &[numel(&shape)])?;
        let rolled = roll_dim(cx.b, flat, shifts.first().copied().unwrap_or(0), 0)?;
        return one(support::reshape(cx.b, rolled, &shape)?);
    }
    if dims.len() != shifts.len() {
        bail!("roll has {} shifts for {} dims", shifts.len(), dims.len());
    }
    let mut out = x;
    for (&shift, &dim) in shifts.iter().zip(&dims) {
        out = roll_dim(cx.b, out, shift, norm_dim(dim, shape.len())?)?;
    }
    one(out)
}

/// Writes `src` into `x` at the static offsets `starts`.
pub(crate) fn update_at(
    b: &mut FunctionBuilder,
    x: Value,
    src: Value,
    starts: &[i64],
) -> OpResult<Value> {
    let dtype = support::dtype(b, x)?;
    let src = support::convert(b, src, dtype)?;
    let indices = starts
        .iter()
        .map(|&s| support::splat(b, tpuc_pt2::DType::I64, &[], Scalar::Int(s)))
        .collect::<OpResult<Vec<_>>>()?;
    Ok(b.dynamic_update_slice(x, src, &indices)?)
}

fn slice_scatter(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let src = args.tensor("src")?;
    let shape = support::shape(cx.b, x)?;
    let dim = norm_dim(args.int("dim")?, shape.len())?;
    let size = shape[dim];
    let start = clamp_bound(args.opt_int("start")?.unwrap_or(0), size);
    let step = args.int("step")?;
    if step < 1 {
        bail!("slice_scatter takes a positive step, not {step}");
    }
    one(update_slice(cx.b, x, src, dim, start, step)?)
}

/// `x` with `x[..., start::step, ...] = src` along `dim` (`src` holds exactly the sliced
/// elements). A step of 1 is a `dynamic_update_slice`; a larger one pads `src` with `step - 1`
/// holes between elements and selects it where a padded mask says it landed.
pub(crate) fn update_slice(
    b: &mut FunctionBuilder,
    x: Value,
    src: Value,
    dim: usize,
    start: i64,
    step: i64,
) -> OpResult<Value> {
    let shape = support::shape(b, x)?;
    let mut starts = vec![0; shape.len()];
    starts[dim] = start;
    if step == 1 {
        return update_at(b, x, src, &starts);
    }
    let src = support::convert(b, src, support::dtype(b, x)?)?;
    let src_shape = support::shape(b, src)?;
    let count = src_shape[dim];
    if count == 0 {
        return Ok(x);
    }
    let rank = shape.len();
    let mut low = vec![0; rank];
    let mut high = vec![0; rank];
    let mut interior = vec![0; rank];
    low[dim] = start;
    high[dim] = shape[dim] - start - ((count - 1) * step + 1);
    interior[dim] = step - 1;
    let zero = support::splat(b, support::dtype(b, x)?, &[], Scalar::Int(0))?;
    let padded = b.pad(src, zero, &low, &high, &interior)?;
    let ones = support::splat(b, DType::Bool, &src_shape, Scalar::Bool(true))?;
    let no = support::splat(b, DType::Bool, &[], Scalar::Bool(false))?;
    let landed = b.pad(ones, no, &low, &high, &interior)?;
    Ok(b.select(landed, padded, x)?)
}

fn select_scatter(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let src = args.tensor("src")?;
    let shape = support::shape(cx.b, x)?;
    let dim = norm_dim(args.int("dim")?, shape.len())?;
    let mut index = args.int("index")?;
    if index < 0 {
        index += shape[dim];
    }
    let mut src_shape = support::shape(cx.b, src)?;
    src_shape.insert(dim, 1);
    let src = support::reshape(cx.b, src, &src_shape)?;
    let mut starts = vec![0; shape.len()];
    starts[dim] = index;
    one(update_at(cx.b, x, src, &starts)?)
}

/// `self.copy_(src)`: `src` broadcast to `self`'s shape in `self`'s dtype.
fn copy(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let src = args.tensor("src")?;
    let shape = support::shape(cx.b, x)?;
    let dtype = support::dtype(cx.b, x)?;
    let src = support::convert(cx.b, src, dtype)?;
    one(support::broadcast_to(cx.b, src, &shape)?)
}

fn zero(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    one(support::like(cx.b, x, Scalar::Int(0))?)
}

/// `fill.Tensor`: every element becomes the 0-d `value`, in `self`'s dtype.
fn fill_tensor(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let value = args.tensor("value")?;
    if support::rank(cx.b, value)? != 0 {
        bail!("fill_ takes a 0-dimensional value tensor");
    }
    let value = support::convert(cx.b, value, support::dtype(cx.b, x)?)?;
    let shape = support::shape(cx.b, x)?;
    one(support::broadcast_to(cx.b, value, &shape)?)
}

fn fill(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let value = args.scalar("value")?;
    one(support::like(cx.b, x, value)?)
}
