//! Pairwise distances: `cdist`, `_cdist_forward` and `_euclidean_dist` (`torch.cdist`) and
//! `pdist`, `_pdist_forward` (`F.pdist`).
//! The p-norm of every difference, as torch's CPU kernels compute it; for `p = 2` `cdist`
//! takes torch's matrix-product form (`|a|² + |b|² - 2a·b`) where torch does.

use tpuc_ir::{BinaryOp, DenseElements, DotDims, FunctionBuilder, Value};

use super::indexing::gather_along;
use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support::{self, reduce};

pub(super) const OPS: &[OpDef] = &[
    aten(
        "_cdist_forward(Tensor x1, Tensor x2, float p, int? compute_mode) -> Tensor",
        cdist,
    ),
    aten(
        "cdist(Tensor x1, Tensor x2, float p=2, int? compute_mode=None) -> Tensor",
        cdist,
    ),
    aten(
        "_euclidean_dist(Tensor x1, Tensor x2) -> Tensor",
        euclidean_dist,
    ),
    aten("_pdist_forward(Tensor self, float p=2) -> Tensor", pdist),
    aten("pdist(Tensor self, float p=2) -> Tensor", pdist),
];

fn euclidean_dist(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let (x1, x2) = (args.tensor("x1")?, args.tensor("x2")?);
    one(euclidean_by_product(cx.b, x1, x2)?)
}

/// The p-norm over the last dimension of the differences `diff`.
fn p_norm(b: &mut FunctionBuilder, diff: Value, p: f64) -> OpResult<Value> {
    let last = support::shape(b, diff)?.len() - 1;
    let magnitude = b.abs(diff)?;
    if p == 0.0 {
        let zero = support::like(b, magnitude, Scalar::Int(0))?;
        let nonzero = b.compare(tpuc_ir::ComparisonDirection::Ne, magnitude, zero)?;
        let dtype = support::dtype(b, diff)?;
        let nonzero = support::convert(b, nonzero, dtype)?;
        return reduce(b, BinaryOp::Add, nonzero, &[last], false);
    }
    if p.is_infinite() {
        return reduce(b, BinaryOp::Maximum, magnitude, &[last], false);
    }
    if p == 1.0 {
        return reduce(b, BinaryOp::Add, magnitude, &[last], false);
    }
    if p == 2.0 {
        let squares = b.multiply(magnitude, magnitude)?;
        let sum = reduce(b, BinaryOp::Add, squares, &[last], false)?;
        return Ok(b.sqrt(sum)?);
    }
    let exponent = support::like(b, magnitude, Scalar::Float(p))?;
    let powered = b.power(magnitude, exponent)?;
    let sum = reduce(b, BinaryOp::Add, powered, &[last], false)?;
    let root = support::like(b, sum, Scalar::Float(1.0 / p))?;
    Ok(b.power(sum, root)?)
}

/// Two sets of rows, `x1 [..., P, M]` and `x2 [..., R, M]`, checked and broadcast to their
/// common batch dimensions: `(x1, x2, batch)`.
fn row_sets(b: &mut FunctionBuilder, x1: Value, x2: Value) -> OpResult<(Value, Value, Vec<i64>)> {
    let (s1, s2) = (support::shape(b, x1)?, support::shape(b, x2)?);
    let r = s1.len();
    if r < 2 || r != s2.len() || s1.last() != s2.last() {
        bail!("pairwise distances take [..., P, M] and [..., R, M], got {s1:?} and {s2:?}");
    }
    let batch = support::broadcast_shapes(&s1[..r - 2], &s2[..r - 2])?;
    let x1 = support::broadcast_to(b, x1, &[&batch[..], &s1[r - 2..]].concat())?;
    let x2 = support::broadcast_to(b, x2, &[&batch[..], &s2[r - 2..]].concat())?;
    Ok((x1, x2, batch))
}

/// `[..., P, R, M]`: every row of `x1 [..., P, M]` minus every row of `x2 [..., R, M]`.
fn differences(b: &mut FunctionBuilder, x1: Value, x2: Value) -> OpResult<Value> {
    let (x1, x2, batch) = row_sets(b, x1, x2)?;
    let (s1, s2) = (support::shape(b, x1)?, support::shape(b, x2)?);
    let r = s1.len();
    let mut pairs = batch.clone();
    pairs.extend([s1[r - 2], s2[r - 2], s1[r - 1]]);
    let n = batch.len() as i64;
    let lead: Vec<i64> = (0..n).collect();
    let a = support::broadcast_in_dim(b, x1, &[&lead[..], &[n, n + 2]].concat(), &pairs)?;
    let c = support::broadcast_in_dim(b, x2, &[&lead[..], &[n + 1, n + 2]].concat(), &pairs)?;
    Ok(b.subtract(a, c)?)
}

/// `sqrt(max(|a|² + |b|² - 2 a·b, 0))`, torch's `_euclidean_dist`.
fn euclidean_by_product(b: &mut FunctionBuilder, x1: Value, x2: Value) -> OpResult<Value> {
    let (x1, x2, batch) = row_sets(b, x1, x2)?;
    let rows2 = support::shape(b, x2)?[batch.len()];
    let r = batch.len() + 2;
    let n = batch.len() as i64;
    let squared = |b: &mut FunctionBuilder, x: Value| -> OpResult<Value> {
        let sq = b.multiply(x, x)?;
        reduce(b, BinaryOp::Add, sq, &[r - 1], true)
    };
    let (n1, n2) = (squared(b, x1)?, squared(b, x2)?);
    let lead: Vec<i64> = (0..n).collect();
    let dims = DotDims {
        lhs_batching: lead.clone(),
        rhs_batching: lead.clone(),
        lhs_contracting: vec![n + 1],
        rhs_contracting: vec![n + 1],
    };
    let products = support::dot(b, x1, x2, dims)?;
    let out = support::shape(b, products)?;
    let n1 = support::broadcast_in_dim(b, n1, &[&lead[..], &[n, n + 1]].concat(), &out)?;
    let n2 = support::reshape(b, n2, &[&batch[..], &[1, rows2]].concat())?;
    let n2 = support::broadcast_to(b, n2, &out)?;
    let two = support::like(b, products, Scalar::Float(2.0))?;
    let twice = b.multiply(products, two)?;
    let sum = b.add(n1, n2)?;
    let d2 = b.subtract(sum, twice)?;
    let zero = support::like(b, d2, Scalar::Int(0))?;
    let d2 = b.maximum(d2, zero)?;
    Ok(b.sqrt(d2)?)
}

fn cdist(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let (x1, x2) = (args.tensor("x1")?, args.tensor("x2")?);
    let p = args.float("p")?;
    if p < 0.0 {
        bail!("cdist only supports non-negative p values, got {p}");
    }
    let mode = args.opt_int("compute_mode")?;
    let b = &mut *cx.b;
    let (s1, s2) = (support::shape(b, x1)?, support::shape(b, x2)?);
    let rows = |s: &[i64]| s.len().checked_sub(2).map_or(0, |d| s[d]);
    let (rows1, rows2) = (rows(&s1), rows(&s2));
    // torch: 0 or None uses the product when either side has more than 25 rows, 1 always,
    // 2 never.
    let by_product = p == 2.0
        && match mode {
            None | Some(0) => rows1 > 25 || rows2 > 25,
            Some(1) => true,
            _ => false,
        };
    if by_product {
        return one(euclidean_by_product(b, x1, x2)?);
    }
    let diff = differences(b, x1, x2)?;
    one(p_norm(b, diff, p)?)
}

/// The distances of rows `i < j` of `self [N, M]`, in row-major order of the pairs.
fn pdist(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let p = args.float("p")?;
    if p < 0.0 {
        bail!("pdist only supports non-negative p values, got {p}");
    }
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    let &[n, _] = &shape[..] else {
        bail!("pdist takes a [N, M] input, got {shape:?}");
    };
    let diff = differences(b, x, x)?;
    let all = p_norm(b, diff, p)?;
    let all = support::reshape(b, all, &[n * n])?;
    let pairs: Vec<i64> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| i * n + j))
        .collect();
    let ty = support::tensor_type(tpuc_ir::ElementType::I64, &[pairs.len() as i64]);
    let index = b.constant(ty.clone(), DenseElements::from_i64s(&ty, &pairs)?)?;
    one(gather_along(b, all, 0, index)?)
}
