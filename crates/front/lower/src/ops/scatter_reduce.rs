//! `scatter_reduce`: `src` combined into `self` along `dim` at `index` with sum, prod, mean,
//! amax or amin, with or without `self`'s own values (`include_self`).

use tpuc_ir::{BinaryOp, FunctionBuilder, ScatterDims, Value};

use super::elementwise::floor_div;
use super::indexing::coordinates;
use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support::{self, norm_dim, reduce_init};

pub(super) const OPS: &[OpDef] = &[aten(
    "scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor",
    scatter_reduce,
)];

/// Scatters `updates` into `x` at full coordinates `coords` ([`coordinates`]), combining with
/// `op` (`None` replaces).
pub(crate) fn scatter_with(
    b: &mut FunctionBuilder,
    x: Value,
    coords: Value,
    updates: Value,
    op: Option<BinaryOp>,
) -> OpResult<Value> {
    let r = support::rank(b, x)? as i64;
    let all: Vec<i64> = (0..r).collect();
    let dims = ScatterDims {
        update_window_dims: Vec::new(),
        inserted_window_dims: all.clone(),
        scatter_dims_to_operand_dims: all,
        index_vector_dim: r,
        ..ScatterDims::default()
    };
    let out = b.scatter(&[x], coords, &[updates], dims, false, false, move |b, a| {
        Ok(vec![match op {
            Some(op) => b.binary(op, a[0], a[1])?,
            None => a[1],
        }])
    })?;
    Ok(out[0])
}

fn scatter_reduce(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let index = args.tensor("index")?;
    let src = args.tensor("src")?;
    let include_self = args.bool("include_self")?;
    let reduce = args.str("reduce")?;
    let shape = support::shape(cx.b, x)?;
    let dim = norm_dim(args.int("dim")?, shape.len())?;
    cx.check_index(index, -shape[dim], shape[dim])?;
    let b = &mut *cx.b;
    let dtype = support::dtype(b, x)?;
    let element = support::element(b, x)?;
    let ishape = support::shape(b, index)?;
    let zeros = vec![0; ishape.len()];
    let src = b.slice(src, &zeros, &ishape, &vec![1; ishape.len()])?;
    let src = support::convert(b, src, dtype)?;
    let coords = coordinates(b, index, dim, shape[dim])?;
    let op = match reduce {
        "sum" | "mean" => BinaryOp::Add,
        "prod" => BinaryOp::Multiply,
        "amax" => BinaryOp::Maximum,
        "amin" => BinaryOp::Minimum,
        other => bail!("scatter_reduce `{other}` is not sum, prod, mean, amax or amin"),
    };
    // Without `self`, the written positions start from the reduction's identity.
    let base = if include_self {
        x
    } else {
        let init = reduce_init(b, op, element)?;
        let identity = b.broadcast_in_dim(init, &[], support::ir_shape(&ishape))?;
        scatter_with(b, x, coords, identity, None)?
    };
    let combined = scatter_with(b, base, coords, src, Some(op))?;
    if reduce != "mean" {
        return one(combined);
    }
    let ones = support::splat(b, dtype, &ishape, Scalar::Int(1))?;
    let start = support::splat(b, dtype, &shape, Scalar::Int(i64::from(include_self)))?;
    let counts = scatter_with(b, start, coords, ones, Some(BinaryOp::Add))?;
    let one_k = support::like(b, counts, Scalar::Int(1))?;
    let divisor = b.maximum(counts, one_k)?;
    // torch rounds an integer mean down (`div_(count, "floor")`).
    let mean = if element.is_float() {
        b.divide(combined, divisor)?
    } else {
        floor_div(b, combined, divisor, dtype)?
    };
    // Positions no index writes keep `self`.
    let zero = support::like(b, counts, Scalar::Int(0))?;
    let untouched = b.compare(tpuc_ir::ComparisonDirection::Eq, counts, zero)?;
    one(b.select(untouched, x, mean)?)
}
