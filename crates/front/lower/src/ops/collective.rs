//! torch's functional collectives (`_c10d_functional`), as torch.distributed and DTensor code
//! export them. A program that has them is one rank's program: it lowers to StableHLO
//! collectives across `world` replicas, every rank in one group (see [`crate::world`]).

use tpuc_ir::{BinaryOp, CollectiveAttrs, Value};

use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::dtype::dtype_of;
use crate::env::Val;
use crate::error::{OpError, OpResult};
use crate::op_def::{OpDef, target};
use crate::promote::Scalar;
use crate::support;

pub(super) const OPS: &[OpDef] = &[
    target("torch.ops._c10d_functional.all_reduce.default", all_reduce),
    target(
        "torch.ops._c10d_functional.all_gather_into_tensor.default",
        all_gather,
    ),
    target(
        "torch.ops._c10d_functional.reduce_scatter_tensor.default",
        reduce_scatter,
    ),
    target(
        "torch.ops._c10d_functional.all_to_all_single.default",
        all_to_all,
    ),
    // Collectives complete where they are issued: waiting is a no-op.
    target("torch.ops._c10d_functional.wait_tensor.default", wait),
];

/// One group of every rank.
fn world_group(cx: &Cx<'_>) -> OpResult<CollectiveAttrs> {
    let world = cx.world_size()?;
    Ok(CollectiveAttrs {
        replica_groups: vec![(0..i64::from(world)).collect()],
        channel: None,
        use_global_device_ids: false,
    })
}

/// The combiner of a `reduce_op` name, and whether the result is divided by the world size.
fn combiner(name: &str) -> OpResult<(BinaryOp, bool)> {
    Ok(match name {
        "sum" => (BinaryOp::Add, false),
        "avg" => (BinaryOp::Add, true),
        "product" => (BinaryOp::Multiply, false),
        "min" => (BinaryOp::Minimum, false),
        "max" => (BinaryOp::Maximum, false),
        "band" => (BinaryOp::And, false),
        "bor" => (BinaryOp::Or, false),
        "bxor" => (BinaryOp::Xor, false),
        other => {
            return Err(OpError::unsupported(format!("reduce_op `{other}`"))
                .with_help("tpuc lowers sum, avg, product, min, max, band, bor and bxor"));
        }
    })
}

/// Checks that a collective's group spans the whole world: sub-groups' ranks are not recorded
/// in the archive.
fn check_group_size(cx: &Cx<'_>, args: &Args<'_>) -> OpResult<()> {
    let world = i64::from(cx.world_size()?);
    let size = args.int("group_size")?;
    if size != world {
        return Err(OpError::unsupported(format!(
            "a collective over a group of {size} ranks in a world of {world}"
        ))
        .with_help(
            "the archive does not record which ranks a sub-group holds; tpuc lowers \
             collectives over the default group (all ranks) only",
        ));
    }
    Ok(())
}

/// Divides by the world size for `avg`.
fn averaged(cx: &mut Cx<'_>, value: Value, average: bool) -> OpResult<Value> {
    if !average {
        return Ok(value);
    }
    let world = cx.world_size()?;
    let ty = cx.b.tensor_type(value)?.clone();
    if !ty.element.is_float() {
        return Err(OpError::unsupported("reduce_op `avg` of an integer tensor"));
    }
    let dtype = dtype_of(ty.element)?;
    let shape = support::dims_of(&ty);
    let divisor = support::splat(cx.b, dtype, &shape, Scalar::Int(i64::from(world)))?;
    Ok(cx.b.divide(value, divisor)?)
}

fn all_reduce(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let input = args.tensor("input")?;
    let (op, average) = combiner(args.str("reduce_op")?)?;
    let group = world_group(cx)?;
    let reduced =
        cx.b.all_reduce(&[input], group, |b, v| Ok(vec![b.binary(op, v[0], v[1])?]))?;
    one(averaged(cx, reduced[0], average)?)
}

fn all_gather(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    check_group_size(cx, args)?;
    let input = args.tensor("input")?;
    let group = world_group(cx)?;
    one(cx.b.all_gather(input, 0, group)?)
}

fn reduce_scatter(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    check_group_size(cx, args)?;
    let input = args.tensor("input")?;
    let (op, average) = combiner(args.str("reduce_op")?)?;
    let group = world_group(cx)?;
    let scattered =
        cx.b.reduce_scatter(input, 0, group, |b, v| Ok(vec![b.binary(op, v[0], v[1])?]))?;
    one(averaged(cx, scattered, average)?)
}

fn all_to_all(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let input = args.tensor("input")?;
    let world = i64::from(cx.world_size()?);
    let rows =
        cx.b.tensor_type(input)?
            .static_shape()
            .and_then(|s| s.first().map(|&rows| rows as i64));
    let even = |sizes: Option<Vec<i64>>| {
        sizes.is_none_or(|sizes| {
            sizes.len() as i64 == world
                && rows.is_some_and(|rows| sizes.iter().all(|&s| s * world == rows))
        })
    };
    if !even(args.opt_ints("input_split_sizes")?) || !even(args.opt_ints("output_split_sizes")?) {
        return Err(
            OpError::unsupported("all_to_all_single with uneven split sizes")
                .with_help("split dimension 0 into one equal block per rank"),
        );
    }
    let group = world_group(cx)?;
    one(cx
        .b
        .all_to_all(input, 0, 0, world, group.replica_groups, None)?)
}

fn wait(_: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    one(args.tensor("tensor")?)
}
