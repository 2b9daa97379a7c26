//! Gathers and scatters: `embedding`, advanced indexing (`index`, `index_put`), `gather`,
//! `index_select`, `index_copy`.

use tpuc_ir::{ComparisonDirection, FunctionBuilder, GatherDims, ScatterDims, Value};
use tpuc_pt2::DType;

use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpError, OpResult, bail};
use crate::promote::Scalar;
use crate::registry::{OpDef, aten};
use crate::support::{self, norm_dim};

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

fn index_select(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let rank = support::rank(cx.b, x)?;
    let dim = norm_dim(args.int("dim")?, rank)?;
    let mut indices = vec![None; dim];
    indices.push(Some(args.tensor("index")?));
    check_indices(cx, x, &indices)?;
    one(index_values(cx.b, x, &indices)?)
}

/// `x[indices] = values` (or `+=` with `accumulate`), functionally.
fn put_values(
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
    check_indices(cx, x, &indices)?;
    one(put_values(cx.b, x, &indices, values, accumulate)?)
}

fn index_copy(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let rank = support::rank(cx.b, x)?;
    let dim = norm_dim(args.int("dim")?, rank)?;
    let mut indices = vec![None; dim];
    indices.push(Some(args.tensor("index")?));
    let source = args.tensor("source")?;
    one(put_values(cx.b, x, &indices, source, false)?)
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
    let x = args.tensor("self")?;
    let index = args.tensor("index")?;
    let shape = support::shape(cx.b, x)?;
    let dim = norm_dim(args.int("dim")?, shape.len())?;
    cx.check_index(index, -shape[dim], shape[dim])?;
    let b = &mut *cx.b;
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
    one(b.gather(x, coords, dims, &vec![1; r], false)?)
}

/// `self[index[i][j]][j] = src[i][j]` (`dim = 0`), replacing or adding.
fn scatter_along(cx: &mut Cx<'_>, args: &Args<'_>, accumulate: bool) -> OpResult<Vec<Val>> {
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
    let combine = accumulate.then_some(tpuc_ir::BinaryOp::Add);
    one(super::scatter_reduce::scatter_with(
        b, x, coords, updates, combine,
    )?)
}

fn scatter(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    scatter_along(cx, args, false)
}

fn scatter_add(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    scatter_along(cx, args, true)
}

fn index_add(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let rank = support::rank(cx.b, x)?;
    let dim = norm_dim(args.int("dim")?, rank)?;
    let mut indices = vec![None; dim];
    indices.push(Some(args.tensor("index")?));
    let mut source = args.tensor("source")?;
    let alpha = args.scalar("alpha")?;
    if !alpha.is(1.0) {
        let k = support::like(cx.b, source, alpha)?;
        source = cx.b.multiply(source, k)?;
    }
    one(put_values(cx.b, x, &indices, source, true)?)
}
