//! The explicit backward ops joint graphs (`_export_forward_backward`) keep:
//! `convolution_backward`, `max_pool2d_with_indices_backward` and
//! `embedding_dense_backward` (the pooling and normalisation ones sit with their forward).

use tpuc_ir::{BinaryOp, ComparisonDirection, FunctionBuilder, ScatterDims, Value};
use tpuc_pt2::DType;
use tpuc_pt2::schema::Argument;

use super::conv::conv_attrs;
use super::indexing::{gather_along, put_values};
use crate::args::Args;
use crate::cx::Cx;
use crate::dtype::element_type;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support::{self, reduce};

pub(super) const OPS: &[OpDef] = &[
    aten(
        "convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? \
         bias_sizes, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, \
         SymInt[] output_padding, SymInt groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
        convolution_backward,
    ),
    aten(
        "max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, \
         int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor",
        max_pool_backward,
    ),
    aten(
        "embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, \
         SymInt padding_idx, bool scale_grad_by_freq) -> Tensor",
        embedding_dense_backward,
    ),
];

/// Which of a backward op's three gradients are wanted.
pub(super) fn output_mask(args: &Args<'_>) -> OpResult<Vec<bool>> {
    match args.raw("output_mask")? {
        Argument::AsBools(mask) if mask.len() == 3 => Ok(mask.clone()),
        other => bail!("`output_mask` is {other:?}, not three booleans"),
    }
}

/// (input, weight, bias) gradients of a convolution, each only where `output_mask` asks.
fn convolution_backward(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    if args.bool("transposed")? {
        bail!("the backward of a transposed convolution");
    }
    let mask = output_mask(args)?;
    let g = args.tensor("grad_output")?;
    let x = args.tensor("input")?;
    let w = args.tensor("weight")?;
    let b = &mut *cx.b;
    let attrs = conv_attrs(b, x, w, args)?;
    let input = if mask[0] {
        let shape = support::shape(b, x)?;
        Val::Tensor(b.convolution_input_cotangent(g, w, &attrs, &shape)?)
    } else {
        Val::None
    };
    let weight = if mask[1] {
        let shape = support::shape(b, w)?;
        Val::Tensor(b.convolution_kernel_cotangent(x, g, &attrs, &shape)?)
    } else {
        Val::None
    };
    let bias = if mask[2] {
        let rank = support::rank(b, g)?;
        let dims: Vec<usize> = (0..rank).filter(|&d| d != 1).collect();
        Val::Tensor(reduce(b, BinaryOp::Add, g, &dims, false)?)
    } else {
        Val::None
    };
    Ok(vec![input, weight, bias])
}

/// The gradient of a max-pool: each output's gradient added at the flat index of its maximum
/// in its `H x W` plane (the indices the forward returned), as torch's kernel does.
fn max_pool_backward(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let g = args.tensor("grad_output")?;
    let x = args.tensor("self")?;
    let indices = args.tensor("indices")?;
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    let g_shape = support::shape(b, g)?;
    let rank = shape.len();
    if rank < 2 || g_shape.len() != rank {
        bail!("max-pool gradient of shape {g_shape:?} for an input of shape {shape:?}");
    }
    let planes: i64 = shape[..rank - 2].iter().product();
    let plane = shape[rank - 2] * shape[rank - 1];
    let windows = g_shape[rank - 2] * g_shape[rank - 1];
    let g = support::reshape(b, g, &[planes * windows])?;
    let indices = support::convert(b, indices, DType::I64)?;
    let columns = support::reshape(b, indices, &[planes * windows, 1])?;
    let rows = b.iota(
        support::tensor_type(element_type(DType::I64)?, &[planes, windows]),
        0,
    )?;
    let rows = support::reshape(b, rows, &[planes * windows, 1])?;
    let pairs = b.concatenate(&[rows, columns], 1)?;
    let zeros = support::zeros(b, support::dtype(b, x)?, &[planes, plane])?;
    let dims = ScatterDims {
        update_window_dims: Vec::new(),
        inserted_window_dims: vec![0, 1],
        scatter_dims_to_operand_dims: vec![0, 1],
        index_vector_dim: 1,
        ..ScatterDims::default()
    };
    let summed = b.scatter(&[zeros], pairs, &[g], dims, false, false, |b, a| {
        Ok(vec![b.add(a[0], a[1])?])
    })?;
    Ok(vec![Val::Tensor(support::reshape(b, summed[0], &shape)?)])
}

/// The weight gradient of an embedding: each looked-up row's gradient added into its row,
/// nothing for `padding_idx`, divided by how often the row was looked up when
/// `scale_grad_by_freq`.
fn embedding_dense_backward(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let g = args.tensor("grad_output")?;
    let indices = args.tensor("indices")?;
    let rows = args.int("num_weights")?;
    let padding = args.int("padding_idx")?;
    let scale = args.bool("scale_grad_by_freq")?;
    let b = &mut *cx.b;
    let (g_shape, i_shape) = (support::shape(b, g)?, support::shape(b, indices)?);
    let lookups = support::numel(&i_shape);
    let width = *g_shape.last().unwrap_or(&1);
    if g_shape[..g_shape.len().saturating_sub(1)] != i_shape[..] {
        bail!("embedding gradient of shape {g_shape:?} for indices of shape {i_shape:?}");
    }
    let dtype = support::dtype(b, g)?;
    let mut g = support::reshape(b, g, &[lookups, width])?;
    let index = support::convert(b, indices, DType::I64)?;
    let index = support::reshape(b, index, &[lookups])?;
    // Row `index[k]` gathers lookup `k`'s gradient: `zeros[index] += updates`.
    let add_rows = |b: &mut FunctionBuilder, updates: Value, width: i64| -> OpResult<Value> {
        let zeros = support::zeros(b, support::dtype(b, updates)?, &[rows, width])?;
        put_values(b, zeros, &[Some(index)], updates, true)
    };
    if padding >= 0 {
        let padding = support::like(b, index, Scalar::Int(padding))?;
        let kept = b.compare(ComparisonDirection::Ne, index, padding)?;
        let kept = support::broadcast_in_dim(b, kept, &[0], &[lookups, width])?;
        let zero = support::zeros(b, dtype, &[lookups, width])?;
        g = b.select(kept, g, zero)?;
    }
    if scale {
        let ones = support::splat(b, dtype, &[lookups, 1], Scalar::Int(1))?;
        let counts = add_rows(b, ones, 1)?;
        let counts = support::reshape(b, counts, &[rows])?;
        let per_lookup = gather_along(b, counts, 0, index)?;
        let per_lookup = support::broadcast_in_dim(b, per_lookup, &[0], &[lookups, width])?;
        g = b.divide(g, per_lookup)?;
    }
    Ok(vec![Val::Tensor(add_rows(b, g, width)?)])
}
