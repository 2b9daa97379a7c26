//! Matrix products: `linear`, `addmm`, `mm`, `bmm`, `matmul`, `baddbmm`. Each is one
//! `dot_general` on the operands as given (N-D inputs directly, transposes folded), plus a bias
//! `add` when there is one; alpha and beta multiply only when they are not 1. And `outer`, a
//! broadcast product.

use tpuc_ir::{DotDims, FunctionBuilder, Value};
use tpuc_pt2::DType;

use super::norm::compute_dtype;
use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::dtype::element_type;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::{Scalar, promote_types};
use crate::support::{self, dot, dot_into};

pub(super) const OPS: &[OpDef] = &[
    aten(
        "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
        linear,
    ),
    aten(
        "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
        addmm,
    ),
    aten("mm(Tensor self, Tensor mat2) -> Tensor", mm),
    aten("bmm(Tensor self, Tensor mat2) -> Tensor", bmm),
    aten("matmul(Tensor self, Tensor other) -> Tensor", matmul),
    aten(
        "baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
        baddbmm,
    ),
    aten("outer(Tensor self, Tensor vec2) -> Tensor", outer),
];

/// `self[i] · vec2[j]` of two vectors, in their promoted type.
fn outer(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let (u, v) = (args.tensor("self")?, args.tensor("vec2")?);
    let b = &mut *cx.b;
    let (n, m) = match (&support::shape(b, u)?[..], &support::shape(b, v)?[..]) {
        (&[n], &[m]) => (n, m),
        (a, c) => bail!("outer takes two vectors, got shapes {a:?} and {c:?}"),
    };
    let dtype = promote_types(support::dtype(b, u)?, support::dtype(b, v)?)?;
    let u = support::convert(b, u, dtype)?;
    let v = support::convert(b, v, dtype)?;
    let u = support::broadcast_in_dim(b, u, &[0], &[n, m])?;
    let v = support::broadcast_in_dim(b, v, &[1], &[n, m])?;
    one(b.multiply(u, v)?)
}

fn check_same_dtype(b: &FunctionBuilder, lhs: Value, rhs: Value) -> OpResult<()> {
    let (l, r) = (support::dtype(b, lhs)?, support::dtype(b, rhs)?);
    if l != r {
        bail!("matrix product of {l} and {r}: torch requires both operands to have the same dtype");
    }
    Ok(())
}

/// `alpha * product + beta * bias` with the multiplies only where they are not 1.
fn scale_and_add(
    b: &mut FunctionBuilder,
    product: Value,
    alpha: Scalar,
    bias: Option<Value>,
    beta: Scalar,
) -> OpResult<Value> {
    let product = if alpha.is(1.0) {
        product
    } else {
        let a = support::like(b, product, alpha)?;
        b.multiply(product, a)?
    };
    let Some(bias) = bias.filter(|_| !beta.is(0.0)) else {
        return Ok(product);
    };
    let shape = support::shape(b, product)?;
    let dtype = support::dtype(b, product)?;
    let bias = support::convert(b, bias, dtype)?;
    let mut bias = support::broadcast_to(b, bias, &shape)?;
    if !beta.is(1.0) {
        let k = support::like(b, bias, beta)?;
        bias = b.multiply(bias, k)?;
    }
    Ok(b.add(product, bias)?)
}

fn linear(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("input")?;
    let w = args.tensor("weight")?;
    let [x, w] = cx.autocast_floats([x, w])?;
    let bias = match args.opt_tensor("bias")? {
        Some(bias) => Some(cx.autocast_floats([bias])?[0]),
        None => None,
    };
    check_same_dtype(cx.b, x, w)?;
    let rank = support::rank(cx.b, x)? as i64;
    let w_rank = support::rank(cx.b, w)?;
    let rhs_contract = if w_rank == 1 { 0 } else { 1 };
    let dims = DotDims::contracting(rank - 1, rhs_contract);
    one(biased_product(
        cx.b,
        (x, w, dims),
        Scalar::Int(1),
        bias,
        Scalar::Int(1),
    )?)
}

/// `alpha * (lhs . rhs) + beta * bias`. A half-type product with a bias accumulates, adds
/// the bias and rounds once in float32, as torch's CPU kernels fuse the bias into the
/// product's epilogue.
fn biased_product(
    b: &mut FunctionBuilder,
    (lhs, rhs, dims): (Value, Value, DotDims),
    alpha: Scalar,
    bias: Option<Value>,
    beta: Scalar,
) -> OpResult<Value> {
    let dtype = support::dtype(b, lhs)?;
    let half = matches!(dtype, DType::BF16 | DType::F16);
    if !half || bias.is_none() {
        let y = dot(b, lhs, rhs, dims)?;
        return scale_and_add(b, y, alpha, bias, beta);
    }
    let y = dot_into(b, lhs, rhs, dims, Some(element_type(DType::F32)?))?;
    let y = scale_and_add(b, y, alpha, bias, beta)?;
    support::convert(b, y, dtype)
}

fn addmm(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let bias = args.tensor("self")?;
    let [bias, m1, m2] = cx.autocast_floats([bias, args.tensor("mat1")?, args.tensor("mat2")?])?;
    check_same_dtype(cx.b, m1, m2)?;
    one(biased_product(
        cx.b,
        (m1, m2, DotDims::contracting(1, 0)),
        args.scalar("alpha")?,
        Some(bias),
        args.scalar("beta")?,
    )?)
}

fn mm(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let [lhs, rhs] = cx.autocast_floats([args.tensor("self")?, args.tensor("mat2")?])?;
    check_same_dtype(cx.b, lhs, rhs)?;
    one(dot(cx.b, lhs, rhs, DotDims::contracting(1, 0))?)
}

fn batched() -> DotDims {
    DotDims {
        lhs_batching: vec![0],
        rhs_batching: vec![0],
        lhs_contracting: vec![2],
        rhs_contracting: vec![1],
    }
}

fn bmm(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let [lhs, rhs] = cx.autocast_floats([args.tensor("self")?, args.tensor("mat2")?])?;
    check_same_dtype(cx.b, lhs, rhs)?;
    one(dot(cx.b, lhs, rhs, batched())?)
}

/// A half-type product accumulates in float32, `beta * self` is added in float32 and the sum
/// rounded once, as torch's kernel (rounding the product first loses the small differences
/// of a bias that nearly cancels it).
fn baddbmm(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let bias = args.tensor("self")?;
    let [bias, lhs, rhs] =
        cx.autocast_floats([bias, args.tensor("batch1")?, args.tensor("batch2")?])?;
    check_same_dtype(cx.b, lhs, rhs)?;
    let dtype = support::dtype(cx.b, lhs)?;
    let wide = compute_dtype(dtype);
    let into = (wide != dtype).then(|| element_type(wide)).transpose()?;
    let y = dot_into(cx.b, lhs, rhs, batched(), into)?;
    let y = scale_and_add(
        cx.b,
        y,
        args.scalar("alpha")?,
        Some(bias),
        args.scalar("beta")?,
    )?;
    one(support::convert(cx.b, y, dtype)?)
}

/// `torch.matmul` with numpy semantics: 1-D operands, a 2-D right side contracted directly
/// against an N-D left side, and broadcast batch dimensions otherwise.
pub(crate) fn matmul_values(b: &mut FunctionBuilder, lhs: Value, rhs: Value) -> OpResult<Value> {
    check_same_dtype(b, lhs, rhs)?;
    let ls = support::shape(b, lhs)?;
    let rs = support::shape(b, rhs)?;
    let (lr, rr) = (ls.len() as i64, rs.len() as i64);
    if lr == 0 || rr == 0 {
        bail!("matmul needs tensors with at least one dimension");
    }
    if rr <= 2 {
        // [..., k] x [k] or [..., k] x [k, n]: contract directly.
        return dot(b, lhs, rhs, DotDims::contracting(lr - 1, 0));
    }
    if lr == 1 {
        // [k] x [..., k, n]
        let out = dot(b, lhs, rhs, DotDims::contracting(0, rr - 2))?;
        return Ok(out);
    }
    // Both at least 2-D with batch dimensions: broadcast the batch shapes.
    let lb = &ls[..ls.len() - 2];
    let rb = &rs[..rs.len() - 2];
    let batch = support::broadcast_shapes(lb, rb)?;
    let n = batch.len();
    let lhs = {
        let mut to = batch.clone();
        to.extend_from_slice(&ls[ls.len() - 2..]);
        support::broadcast_to(b, lhs, &to)?
    };
    let rhs = {
        let mut to = batch.clone();
        to.extend_from_slice(&rs[rs.len() - 2..]);
        support::broadcast_to(b, rhs, &to)?
    };
    let batch_dims: Vec<i64> = (0..n as i64).collect();
    dot(
        b,
        lhs,
        rhs,
        DotDims {
            lhs_batching: batch_dims.clone(),
            rhs_batching: batch_dims,
            lhs_contracting: vec![n as i64 + 1],
            rhs_contracting: vec![n as i64],
        },
    )
}

fn matmul(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let [lhs, rhs] = cx.autocast_floats([args.tensor("self")?, args.tensor("other")?])?;
    one(matmul_values(cx.b, lhs, rhs)?)
}
