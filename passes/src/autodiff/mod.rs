//! Reverse-mode differentiation: the gradient of a program's scalar loss with respect to each
//! of its parameters, built from a vector-Jacobian product rule per StableHLO op (`rules/`),
//! applied backwards over `main` from the loss, as JAX transposes its primitives. The
//! gradients become results of `main` with the role `gradient`, so the optimizer pass (or a
//! caller) finds them as it finds the gradients of a joint-graph archive.
//!
//! A program whose interface already has gradients (a joint graph) is left as it is. Without a
//! `loss` result, the first user output is the loss and must be a float scalar.

mod expand;
mod rules;

use std::collections::{HashMap, HashSet};

use tpuc_ir::{
    ArgumentRole, Function, InsertPoint, Location, OpBuilder, OpId, Operation, Program, ResultRole,
    Value,
};

use crate::error::PassError;
use crate::pass::{Pass, PassContext};

pub(crate) struct Differentiate;

const NAME: &str = "autodiff";

impl Pass for Differentiate {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, program: &mut Program, _: &mut PassContext) -> Result<(), PassError> {
        let mut interface = program.interface()?;
        if interface
            .results
            .iter()
            .any(|role| matches!(role, ResultRole::Gradient { .. }))
        {
            return Ok(());
        }
        let loss_result = find_loss(&mut interface.results, program.main()?)?;
        // JAX writes helpers (`relu`, `log_softmax`, ...) as private functions it calls.
        crate::fusion::inline_calls(&mut program.module);
        let main = program.main_mut()?;
        let parameters: Vec<(String, Value)> = interface
            .arguments
            .iter()
            .zip(main.args())
            .filter_map(|(role, &arg)| match role {
                ArgumentRole::Parameter { fqn } => Some((fqn.clone(), arg)),
                _ => None,
            })
            .collect();
        if parameters.is_empty() {
            return Err(refused(
                "the program has no parameters to differentiate".into(),
                "export the model with `torch.export.export` so its weights are parameters \
                 (a `.mlir` module needs `tpuc.role = \"parameter\"` on the trained arguments)",
            ));
        }
        expand::batch_norms(main).map_err(|message| {
            refused(
                message,
                "tpuc differentiates programs of static shapes: give the dynamic dimensions \
                 sizes (--dim, --input-shape)",
            )
        })?;
        let loss = returned(main)[loss_result];
        let wrt: Vec<Value> = parameters.iter().map(|&(_, arg)| arg).collect();
        let gradients = differentiate(main, loss, &wrt)?;
        let mut values = returned(main);
        for ((fqn, _), gradient) in parameters.iter().zip(gradients) {
            if let Some(gradient) = gradient {
                values.push(gradient);
                interface
                    .results
                    .push(ResultRole::Gradient { fqn: fqn.clone() });
            }
        }
        set_returned(main, values);
        program.set_interface(&interface)?;
        Ok(())
    }
}

const BUG: &str = "this is a bug in tpuc's differentiation; please report it with the model";

fn refused(message: String, help: &str) -> PassError {
    PassError::Refused {
        pass: NAME,
        message,
        help: help.to_owned(),
    }
}

/// The result holding the loss: the `loss` result, else the first user output (which becomes
/// the loss; the other outputs keep their order).
fn find_loss(results: &mut [ResultRole], main: &Function) -> Result<usize, PassError> {
    if let Some(position) = results.iter().position(|r| *r == ResultRole::Loss) {
        return Ok(position);
    }
    let Some(position) = results
        .iter()
        .position(|r| *r == ResultRole::Output { index: 0 })
    else {
        return Err(refused(
            "the program has no output to differentiate".into(),
            "export a module whose forward returns the scalar loss first",
        ));
    };
    let ty = &main.result_types[position];
    let scalar_float = ty
        .as_tensor()
        .is_some_and(|t| t.element.is_float() && t.num_elements() == Some(1) && t.rank() <= 1);
    if !scalar_float {
        return Err(refused(
            format!("the program's first output is {ty}, not a scalar loss"),
            "export a module whose forward returns the loss first, a float scalar (e.g. \
             `return F.cross_entropy(self.model(x), labels)`)",
        ));
    }
    for role in results.iter_mut() {
        if let ResultRole::Output { index } = role {
            *index = index.saturating_sub(1);
        }
    }
    results[position] = ResultRole::Loss;
    Ok(position)
}

/// The values `main` returns.
pub(crate) fn returned(main: &Function) -> Vec<Value> {
    main.terminator(main.entry_block())
        .map(|ret| ret.operands.clone())
        .unwrap_or_default()
}

/// Makes `main` return `values` (types follow; result attributes of the first results stay).
pub(crate) fn set_returned(main: &mut Function, values: Vec<Value>) {
    let ret = *main
        .block(main.entry_block())
        .ops
        .last()
        .expect("a verified function ends with its return");
    let types = values.iter().map(|&v| main.value_type(v).clone()).collect();
    let mut attrs = main.result_attrs.clone();
    main.set_result_types(types);
    attrs.resize(values.len(), Default::default());
    main.result_attrs = attrs;
    main.set_operands(ret, values);
}

/// Appends to `main` (before its return) the gradient of `loss` with respect to each of `wrt`;
/// `None` where the loss does not depend on it.
fn differentiate(
    main: &mut Function,
    loss: Value,
    wrt: &[Value],
) -> Result<Vec<Option<Value>>, PassError> {
    let ops = main.block(main.entry_block()).ops.clone();
    let Some((&ret, body)) = ops.split_last() else {
        return Err(refused("`main` is empty".into(), BUG));
    };
    let inputs: HashMap<OpId, Vec<Value>> =
        body.iter().map(|&op| (op, op_inputs(main, op))).collect();
    let mut active: HashSet<Value> = wrt.iter().copied().collect();
    for &op in body {
        if inputs[&op].iter().any(|v| active.contains(v)) {
            for &result in &main.op(op).results {
                if is_float(main, result) {
                    active.insert(result);
                }
            }
        }
    }
    if !active.contains(&loss) {
        return Ok(vec![None; wrt.len()]);
    }
    let mut b = OpBuilder::at(main, InsertPoint::Before(ret), Location::Unknown);
    let loss_type = b.tensor_type(loss).map_err(ir)?.clone();
    let seed = b
        .splat(
            loss_type.element,
            loss_type.static_shape().unwrap_or_default(),
            1.0,
        )
        .map_err(ir)?;
    let mut cotangents: HashMap<Value, Value> = HashMap::from([(loss, seed)]);
    for &op in body.iter().rev() {
        let operation: Operation = b.function().op(op).clone();
        let result_cotangents: Vec<Option<Value>> = operation
            .results
            .iter()
            .map(|r| cotangents.get(r).copied())
            .collect();
        if result_cotangents.iter().all(Option::is_none) {
            continue;
        }
        let operand_active: Vec<bool> = operation
            .operands
            .iter()
            .map(|v| active.contains(v))
            .collect();
        let captures_active = inputs[&op][operation.operands.len()..]
            .iter()
            .any(|v| active.contains(v));
        if captures_active {
            return Err(not_differentiable(
                &operation,
                "its regions use a value that depends on a parameter",
            ));
        }
        if !operand_active.contains(&true) {
            continue;
        }
        b.set_location(operation.location.clone());
        let operand_cotangents =
            rules::vjp(&mut b, op, &operation, &result_cotangents, &operand_active)
                .map_err(|message| not_differentiable(&operation, &message))?;
        for ((&operand, cotangent), is_active) in operation
            .operands
            .iter()
            .zip(operand_cotangents)
            .zip(operand_active)
        {
            let Some(cotangent) = cotangent.filter(|_| is_active) else {
                continue;
            };
            let sum = match cotangents.get(&operand) {
                Some(&earlier) => b.add(earlier, cotangent).map_err(ir)?,
                None => cotangent,
            };
            cotangents.insert(operand, sum);
        }
    }
    Ok(wrt.iter().map(|w| cotangents.get(w).copied()).collect())
}

/// An op's operands, then the values its regions use from outside them.
fn op_inputs(main: &Function, op: OpId) -> Vec<Value> {
    let operation = main.op(op);
    let mut values = operation.operands.clone();
    let mut nested = Vec::new();
    for &region in &operation.regions {
        main.walk_region(region, &mut nested);
    }
    let defined: HashSet<Value> = nested
        .iter()
        .flat_map(|&inner| main.op(inner).results.iter().copied())
        .chain(operation.regions.iter().flat_map(|&region| {
            main.region(region)
                .blocks
                .iter()
                .flat_map(|&block| main.block(block).args.iter().copied())
        }))
        .collect();
    for &inner in &nested {
        for &operand in &main.op(inner).operands {
            if !defined.contains(&operand) && !values.contains(&operand) {
                values.push(operand);
            }
        }
    }
    values
}

fn is_float(main: &Function, value: Value) -> bool {
    main.value_type(value)
        .as_tensor()
        .is_some_and(|t| t.element.is_float())
}

fn ir(error: tpuc_ir::IrError) -> PassError {
    refused(error.to_string(), BUG)
}

fn not_differentiable(operation: &Operation, why: &str) -> PassError {
    let location = &operation.location;
    let mut location = match location.node_name() {
        Some(node) => format!(" (FX node `{node}`)"),
        None => String::new(),
    };
    if let Some((file, line, _)) = operation.location.file_line_col() {
        location.push_str(&format!(" from {file}:{line}"));
    }
    refused(
        format!(
            "cannot differentiate `{}`{location} on the path from the parameters to the loss: \
             {why}",
            operation.kind.name()
        ),
        "tpuc differentiates StableHLO op by op (docs/training.md lists the ops it can); \
         keep this computation off the loss's path (e.g. under `torch.no_grad()`), or export \
         the joint graph with `torch.export.experimental._export_forward_backward`",
    )
}
