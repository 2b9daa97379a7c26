//! In-place ops (`silu_`, `add_`, `index_put_`): the functional op's lowering, its result cast
//! back to the written tensor's type, and the written arguments rebound to their new values by
//! the signature's alias sets.

use tpuc_ir::{FunctionBuilder, Value};
use tpuc_pt2::schema::{Argument, NamedArgument, Node};

use super::one;
use super::shape::update_slice;
use crate::args::Args;
use crate::cx::Cx;
use crate::env::{Env, Val};
use crate::error::{OpError, OpResult};
use crate::op_def::LowerFn;
use crate::schema::OpSchema;
use crate::support::{self, norm_dim};

/// Lowers `op_` with the lowering of `op` (whose signature is `functional`): torch computes the
/// functional result and writes it into `self`, keeping `self`'s dtype and shape.
pub(crate) fn lower_in_place(
    cx: &mut Cx<'_>,
    args: &Args<'_>,
    functional: &OpSchema,
    lower: LowerFn,
) -> OpResult<Vec<Val>> {
    let written = args.tensor("self")?;
    let first = &functional.args[0].name;
    let original: &Node = cx.node;
    let renamed;
    let node = if first == "self" {
        original
    } else {
        renamed = Node {
            inputs: original
                .inputs
                .iter()
                .map(|input| NamedArgument {
                    name: if input.name == "self" {
                        first.clone()
                    } else {
                        input.name.clone()
                    },
                    ..input.clone()
                })
                .collect(),
            ..original.clone()
        };
        &renamed
    };
    let outputs = lower(cx, &args.with_node(node, functional))?;
    let Some(&Val::Tensor(result)) = outputs.first() else {
        return Err(OpError::new(
            "internal: the functional lowering of an in-place op gave no tensor",
        ));
    };
    let dtype = support::dtype(cx.b, written)?;
    let shape = support::shape(cx.b, written)?;
    let result = support::convert(cx.b, result, dtype)?;
    one(support::broadcast_to(cx.b, result, &shape)?)
}

/// After an op ran: every argument it writes (`Tensor(a!)`) names its new value from then on —
/// the result in the same alias set, or what the lowering reported with [`Cx::write`] — and so
/// does the tensor it aliases (an earlier in-place result) or views (`x[:, 0].fill_(1)` in the
/// TRAINING dialect writes `x`). A view op's result is recorded as a view of its input.
pub(crate) fn write_back(
    b: &mut FunctionBuilder,
    schema: &OpSchema,
    node: &Node,
    writes: &[(String, Value)],
    env: &mut Env,
) -> OpResult<()> {
    let first = schema.args.first();
    if first.is_some_and(|a| a.alias.is_some() && !a.mutated)
        && schema.returns_one_tensor
        && let Some(output) = node.outputs.first().and_then(Argument::as_tensor_name)
    {
        env.view(output, node);
    }
    for arg in schema.mutated_args() {
        let Some(target) = node.input(&arg.name).and_then(Argument::as_tensor_name) else {
            continue;
        };
        let result = schema
            .result_of(arg)
            .and_then(|i| node.outputs.get(i))
            .and_then(Argument::as_tensor_name);
        let returned = result.and_then(|name| env.get(name)).and_then(Val::tensor);
        let reported = writes
            .iter()
            .find(|(name, _)| *name == arg.name)
            .map(|&(_, value)| value);
        let root = env.root(target).to_owned();
        if let Some(value) = returned.or(reported) {
            env.bind(target, Val::Tensor(value));
            env.bind(root.as_str(), Val::Tensor(value));
            write_through_views(b, &root, value, env)?;
        }
        if let Some(result) = result {
            env.alias(result, &root);
        }
    }
    Ok(())
}

/// `name` (now `value`) is a view: its base gets the new elements, and so on up.
fn write_through_views(
    b: &mut FunctionBuilder,
    name: &str,
    value: Value,
    env: &mut Env,
) -> OpResult<()> {
    let Some(view) = env.view_of(name).cloned() else {
        return Ok(());
    };
    let Some(base) = view.input("self").and_then(Argument::as_tensor_name) else {
        return Ok(());
    };
    let base = env.root(base).to_owned();
    let Some(Val::Tensor(old)) = env.get(&base).cloned() else {
        return Ok(());
    };
    let shape = support::shape(b, old)?;
    let args = Args::new(&view, None, env);
    let int = |arg: &str, default: i64| -> OpResult<i64> {
        match view.input(arg) {
            None => Ok(default),
            Some(_) => Ok(args.opt_int(arg)?.unwrap_or(default)),
        }
    };
    let op = view.target.trim_start_matches("torch.ops.aten.");
    let rank = shape.len();
    let new = match op {
        "select.int" => {
            let dim = norm_dim(int("dim", 0)?, rank)?;
            let index = int("index", 0)?;
            let index = if index < 0 { index + shape[dim] } else { index };
            let mut src_shape = support::shape(b, value)?;
            src_shape.insert(dim, 1);
            let src = support::reshape(b, value, &src_shape)?;
            update_slice(b, old, src, dim, index, 1)?
        }
        "slice.Tensor" | "narrow.default" => {
            let dim = norm_dim(int("dim", 0)?, rank)?;
            let start = int("start", 0)?;
            let start = if start < 0 { start + shape[dim] } else { start };
            let step = if op == "slice.Tensor" {
                int("step", 1)?
            } else {
                1
            };
            update_slice(b, old, value, dim, start.clamp(0, shape[dim]), step)?
        }
        "transpose.int" => {
            let mut permutation: Vec<i64> = (0..rank as i64).collect();
            permutation.swap(
                norm_dim(int("dim0", 0)?, rank)?,
                norm_dim(int("dim1", 0)?, rank)?,
            );
            support::transpose(b, value, &permutation)?
        }
        "t.default" => support::transpose(b, value, &[1, 0][..rank.min(2)])?,
        "permute.default" => {
            let dims = args
                .ints("dims")?
                .into_iter()
                .map(|d| norm_dim(d, rank))
                .collect::<OpResult<Vec<_>>>()?;
            let mut inverse = vec![0; rank];
            for (i, &d) in dims.iter().enumerate() {
                inverse[d] = i as i64;
            }
            support::transpose(b, value, &inverse)?
        }
        // `to` returns its input when it converts nothing and is not asked to copy (a view
        // then), a copy otherwise.
        "to.dtype_layout" | "to.dtype" | "to.device" | "to.other" | "type_as.default" => {
            let copy = matches!(view.input("copy"), Some(Argument::AsBool(true)));
            if copy || support::element(b, value)? != support::element(b, old)? {
                return Ok(());
            }
            value
        }
        "alias.default" | "detach.default" | "detach_.default" | "lift_fresh.default" => value,
        // A copy unless its input already was contiguous, which the graph does not say; torch
        // then writes the copy only.
        "contiguous.default" => return Ok(()),
        "view.default"
        | "_unsafe_view.default"
        | "reshape.default"
        | "view_as.default"
        | "unsqueeze.default"
        | "squeeze.dim"
        | "squeeze.dims"
        | "squeeze.default"
        | "flatten.using_ints"
        | "unflatten.int" => support::reshape(b, value, &shape)?,
        other => {
            return Err(OpError::unsupported(format!(
                "an in-place write through a `{other}` view (write to the tensor itself, or use the ATen dialect: `ep.run_decompositions()`)"
            )));
        }
    };
    env.bind(base.as_str(), Val::Tensor(new));
    write_through_views(b, &base, new, env)
}
