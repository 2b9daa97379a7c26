//! `scaled_dot_product_attention` directly on `[..., L, E]` operands: two batched
//! `dot_general`s, the scale applied once, a causal mask from `iota`/`compare`/`select`.

use tpuc_ir::{ComparisonDirection, DotDims, FunctionBuilder, Value};
use tpuc_pt2::DType;

use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpError, OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support::{self, broadcast_back, dot, reduce};

pub(super) const OPS: &[OpDef] = &[aten(
    "scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor",
    sdpa,
)];

/// Batch dimensions `0..n` shared by both operands; `lhs[c0]` contracts with `rhs[c1]`.
fn batched(n: usize, lhs_contract: usize, rhs_contract: usize) -> DotDims {
    let batch: Vec<i64> = (0..n as i64).collect();
    DotDims {
        lhs_batching: batch.clone(),
        rhs_batching: batch,
        lhs_contracting: vec![lhs_contract as i64],
        rhs_contracting: vec![rhs_contract as i64],
    }
}

/// `[L, S]` booleans, true where key `j` may be attended from query `i` (`j <= i`).
fn causal_mask(b: &mut FunctionBuilder, l: i64, s: i64) -> OpResult<Value> {
    let ty = support::tensor_type(tpuc_ir::ElementType::I32, &[l, s]);
    let rows = b.iota(ty.clone(), 0)?;
    let cols = b.iota(ty, 1)?;
    Ok(b.compare(ComparisonDirection::Le, cols, rows)?)
}

/// Repeats the head dimension (`-3`) of `kv` to `heads` (grouped-query attention).
fn repeat_heads(b: &mut FunctionBuilder, kv: Value, heads: i64) -> OpResult<Value> {
    let shape = support::shape(b, kv)?;
    let r = shape.len();
    let groups = heads / shape[r - 3];
    let mut expanded = shape[..r - 2].to_vec();
    expanded.push(groups);
    expanded.extend_from_slice(&shape[r - 2..]);
    let dims: Vec<i64> = (0..r as i64)
        .map(|d| if d < r as i64 - 2 { d } else { d + 1 })
        .collect();
    let x = support::broadcast_in_dim(b, kv, &dims, &expanded)?;
    let mut to = shape;
    to[r - 3] = heads;
    support::reshape(b, x, &to)
}

/// `x[..., A, B]` broadcast to `[batch..., A, B]`.
fn broadcast_batch(b: &mut FunctionBuilder, x: Value, batch: &[i64]) -> OpResult<Value> {
    let shape = support::shape(b, x)?;
    let mut to = batch.to_vec();
    to.extend_from_slice(&shape[shape.len() - 2..]);
    support::broadcast_to(b, x, &to)
}

fn sdpa(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let [q, mut k, mut v] = cx.autocast_floats([
        args.tensor("query")?,
        args.tensor("key")?,
        args.tensor("value")?,
    ])?;
    let mask = match args.opt_tensor("attn_mask")? {
        Some(mask) => Some(cx.autocast_floats([mask])?[0]),
        None => None,
    };
    if args.float("dropout_p")? != 0.0 {
        return Err(OpError::unsupported(
            "attention dropout (pass `dropout_p=0.0` outside training)",
        ));
    }
    let is_causal = args.bool("is_causal")?;
    let b = &mut *cx.b;
    let qs = support::shape(b, q)?;
    let r = qs.len();
    if r < 2 {
        bail!("attention needs query of rank at least 2, got {qs:?}");
    }
    if args.bool("enable_gqa")? && r >= 3 {
        k = repeat_heads(b, k, qs[r - 3])?;
        v = repeat_heads(b, v, qs[r - 3])?;
    }
    let ks = support::shape(b, k)?;
    let vs = support::shape(b, v)?;
    if ks.len() != r || vs.len() != r {
        bail!("query {qs:?}, key {ks:?} and value {vs:?} have different ranks");
    }
    let (l, e, s) = (qs[r - 2], qs[r - 1], ks[r - 2]);
    let scale = args.opt_float("scale")?.unwrap_or(1.0 / (e as f64).sqrt());
    let n = r - 2;
    // The batch dimensions broadcast as in `matmul` (multi-query attention passes one
    // key/value head without `enable_gqa`).
    let batch = support::broadcast_shapes(&qs[..n], &ks[..n])?;
    let batch = support::broadcast_shapes(&batch, &vs[..n])?;
    let q = broadcast_batch(b, q, &batch)?;
    let k = broadcast_batch(b, k, &batch)?;
    let v = broadcast_batch(b, v, &batch)?;
    // scores[..., L, S] = q @ k^T * scale
    let scores = dot(b, q, k, batched(n, r - 1, r - 1))?;
    let factor = support::like(b, scores, Scalar::Float(scale))?;
    let mut scores = b.multiply(scores, factor)?;
    let score_shape = support::shape(b, scores)?;
    let tail = [r as i64 - 2, r as i64 - 1];
    let neg_inf = support::like(b, scores, Scalar::Float(f64::NEG_INFINITY))?;
    if is_causal {
        let keep = causal_mask(b, l, s)?;
        let keep = support::broadcast_in_dim(b, keep, &tail, &score_shape)?;
        scores = b.select(keep, scores, neg_inf)?;
    }
    if let Some(mask) = mask {
        let full = support::broadcast_to(b, mask, &score_shape)?;
        if support::dtype(b, full)? == DType::Bool {
            scores = b.select(full, scores, neg_inf)?;
        } else {
            let dtype = support::dtype(b, scores)?;
            let full = support::convert(b, full, dtype)?;
            scores = b.add(scores, full)?;
        }
    }
    // softmax over S
    let last = r - 1;
    let max = reduce(b, tpuc_ir::BinaryOp::Maximum, scores, &[last], false)?;
    let max = broadcast_back(b, max, &[last], &score_shape)?;
    let shifted = b.subtract(scores, max)?;
    let ex = b.exponential(shifted)?;
    let row_sum = reduce(b, tpuc_ir::BinaryOp::Add, ex, &[last], false)?;
    let sum = broadcast_back(b, row_sum, &[last], &score_shape)?;
    let p = b.divide(ex, sum)?;
    // out[..., L, Ev] = p @ v
    let out = dot(b, p, v, batched(n, r - 1, r - 2))?;
    match mask {
        Some(mask) => one(zero_masked_rows(b, out, mask)?),
        None => one(out),
    }
}

/// `out` with zeros in the query rows whose every key `mask` masks out: PyTorch's attention
/// gives 0 there (its safe softmax), where a softmax over a row of `-inf` gives NaN. The
/// condition is read from the mask at its own shape, so the select stays outside the
/// attention pattern the fusion passes match.
fn zero_masked_rows(b: &mut FunctionBuilder, out: Value, mask: Value) -> OpResult<Value> {
    let keeps = if support::dtype(b, mask)? == DType::Bool {
        mask
    } else {
        let neg_inf = support::like(b, mask, Scalar::Float(f64::NEG_INFINITY))?;
        b.compare(ComparisonDirection::Gt, mask, neg_inf)?
    };
    let keeps = match support::shape(b, keeps)?.len() {
        0 => support::reshape(b, keeps, &[1])?,
        _ => keeps,
    };
    let last = support::shape(b, keeps)?.len() - 1;
    let row_keeps = reduce(b, tpuc_ir::BinaryOp::Or, keeps, &[last], true)?;
    let row_keeps = support::broadcast_to(b, row_keeps, &support::shape(b, out)?)?;
    let zero = support::like(b, out, Scalar::Int(0))?;
    Ok(b.select(row_keeps, out, zero)?)
}
