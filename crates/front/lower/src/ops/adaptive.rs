//! Adaptive average pooling (1-d, 2-d and 3-d) and its 2-d gradient. Output cell `o` of a dimension
//! of size `S` pooled to `O` averages input `[⌊o·S/O⌋, ⌈(o+1)·S/O⌉)`. When `O` divides `S` that
//! is a plain window; otherwise each pooled dimension is a product with its `[S, O]` averaging
//! matrix, and the gradient is the product with the same matrix the other way.

use tpuc_ir::{BinaryOp, DenseElements, DotDims, FunctionBuilder, Value, WindowAttrs};

use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::dtype::element_type;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support::{self, reduce_init, reduce_mean};

pub(super) const OPS: &[OpDef] = &[
    aten(
        "adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor",
        adaptive_avg_pool,
    ),
    aten(
        "adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor",
        adaptive_avg_pool,
    ),
    aten(
        "_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor",
        adaptive_avg_pool,
    ),
    aten(
        "adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor",
        adaptive_avg_pool,
    ),
    aten(
        "_adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor",
        adaptive_avg_pool,
    ),
    aten(
        "_adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor",
        adaptive_avg_pool_backward,
    ),
];

/// `[S, O]`: column `o` holds `1/len` over the input range of output `o`.
fn averaging_matrix(
    b: &mut FunctionBuilder,
    dtype: tpuc_pt2::DType,
    size: i64,
    out: i64,
) -> OpResult<Value> {
    let mut values = vec![0.0; (size * out) as usize];
    for o in 0..out {
        let start = o * size / out;
        let end = ((o + 1) * size + out - 1) / out;
        for s in start..end {
            values[(s * out + o) as usize] = 1.0 / (end - start) as f64;
        }
    }
    let ty = support::tensor_type(element_type(dtype)?, &[size, out]);
    let data = DenseElements::from_f64s(&ty, &values)?;
    Ok(b.constant(ty, data)?)
}

fn adaptive_avg_pool(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let output = args.ints("output_size")?;
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    let r = shape.len();
    let k = output.len();
    if r < k + 1 {
        bail!(
            "adaptive pooling to {output:?} needs a batched or channel-first input, got {shape:?}"
        );
    }
    let lead = r - k;
    let spatial = &shape[lead..];
    if output.iter().all(|&o| o == 1) {
        // Reshaped last, so that a flatten after it cancels the reshape.
        let dims: Vec<usize> = (lead..r).collect();
        let means = reduce_mean(b, x, &dims)?;
        let kept = [&shape[..lead], &vec![1; k][..]].concat();
        return one(support::reshape(b, means, &kept)?);
    }
    if spatial
        .iter()
        .zip(&output)
        .all(|(&s, &o)| o > 0 && s % o == 0)
    {
        let kernel: Vec<i64> = spatial.iter().zip(&output).map(|(&s, &o)| s / o).collect();
        let ones = vec![1; lead];
        let attrs = WindowAttrs {
            window_dimensions: [ones.clone(), kernel.clone()].concat(),
            window_strides: [ones, kernel.clone()].concat(),
            base_dilations: Vec::new(),
            window_dilations: Vec::new(),
            padding: Vec::new(),
        };
        let element = support::element(b, x)?;
        let init = reduce_init(b, BinaryOp::Add, element)?;
        let sums = b.reduce_window(&[x], &[init], attrs, |b, a| Ok(vec![b.add(a[0], a[1])?]))?;
        let n: i64 = kernel.iter().product();
        let reciprocal = support::like(b, sums[0], Scalar::Float(1.0 / n as f64))?;
        return one(b.multiply(sums[0], reciprocal)?);
    }
    // One contraction per pooled dimension; each moves its dimension last, so after all of
    // them the order is restored.
    let dtype = support::dtype(b, x)?;
    let mut v = x;
    for (&size, &out) in spatial.iter().zip(&output) {
        let matrix = averaging_matrix(b, dtype, size, out)?;
        let dims = DotDims {
            lhs_batching: Vec::new(),
            rhs_batching: Vec::new(),
            lhs_contracting: vec![lead as i64],
            rhs_contracting: vec![0],
        };
        v = support::dot(b, v, matrix, dims)?;
    }
    one(v)
}

/// The input gradient: each pooled dimension of `grad_output` spread back over the input
/// range of each output cell (`1/len` each), one product per dimension.
fn adaptive_avg_pool_backward(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let g = args.tensor("grad_output")?;
    let x = args.tensor("self")?;
    let b = &mut *cx.b;
    let (shape, g_shape) = (support::shape(b, x)?, support::shape(b, g)?);
    let r = shape.len();
    if r < 3 || g_shape.len() != r {
        bail!("adaptive pooling gradient of shape {g_shape:?} for an input of shape {shape:?}");
    }
    let lead = r - 2;
    let dtype = support::dtype(b, g)?;
    let mut v = g;
    for (&size, &out) in shape[lead..].iter().zip(&g_shape[lead..]) {
        let matrix = averaging_matrix(b, dtype, size, out)?;
        let dims = DotDims {
            lhs_batching: Vec::new(),
            rhs_batching: Vec::new(),
            lhs_contracting: vec![lead as i64],
            rhs_contracting: vec![1],
        };
        v = support::dot(b, v, matrix, dims)?;
    }
    one(v)
}
