//! The explicit backward ops joint graphs (`_export_forward_backward`) keep:
//! `convolution_backward` and `max_pool2d_with_indices_backward`.

use tpuc_ir::{BinaryOp, ScatterDims};
use tpuc_pt2::DType;
use tpuc_pt2::schema::Argument;

use super::conv::conv_attrs;
use crate::args::Args;
use crate::cx::Cx;
use crate::dtype::element_type;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
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
];

/// (input, weight, bias) gradients of a convolution, each only where `output_mask` asks.
fn convolution_backward(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    if args.bool("transposed")? {
        bail!("the backward of a transposed convolution");
    }
    let mask = match args.raw("output_mask")? {
        Argument::AsBools(mask) if mask.len() == 3 => mask.clone(),
        other => bail!("`output_mask` is {other:?}, not three booleans"),
    };
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
