//! Gathers and scatters: `embedding`, advanced indexing (`index`, `index_put`), `gather`,
//! `index_select`, `index_copy`.

use tpuc_ir::{ComparisonDirection, FunctionBuilder, GatherDims, ScatterDims, Value};
use tpuc_pt2::DType;

use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpError, OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support::{self, norm_dim, numel};

pub(super) const OPS: &[OpDef] = &[
    aten(
        "embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) -> Tensor",
        embedding,
    ),
    aten(
        "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
        index,
    ),
    aten(
        "index_select(Tensor self, int dim, Tensor index) -> Tensor",
        index_select,
    ),
    aten(
        "index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor",
        index_put,
    ),
    aten(
        "index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor",
        index_copy,
    ),
    aten(
        "gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
        gather,
    ),
    aten(
        "scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
        scatter,
    ),
    aten(
        "scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
        scatter,
    ),
    aten(
        "scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor",
        scatter,
    ),
    aten(
        "scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, str reduce) -> Tensor",
        scatter,
    ),
    aten(
        "scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
        scatter_add,
    ),
    aten(
        "index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor",
        index_add,
    ),
];

/// Indices made non-negative (`i + size` where `i < 0`), as int64.
fn wrap_negative(b: &mut FunctionBuilder, index: Value, size: i64) -> OpResult<Value> {
    let index = support::convert(b, index, DType::I64)?;
    if let Some(Scalar::Int(i)) = support::splat_value(b, index)
        && i >= 0
    {
        return Ok(index);
    }
    let zero = support::like(b, index, Scalar::Int(0))?;
    let negative = b.compare(ComparisonDirection::Lt, index, zero)?;
    let n = support::like(b, index, Scalar::Int(size))?;
    let shifted = b.add(index, n)?;
    Ok(b.select(negative, shifted, index)?)
}

fn embedding(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let weight = args.tensor("weight")?;
    let indices = args.tensor("indices")?;
    let b = &mut *cx.b;
    let ws = support::shape(b, weight)?;
    if ws.len() != 2 {
        bail!("embedding weight must be 2-D, got {ws:?}");
    }
    let indices = support::convert(b, indices, DType::I64)?;
    cx.check_index(indices, 0, ws[0])?;
    let b = &mut *cx.b;
    let r = support::rank(b, indices)? as i64;
    let dims = GatherDims {
        offset_dims: vec![r],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: r,
        ..GatherDims::default()
    };
    one(b.gather(weight, indices, dims, &[1, ws[1]], false)?)
}

/// Indexed dimensions with their index tensors broadcast to one shape and stacked on a new last
/// dimension; and whether they are consecutive (torch then keeps them in place).
struct Indexing {
    dims: Vec<usize>,
    stacked: Value,
    batch_shape: Vec<i64>,
    consecutive: bool,
}

fn prepare(b: &mut FunctionBuilder, x: Value, indices: &[Option<Value>]) -> OpResult<Indexing> {
    let shape = support::shape(b, x)?;
    let mut dims = Vec::new();
    let mut tensors = Vec::new();
    for (d, index) in indices.iter().enumerate() {
        if let Some(index) = index {
            if matches!(support::dtype(b, *index)?, DType::Bool | DType::U8) {
                return Err(OpError::unsupported(
                    "indexing with a boolean mask (the result's shape depends on the data)",
                )
                .with_help(
                    "keep the shape static: `torch.where(mask, x, other)` or `x.masked_fill(~mask, v)` \
                     instead of `x[mask]`; a lone mask in an assignment (`x[mask] = v`) lowers",
                ));
            }
            if d >= shape.len() {
                bail!("too many indices for a tensor of rank {}", shape.len());
            }
            dims.push(d);
            tensors.push(wrap_negative(b, *index, shape[d])?);
        }
    }
    if tensors.is_empty() {
        bail!("indexing without index tensors");
    }
    let mut batch_shape = Vec::new();
    for &t in &tensors {
        batch_shape = support::broadcast_shapes(&batch_shape, &support::shape(b, t)?)?;
    }
    let mut column = batch_shape.clone();
    column.push(1);
    let mut parts = Vec::new();
    for t in tensors {
        let t = support::broadcast_to(b, t, &batch_shape)?;
        parts.push(support::reshape(b, t, &column)?);
    }
    let stacked = if parts.len() == 1 {
        parts[0]
    } else {
        b.concatenate(&parts, batch_shape.len() as i64)?
    };
    let consecutive = dims.windows(2).all(|w| w[1] == w[0] + 1);
    Ok(Indexing {
        dims,
        stacked,
        batch_shape,
        consecutive,
    })
}

/// Positions of the operand's non-indexed dimensions in the result.
fn window_positions(rank: usize, ix: &Indexing) -> Vec<i64> {
    let k = ix.batch_shape.len() as i64;
    let first = ix.dims[0];
    (0..rank)
        .filter(|d| !ix.dims.contains(d))
        .enumerate()
        .map(|(i, d)| {
            // Consecutive indexed dimensions stay in place; otherwise torch puts them first.
            let i = i as i64;
            if ix.consecutive && d < first {
                i
            } else {
                i + k
            }
        })
        .collect()
}

pub(crate) fn index_values(
    b: &mut FunctionBuilder,
    x: Value,
    indices: &[Option<Value>],
) -> OpResult<Value> {
    let shape = support::shape(b, x)?;
    let ix = prepare(b, x, indices)?;
    let dims_i64: Vec<i64> = ix.dims.iter().map(|&d| d as i64).collect();
    let slice_sizes: Vec<i64> = shape
        .iter()
        .enumerate()
        .map(|(d, &s)| if ix.dims.contains(&d) { 1 } else { s })
        .collect();
    let gather = GatherDims {
        offset_dims: window_positions(shape.len(), &ix),
        collapsed_slice_dims: dims_i64.clone(),
        start_index_map: dims_i64,
        index_vector_dim: ix.batch_shape.len() as i64,
        ..GatherDims::default()
    };
    Ok(b.gather(x, ix.stacked, gather, &slice_sizes, false)?)
}

/// `--debug`: integer indices of `x` (one per leading dimension, `None` for `:`) against
/// `[-size, size)`.
fn check_indices(cx: &mut Cx<'_>, x: Value, indices: &[Option<Value>]) -> OpResult<()> {
    let shape = support::shape(cx.b, x)?;
    for (&size, index) in shape.iter().zip(indices) {
        if let Some(index) = *index
            && !matches!(support::dtype(cx.b, index)?, DType::Bool | DType::U8)
        {
            cx.check_index(index, -size, size)?;
        }
    }
    Ok(())
}

fn index(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let indices = args.opt_tensors("indices")?;
    check_indices(cx, x, &indices)?;
    one(index_values(cx.b, x, &indices)?)
}

/// The operands of a dim-wise op (`index_select`, `index_add`, `gather`, ...), each 0-d one
/// as a vector of one element (torch's reading of them), and whether any was 0-d: the result
/// then takes torch's shape.
fn as_vectors<const N: usize>(
    b: &mut FunctionBuilder,
    values: [Value; N],
) -> OpResult<([Value; N], bool)> {
    let mut promoted = false;
    let mut out = values;
    for v in &mut out {
        if support::rank(b, *v)? == 0 {
            *v = support::reshape(b, *v, &[1])?;
            promoted = true;
        }
    }
    Ok((out, promoted))
}

/// `y`, reshaped to torch's result shape where `as_vectors` promoted an operand.
fn with_torch_shape(cx: &mut Cx<'_>, y: Value, promoted: bool) -> OpResult<Vec<Val>> {
    if !promoted {
        return one(y);
    }
    let shape = cx.out_shape(0)?;
    one(support::reshape(cx.b, y, &shape)?)
}

fn index_select(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let ([x, index], promoted) = as_vectors(cx.b, [args.tensor("self")?, args.tensor("index")?])?;
    let rank = support::rank(cx.b, x)?;
    let dim = norm_dim(args.int("dim")?, rank)?;
    let mut indices = vec![None; dim];
    indices.push(Some(index));
    check_indices(cx, x, &indices)?;
    let y = index_values(cx.b, x, &indices)?;
    with_torch_shape(cx, y, promoted)
}

/// `x[indices] = values` (or `+=` with `accumulate`), functionally.
pub(super) fn put_values(
    b: &mut FunctionBuilder,
    x: Value,
    indices: &[Option<Value>],
    values: Value,
    accumulate: bool,
) -> OpResult<Value> {
    let shape = support::shape(b, x)?;
    let dtype = support::dtype(b, x)?;
    let ix = prepare(b, x, indices)?;
    let windows = window_positions(shape.len(), &ix);
    // The updates have the shape `x[indices]` would have.
    let k = ix.batch_shape.len();
    let mut update_shape = vec![0; k + shape.len() - ix.dims.len()];
    let mut batch = ix.batch_shape.iter();
    let window_dims: Vec<usize> = (0..shape.len()).filter(|d| !ix.dims.contains(d)).collect();
    for (slot, size) in update_shape.iter_mut().enumerate() {
        *size = match windows.iter().position(|&p| p == slot as i64) {
            Some(w) => shape[window_dims[w]],
            None => *batch.next().unwrap_or(&1),
        };
    }
    let values = support::convert(b, values, dtype)?;
    let values = support::broadcast_to(b, values, &update_shape)?;
    let dims_i64: Vec<i64> = ix.dims.iter().map(|&d| d as i64).collect();
    let scatter = ScatterDims {
        update_window_dims: windows,
        inserted_window_dims: dims_i64.clone(),
        scatter_dims_to_operand_dims: dims_i64,
        index_vector_dim: k as i64,
        ..ScatterDims::default()
    };
    let out = b.scatter(
        &[x],
        ix.stacked,
        &[values],
        scatter,
        false,
        false,
        move |b, a| Ok(vec![if accumulate { b.add(a[0], a[1])? } else { a[1] }]),
    )?;
    Ok(out[0])
}

fn index_put(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let indices = args.opt_tensors("indices")?;
    let values = args.tensor("values")?;
    let accumulate = args.bool("accumulate")?;
    if let Some(mask) = lone_mask(cx.b, &indices)? {
        return one(put_masked(
            cx.b,
            x,
            indices.len() - 1,
            mask,
            values,
            accumulate,
        )?);
    }
    check_indices(cx, x, &indices)?;
    one(put_values(cx.b, x, &indices, values, accumulate)?)
}

/// The boolean mask when it is the only index tensor and the last entry (`x[..., mask] = v`).
fn lone_mask(b: &FunctionBuilder, indices: &[Option<Value>]) -> OpResult<Option<Value>> {
    let Some((Some(last), before)) = indices.split_last() else {
        return Ok(None);
    };
    let is_mask = matches!(support::dtype(b, *last)?, DType::Bool | DType::U8);
    Ok((is_mask && before.iter().all(Option::is_none)).then_some(*last))
}

/// `x[(:,) * lead + (mask,)] = values` (or `+=`): the result keeps `x`'s shape. The `i`-th
/// true element of the mask (row-major) takes `values`' `i`-th row along the masked
/// dimension, found by a running count of the mask; a row of one broadcasts.
fn put_masked(
    b: &mut FunctionBuilder,
    x: Value,
    lead: usize,
    mask: Value,
    values: Value,
    accumulate: bool,
) -> OpResult<Value> {
    let shape = support::shape(b, x)?;
    let dtype = support::dtype(b, x)?;
    let mask_shape = support::shape(b, mask)?;
    let k = mask_shape.len();
    if lead + k > shape.len() || shape[lead..lead + k] != mask_shape[..] {
        bail!(
            "a boolean mask of shape {mask_shape:?} after {lead} full slices does not match the              indexed tensor's {shape:?}"
        );
    }
    let masked = numel(&mask_shape);
    let (pre, post) = (&shape[..lead], &shape[lead + k..]);
    // `values` against `x[..., mask]`'s shape `pre + [count] + post`, aligned at the end.
    let rank = pre.len() + 1 + post.len();
    let mut vshape = support::shape(b, values)?;
    if vshape.len() > rank {
        bail!("index_put values {vshape:?} have more dimensions than the indexed result");
    }
    vshape.splice(0..0, std::iter::repeat_n(1, rank - vshape.len()));
    let values = support::reshape(b, values, &vshape)?;
    let values = support::convert(b, values, dtype)?;
    let rows = vshape[lead];
    let flat_mask = support::reshape(b, mask, &[masked])?;
    let flat_mask = support::convert(b, flat_mask, DType::Bool)?;
    let spread = [pre, &[masked][..], post].concat();
    let picked = if rows == 1 {
        support::broadcast_to(b, values, &spread)?
    } else {
        // Row `count of trues before and at i, minus one` for each mask position i.
        let ones = support::convert(b, flat_mask, DType::I64)?;
        let seen = super::reduction::running(b, ones, 0, tpuc_ir::BinaryOp::Add)?;
        let one_k = support::like(b, seen, Scalar::Int(1))?;
        let row = b.subtract(seen, one_k)?;
        let zero = support::like(b, row, Scalar::Int(0))?;
        let row = b.maximum(row, zero)?;
        let last = support::like(b, row, Scalar::Int(rows - 1))?;
        let row = b.minimum(row, last)?;
        let mut index = vec![None; lead];
        index.push(Some(row));
        let picked = index_values(b, values, &index)?;
        support::broadcast_to(b, picked, &spread)?
    };
    let picked = support::reshape(b, picked, &shape)?;
    let mask_dims: Vec<i64> = (lead as i64..(lead + k) as i64).collect();
    let mask = support::reshape(b, flat_mask, &mask_shape)?;
    let mask = support::broadcast_in_dim(b, mask, &mask_dims, &shape)?;
    if accumulate {
        let zeros = support::zeros(b, dtype, &shape)?;
        let added = b.select(mask, picked, zeros)?;
        return Ok(b.add(x, added)?);
    }
    Ok(b.select(mask, picked, x)?)
}

fn index_copy(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let ([x, index, source], promoted) = as_vectors(
        cx.b,
        [
            args.tensor("self")?,
            args.tensor("index")?,
            args.tensor("source")?,
        ],
    )?;
    let rank = support::rank(cx.b, x)?;
    let dim = norm_dim(args.int("dim")?, rank)?;
    let mut indices = vec![None; dim];
    indices.push(Some(index));
    check_indices(cx, x, &indices)?;
    let y = put_values(cx.b, x, &indices, source, false)?;
    with_torch_shape(cx, y, promoted)
}

/// Full coordinates for an index tensor along `dim`: `[*index.shape, rank]`, the index at
/// `dim` and the element's own position elsewhere (what `torch.gather`/`scatter` address).
pub(crate) fn coordinates(
    b: &mut FunctionBuilder,
    index: Value,
    dim: usize,
    size: i64,
) -> OpResult<Value> {
    let index = wrap_negative(b, index, size)?;
    let ishape = support::shape(b, index)?;
    let r = ishape.len();
    if r == 0 {
        return Err(OpError::unsupported(
            "gathers and scatters of 0-dimensional tensors",
        ));
    }
    let mut column = ishape.clone();
    column.push(1);
    let mut parts = Vec::new();
    for d in 0..r {
        let part = if d == dim {
            index
        } else {
            b.iota(
                support::tensor_type(tpuc_ir::ElementType::I64, &ishape),
                d as i64,
            )?
        };
        parts.push(support::reshape(b, part, &column)?);
    }
    Ok(if parts.len() == 1 {
        parts[0]
    } else {
        b.concatenate(&parts, r as i64)?
    })
}

/// `torch.gather`: `out[i][j] = self[index[i][j]][j]` for `dim = 0`, and so on.
fn gather(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let ([x, index], promoted) = as_vectors(cx.b, [args.tensor("self")?, args.tensor("index")?])?;
    let shape = support::shape(cx.b, x)?;
    let dim = norm_dim(args.int("dim")?, shape.len())?;
    cx.check_index(index, -shape[dim], shape[dim])?;
    let y = gather_along(cx.b, x, dim, index)?;
    with_torch_shape(cx, y, promoted)
}

/// `x` read along `dim` at `index` (of `x`'s rank; in bounds): torch's `gather` and
/// `take_along_dim` without broadcasting.
pub(super) fn gather_along(
    b: &mut FunctionBuilder,
    x: Value,
    dim: usize,
    index: Value,
) -> OpResult<Value> {
    let shape = support::shape(b, x)?;
    let coords = coordinates(b, index, dim, shape[dim])?;
    let r = shape.len();
    let all: Vec<i64> = (0..r as i64).collect();
    let dims = GatherDims {
        offset_dims: Vec::new(),
        collapsed_slice_dims: all.clone(),
        start_index_map: all,
        index_vector_dim: r as i64,
        ..GatherDims::default()
    };
    Ok(b.gather(x, coords, dims, &vec![1; r], false)?)
}

/// `self[index[i][j]][j] = src[i][j]` (`dim = 0`), replacing or combining with `combine`.
fn scatter_along(
    cx: &mut Cx<'_>,
    args: &Args<'_>,
    combine: Option<tpuc_ir::BinaryOp>,
) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let index = args.tensor("index")?;
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    let dtype = support::dtype(b, x)?;
    let dim = norm_dim(args.int("dim")?, shape.len())?;
    let ishape = support::shape(b, index)?;
    let updates = match args.operand(if args.raw("src").is_ok() {
        "src"
    } else {
        "value"
    })? {
        crate::args::Operand::Tensor(src) => {
            // torch reads the leading `index.shape` block of `src`.
            let zeros = vec![0; ishape.len()];
            let src = b.slice(src, &zeros, &ishape, &vec![1; ishape.len()])?;
            support::convert(b, src, dtype)?
        }
        crate::args::Operand::Scalar(value) => support::splat(b, dtype, &ishape, value)?,
    };
    let coords = coordinates(b, index, dim, shape[dim])?;
    one(super::scatter_reduce::scatter_with(
        b, x, coords, updates, combine,
    )?)
}

/// `scatter`, replacing, or with `reduce="add"` / `"multiply"` combining.
fn scatter(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let combine = match args
        .raw("reduce")
        .is_ok()
        .then(|| args.str("reduce"))
        .transpose()?
    {
        None => None,
        Some("add") => Some(tpuc_ir::BinaryOp::Add),
        Some("multiply") => Some(tpuc_ir::BinaryOp::Multiply),
        Some(other) => bail!(
            "scatter reduce `{other}` is not `add` or `multiply` (use `scatter_reduce` for others)"
        ),
    };
    scatter_along(cx, args, combine)
}

fn scatter_add(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    scatter_along(cx, args, Some(tpuc_ir::BinaryOp::Add))
}

fn index_add(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let ([x, index, mut source], promoted) = as_vectors(
        cx.b,
        [
            args.tensor("self")?,
            args.tensor("index")?,
            args.tensor("source")?,
        ],
    )?;
    let rank = support::rank(cx.b, x)?;
    let dim = norm_dim(args.int("dim")?, rank)?;
    let mut indices = vec![None; dim];
    indices.push(Some(index));
    check_indices(cx, x, &indices)?;
    let alpha = args.scalar("alpha")?;
    if !alpha.is(1.0) {
        let k = support::like(cx.b, source, alpha)?;
        source = cx.b.multiply(source, k)?;
    }
    let y = put_values(cx.b, x, &indices, source, true)?;
    with_torch_shape(cx, y, promoted)
}
