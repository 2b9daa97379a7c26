//! In-place ops (`silu_`, `add_`, `index_put_`): the functional op's lowering, its result cast
//! back to the written tensor's type, and the written arguments rebound to their new values by
//! the signature's alias sets.

use tpuc_ir::Value;
use tpuc_pt2::schema::{Argument, NamedArgument, Node};

use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::env::{Env, Val};
use crate::error::{OpError, OpResult};
use crate::registry::LowerFn;
use crate::schema::OpSchema;
use crate::support;

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
/// does the tensor it aliases, when it is itself an earlier in-place op's result.
pub(crate) fn write_back(
    schema: &OpSchema,
    node: &Node,
    writes: &[(String, Value)],
    env: &mut Env,
) {
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
        }
        if let Some(result) = result {
            env.alias(result, &root);
        }
    }
}
