//! View ops the TRAINING dialect keeps and torch's core decomposition rewrites: axis swaps,
//! `reshape_as`, `broadcast_to`, diagonals, sliding windows (`unfold`) and `meshgrid`.

use tpuc_ir::{FunctionBuilder, Value};

use super::one;
use super::shape::{concat, expand_to, slice_dim, swap_dims};
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::support::{self, norm_dim};

pub(super) const OPS: &[OpDef] = &[
    aten(
        "swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a)",
        swapaxes,
    ),
    aten(
        "swapdims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
        swapdims,
    ),
    aten("numpy_T(Tensor(a) self) -> Tensor(a)", numpy_t),
    aten("mT(Tensor(a) self) -> Tensor(a)", matrix_t),
    aten(
        "reshape_as(Tensor(a) self, Tensor other) -> Tensor(a)",
        reshape_as,
    ),
    aten(
        "broadcast_to(Tensor(a) self, SymInt[] size) -> Tensor(a)",
        broadcast_to,
    ),
    aten(
        "diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)",
        diagonal,
    ),
    aten(
        "unfold(Tensor(a) self, int dimension, int size, int step) -> Tensor(a)",
        unfold,
    ),
    aten(
        "meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]",
        meshgrid,
    ),
    aten("meshgrid(Tensor[] tensors) -> Tensor[]", meshgrid),
];

fn swapaxes(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    one(swap_dims(cx.b, x, args.int("axis0")?, args.int("axis1")?)?)
}

fn swapdims(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    one(swap_dims(cx.b, x, args.int("dim0")?, args.int("dim1")?)?)
}

/// `x.T`: every dimension reversed.
fn numpy_t(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let rank = support::rank(cx.b, x)? as i64;
    let reversed: Vec<i64> = (0..rank).rev().collect();
    one(support::transpose(cx.b, x, &reversed)?)
}

/// `x.mT`: the last two dimensions swapped.
fn matrix_t(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    if support::rank(cx.b, x)? < 2 {
        bail!("`mT` needs a tensor of rank 2 or more");
    }
    one(swap_dims(cx.b, x, -2, -1)?)
}

fn reshape_as(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let to = support::shape(cx.b, args.tensor("other")?)?;
    one(support::reshape(cx.b, x, &to)?)
}

fn broadcast_to(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    one(expand_to(cx.b, x, &args.ints("size")?)?)
}

/// The diagonal `offset` of the planes `dim1 × dim2`, as a new last dimension. The plane is
/// moved last and flattened; the diagonal is then a strided slice of the flat plane.
pub(crate) fn diagonal_of(
    b: &mut FunctionBuilder,
    x: Value,
    offset: i64,
    dim1: i64,
    dim2: i64,
) -> OpResult<Value> {
    let shape = support::shape(b, x)?;
    let rank = shape.len();
    let (d1, d2) = (norm_dim(dim1, rank)?, norm_dim(dim2, rank)?);
    if d1 == d2 {
        bail!("diagonal dimensions must differ, both are {d1}");
    }
    let mut perm: Vec<i64> = (0..rank as i64)
        .filter(|&d| d != d1 as i64 && d != d2 as i64)
        .collect();
    let mut out_shape: Vec<i64> = perm.iter().map(|&d| shape[d as usize]).collect();
    perm.extend([d1 as i64, d2 as i64]);
    let (rows, cols) = (shape[d1], shape[d2]);
    let length = if offset >= 0 {
        rows.min(cols - offset)
    } else {
        (rows + offset).min(cols)
    }
    .max(0);
    let moved = support::transpose(b, x, &perm)?;
    let mut flat_shape = out_shape.clone();
    flat_shape.push(rows * cols);
    let flat = support::reshape(b, moved, &flat_shape)?;
    let start = if offset >= 0 { offset } else { -offset * cols };
    let last = flat_shape.len() - 1;
    let end = if length == 0 {
        start
    } else {
        start + (length - 1) * (cols + 1) + 1
    };
    let diag = slice_dim(b, flat, last, start.min(rows * cols), end, cols + 1)?;
    out_shape.push(length);
    support::reshape(b, diag, &out_shape)
}

fn diagonal(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    one(diagonal_of(
        cx.b,
        x,
        args.int("offset")?,
        args.int("dim1")?,
        args.int("dim2")?,
    )?)
}

/// Windows of `size` elements every `step` along `dimension`: that dimension becomes the
/// window count and a new last dimension holds each window. Window element `j` of every
/// window is one strided slice; the `size` slices are joined along the new dimension.
fn unfold(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let (size, step) = (args.int("size")?, args.int("step")?);
    let b = &mut *cx.b;
    let mut shape = support::shape(b, x)?;
    // A 0-d input is one window of its element (`size` is 0 or 1): the result is `[size]`.
    let scalar = shape.is_empty();
    if scalar {
        shape.push(1);
    }
    let dim = norm_dim(args.int("dimension")?, shape.len())?;
    let x = support::reshape(b, x, &shape)?;
    if step < 1 || size < 0 || size > shape[dim] {
        bail!("unfold of size {size} and step {step} does not fit dimension {dim} of {shape:?}");
    }
    let windows = (shape[dim] - size) / step + 1;
    let mut part_shape = shape.clone();
    part_shape[dim] = windows;
    part_shape.push(1);
    let mut parts = Vec::new();
    for j in 0..size {
        let part = slice_dim(b, x, dim, j, j + (windows - 1) * step + 1, step)?;
        parts.push(support::reshape(b, part, &part_shape)?);
    }
    if parts.is_empty() {
        part_shape.pop();
        part_shape.push(0);
        let dtype = support::dtype(b, x)?;
        return one(support::zeros(b, dtype, &part_shape)?);
    }
    let windows = concat(b, &parts, part_shape.len() as i64 - 1)?;
    if scalar {
        return one(support::reshape(b, windows, &[size])?);
    }
    one(windows)
}

/// `meshgrid`: tensor `i` (0-d or 1-d) broadcast along dimension `i` of the grid (`ij`), or with
/// the first two dimensions swapped (`xy`).
fn meshgrid(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let tensors = args.tensors("tensors")?;
    let xy = match args.opt_str("indexing").unwrap_or(None) {
        None | Some("ij") => false,
        Some("xy") => true,
        Some(other) => bail!("meshgrid indexing `{other}` is not `ij` or `xy`"),
    };
    let b = &mut *cx.b;
    let mut sizes = Vec::new();
    for &t in &tensors {
        let shape = support::shape(b, t)?;
        if shape.len() > 1 {
            bail!("meshgrid takes 0-d or 1-d tensors, got {shape:?}");
        }
        sizes.push(shape.first().copied().unwrap_or(1));
    }
    let mut axes: Vec<usize> = (0..tensors.len()).collect();
    if xy && axes.len() >= 2 {
        axes.swap(0, 1);
    }
    let grid: Vec<i64> = axes.iter().map(|&i| sizes[i]).collect();
    let mut outputs = Vec::new();
    for (i, &t) in tensors.iter().enumerate() {
        let axis = axes.iter().position(|&a| a == i).unwrap_or(i) as i64;
        let t = support::reshape(b, t, &[sizes[i]])?;
        outputs.push(support::broadcast_in_dim(b, t, &[axis], &grid)?);
    }
    Ok(vec![Val::Tensors(outputs)])
}
