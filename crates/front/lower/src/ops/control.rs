//! Higher-order ops: `cond` as `stablehlo.if`, `while_loop` as `stablehlo.while`, and the
//! `wrap_with_set_grad_enabled` / `wrap_with_autocast` wrappers inlined.

use std::cell::RefCell;

use tpuc_ir::{FunctionBuilder, IrError, Value};
use tpuc_pt2::schema::{Argument, Graph};

use crate::args::Args;
use crate::cx::Cx;
use crate::cx::Walk;
use crate::env::Val;
use crate::error::{LowerError, OpError, OpResult, bail};
use crate::op_def::{OpDef, target};

pub(super) const OPS: &[OpDef] = &[
    target("torch.ops.higher_order.cond", cond),
    target("torch.ops.higher_order.while_loop", while_loop),
    target(
        "torch.ops.higher_order.wrap_with_set_grad_enabled",
        set_grad_enabled,
    ),
    target("torch.ops.higher_order.wrap_with_autocast", autocast),
];

fn graph_arg<'a>(args: &Args<'a>, i: usize) -> OpResult<&'a Graph> {
    match args.positional(i)? {
        Argument::AsGraph(g) => Ok(&g.graph),
        other => bail!("input {i} must be a subgraph, got {other:?}"),
    }
}

fn tensors_arg(args: &Args<'_>, i: usize) -> OpResult<Vec<Value>> {
    match args.value_of(args.positional(i)?)? {
        Val::Tensors(vs) => Ok(vs),
        Val::Tensor(v) => Ok(vec![v]),
        Val::None => Ok(Vec::new()),
        other => bail!("input {i} must be tensors, got {other:?}"),
    }
}

/// The subgraph's outputs as tensors.
fn tensors_of(values: Vec<Val>) -> OpResult<Vec<Value>> {
    values
        .into_iter()
        .map(|v| {
            v.tensor()
                .ok_or_else(|| OpError::unsupported(format!("a subgraph returning {v:?}")))
        })
        .collect()
}

/// Spreads `results` over the node's outputs (`[as_tensors]` or one `as_tensor` each).
fn bind_results(cx: &Cx<'_>, results: Vec<Value>) -> Vec<Val> {
    match cx.node.outputs.as_slice() {
        [Argument::AsTensors(_)] => vec![Val::Tensors(results)],
        _ => results.into_iter().map(Val::Tensor).collect(),
    }
}

/// Lowers a subgraph inside a region body, keeping its error aside (region bodies return
/// IR errors).
fn region_body(
    walker: &dyn Walk,
    b: &mut FunctionBuilder,
    graph: &Graph,
    inputs: Vec<Val>,
    failure: &RefCell<Option<LowerError>>,
) -> tpuc_ir::Result<Vec<Value>> {
    let fail = |error: LowerError| {
        *failure.borrow_mut() = Some(error);
        IrError::Builder {
            message: "subgraph lowering failed".into(),
        }
    };
    let values = walker.lower_graph(b, graph, inputs).map_err(fail)?;
    tensors_of(values).map_err(|e| {
        fail(LowerError::Program {
            message: e.message,
            help: e.help,
        })
    })
}

fn take_failure(failure: RefCell<Option<LowerError>>, error: IrError) -> OpError {
    match failure.into_inner() {
        Some(inner) => OpError::nested(inner),
        None => error.into(),
    }
}

fn cond(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let pred = args.value_of(args.positional(0)?)?;
    let (on_true, on_false) = (graph_arg(args, 1)?, graph_arg(args, 2)?);
    let operands: Vec<Val> = tensors_arg(args, 3)?.into_iter().map(Val::Tensor).collect();
    let pred = match pred {
        // A predicate known while lowering picks its branch.
        Val::Bool(p) => {
            let values = cx.lower_subgraph(if p { on_true } else { on_false }, operands)?;
            return Ok(bind_results(cx, tensors_of(values)?));
        }
        Val::Tensor(p) => super::elementwise::truthy(cx.b, p)?,
        other => bail!("the predicate must be a bool or a tensor, got {other:?}"),
    };
    let walker = cx.walker;
    let failure = RefCell::new(None);
    let results =
        cx.b.if_else(
            pred,
            |b| region_body(walker, b, on_true, operands.clone(), &failure),
            |b| region_body(walker, b, on_false, operands.clone(), &failure),
        )
        .map_err(|e| take_failure(RefCell::new(failure.take()), e))?;
    Ok(bind_results(cx, results))
}

fn while_loop(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let (cond_graph, body_graph) = (graph_arg(args, 0)?, graph_arg(args, 1)?);
    let carried = tensors_arg(args, 2)?;
    let additional = tensors_arg(args, 3)?;
    let n = carried.len();
    let initial = [carried, additional].concat();
    let walker = cx.walker;
    let failure = RefCell::new(None);
    let results =
        cx.b.while_loop(
            &initial,
            |b, vars| {
                let inputs = vars.iter().map(|&v| Val::Tensor(v)).collect();
                region_body(walker, b, cond_graph, inputs, &failure)
            },
            |b, vars| {
                let inputs = vars.iter().map(|&v| Val::Tensor(v)).collect();
                let mut next = region_body(walker, b, body_graph, inputs, &failure)?;
                next.extend_from_slice(&vars[n..]);
                Ok(next)
            },
        )
        .map_err(|e| take_failure(RefCell::new(failure.take()), e))?;
    Ok(bind_results(cx, results[..n].to_vec()))
}

/// The operands of a wrapper HOP: everything after its subgraph.
fn inline(cx: &mut Cx<'_>, args: &Args<'_>, graph_index: usize) -> OpResult<Vec<Val>> {
    let graph = graph_arg(args, graph_index)?;
    let mut operands = Vec::new();
    for i in graph_index + 1..args.count() {
        operands.push(args.value_of(args.positional(i)?)?);
    }
    let values = cx.lower_subgraph(graph, operands)?;
    Ok(bind_results(cx, tensors_of(values)?))
}

fn set_grad_enabled(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    inline(cx, args, 1)
}

fn autocast(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let enabled = matches!(args.positional(2)?, Argument::AsBool(true));
    let dtype = match args.positional(1)? {
        Argument::AsScalarType(code) => tpuc_pt2::DType::from_code(*code),
        _ => None,
    };
    let previous = cx.walker.autocast().get();
    if enabled {
        cx.walker.autocast().set(dtype);
    }
    let result = inline(cx, args, 4);
    cx.walker.autocast().set(previous);
    result
}
