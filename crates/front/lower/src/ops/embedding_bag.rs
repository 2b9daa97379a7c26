//! `embedding_bag` (sum, mean, max) over 1-d indices cut into bags by `offsets`, with
//! `per_sample_weights`, `padding_idx` (left out of every bag) and `include_last_offset`.
//! Bag membership is a `[bags, N]` mask, so a bag's sum is a matrix product and its max a
//! masked reduction; empty bags give zeros, as torch's kernel.

use tpuc_ir::{BinaryOp, ComparisonDirection, DotDims};
use tpuc_pt2::DType;

use super::indexing::index_values;
use crate::args::Args;
use crate::cx::Cx;
use crate::dtype::element_type;
use crate::env::Val;
use crate::error::{OpError, OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support::{self, reduce, reduce_extremum};

pub(super) const OPS: &[OpDef] = &[
    aten(
        "embedding_bag.padding_idx(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq, int mode, bool sparse, Tensor? per_sample_weights, bool include_last_offset, int? padding_idx) -> (Tensor, Tensor, Tensor, Tensor)",
        embedding_bag,
    ),
    aten(
        "embedding_bag(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, int mode=0, bool sparse=False, Tensor? per_sample_weights=None, bool include_last_offset=False) -> (Tensor, Tensor, Tensor, Tensor)",
        embedding_bag,
    ),
    aten(
        "_embedding_bag(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, int mode=0, bool sparse=False, Tensor? per_sample_weights=None, bool include_last_offset=False, int padding_idx=-1) -> (Tensor, Tensor, Tensor, Tensor)",
        embedding_bag,
    ),
];

fn embedding_bag(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    if (1..4).any(|i| cx.used(i)) {
        return Err(OpError::unsupported(
            "the bookkeeping outputs of `embedding_bag` (offset2bag, bag sizes, max indices)",
        ));
    }
    let weight = args.tensor("weight")?;
    let indices = args.tensor("indices")?;
    let offsets = args.tensor("offsets")?;
    let mode = args.int("mode")?;
    let per_sample = args.opt_tensor("per_sample_weights")?;
    let padding_idx = if args.raw("padding_idx").is_ok() {
        args.opt_int("padding_idx")?.filter(|&p| p >= 0)
    } else {
        None
    };
    let out_shape = cx.out_shape(0)?;
    let rows = support::shape(cx.b, weight)?[0];
    cx.check_index(indices, 0, rows)?;
    let b = &mut *cx.b;
    let ishape = support::shape(b, indices)?;
    let [n] = ishape[..] else {
        bail!("embedding_bag takes 1-d indices with offsets, got indices of shape {ishape:?}");
    };
    let bags = out_shape[0];
    let dim = out_shape[1];
    let dtype = support::dtype(b, weight)?;
    let i64_ty = |shape: &[i64]| -> OpResult<_> {
        Ok(support::tensor_type(element_type(DType::I64)?, shape))
    };
    // bag(j) = #{b : offsets[b] <= j} - 1; member[b, j] = bag(j) == b (and not padding).
    let offsets = support::convert(b, offsets, DType::I64)?;
    let count = support::shape(b, offsets)?[0];
    let offsets = support::broadcast_in_dim(b, offsets, &[0], &[count, n])?;
    let j = b.iota(i64_ty(&[count, n])?, 1)?;
    let started = b.compare(ComparisonDirection::Le, offsets, j)?;
    let started = support::convert(b, started, DType::I64)?;
    let bag = reduce(b, BinaryOp::Add, started, &[0], false)?;
    let one = support::splat(b, DType::I64, &[n], Scalar::Int(1))?;
    let bag = b.subtract(bag, one)?;
    let bag = support::broadcast_in_dim(b, bag, &[1], &[bags, n])?;
    let row = b.iota(i64_ty(&[bags, n])?, 0)?;
    let mut member = b.compare(ComparisonDirection::Eq, bag, row)?;
    let indices = support::convert(b, indices, DType::I64)?;
    if let Some(p) = padding_idx {
        let pad = support::splat(b, DType::I64, &[n], Scalar::Int(p))?;
        let real = b.compare(ComparisonDirection::Ne, indices, pad)?;
        let real = support::broadcast_in_dim(b, real, &[1], &[bags, n])?;
        member = b.and(member, real)?;
    }
    let mut rows = index_values(b, weight, &[Some(indices)])?; // [N, D]
    if let Some(w) = per_sample {
        let w = support::convert(b, w, dtype)?;
        let w = support::broadcast_in_dim(b, w, &[0], &[n, dim])?;
        rows = b.multiply(rows, w)?;
    }
    let mask = support::convert(b, member, dtype)?;
    let sums = |b: &mut tpuc_ir::FunctionBuilder| -> OpResult<_> {
        let dims = DotDims {
            lhs_batching: Vec::new(),
            rhs_batching: Vec::new(),
            lhs_contracting: vec![1],
            rhs_contracting: vec![0],
        };
        support::dot(b, mask, rows, dims)
    };
    let sizes = reduce(b, BinaryOp::Add, mask, &[1], false)?; // [bags]
    let output = match mode {
        0 => sums(b)?,
        1 => {
            let total = sums(b)?;
            let one = support::like(b, sizes, Scalar::Float(1.0))?;
            let divisor = b.maximum(sizes, one)?;
            let divisor = support::broadcast_in_dim(b, divisor, &[0], &[bags, dim])?;
            b.divide(total, divisor)?
        }
        2 => {
            let wide = [bags, n, dim];
            let member = support::broadcast_in_dim(b, member, &[0, 1], &wide)?;
            let values = support::broadcast_in_dim(b, rows, &[1, 2], &wide)?;
            let lowest = support::splat(b, dtype, &wide, Scalar::Float(f64::NEG_INFINITY))?;
            let candidates = b.select(member, values, lowest)?;
            let max = reduce_extremum(b, true, candidates, &[1], false)?;
            let zero = support::like(b, sizes, Scalar::Float(0.0))?;
            let empty = b.compare(ComparisonDirection::Eq, sizes, zero)?;
            let empty = support::broadcast_in_dim(b, empty, &[0], &[bags, dim])?;
            let zeros = support::like(b, max, Scalar::Float(0.0))?;
            b.select(empty, zeros, max)?
        }
        other => bail!("embedding_bag mode {other} is not 0 (sum), 1 (mean) or 2 (max)"),
    };
    Ok(vec![Val::Tensor(output), Val::None, Val::None, Val::None])
}
