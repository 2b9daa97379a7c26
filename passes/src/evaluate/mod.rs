//! `evaluate`: integer and boolean values that depend on no argument (masks built from iotas
//! and positions) worked out at compile time; those with the same value at every element
//! become splat constants, so what they guard folds away. A Llama's causal mask is such a
//! value: its "row with no visible key" test is constant false, and the select it guarded
//! after attention kept libtpu from fusing the attention output into what reads it (Llama
//! ~125M: 1.040x torch_xla's bytes accessed on v5e with the select, 0.996x without).

mod array;
mod compute;

use std::collections::HashMap;

use tpuc_ir::{
    BinaryOp, DenseElements, Function, InsertPoint, OpBuilder, OpId, OpKind, Program, Value,
};

use self::array::{Array, computes_with, wrap};
use crate::error::PassError;
use crate::pass::{Pass, PassContext};

/// The most elements one evaluated value may hold.
const ELEMENT_LIMIT: usize = 1 << 22;

pub(crate) struct Evaluate;

impl Pass for Evaluate {
    fn name(&self) -> &'static str {
        "evaluate"
    }

    fn run(&self, program: &mut Program, _: &mut PassContext) -> Result<(), PassError> {
        for function in &mut program.module.functions {
            for (op, value) in splat_values(function) {
                replace_with_splat(function, op, value);
            }
        }
        Ok(())
    }
}

/// The ops of the function's body (not of nested regions) whose single result depends on no
/// argument and holds one value at every element, with that value.
fn splat_values(f: &Function) -> Vec<(OpId, i64)> {
    let mut uses: HashMap<Value, usize> = HashMap::new();
    for op in f.walk() {
        for &operand in &f.op(op).operands {
            *uses.entry(operand).or_default() += 1;
        }
    }
    let mut known: HashMap<Value, Array> = HashMap::new();
    let mut splats = Vec::new();
    for &op in &f.block(f.entry_block()).ops {
        let evaluated = evaluate(f, op, &known);
        let operation = f.op(op);
        for operand in &operation.operands {
            let left = uses.get_mut(operand).expect("counted above");
            *left -= 1;
            if *left == 0 {
                known.remove(operand);
            }
        }
        let Some(array) = evaluated else {
            continue;
        };
        if !matches!(operation.kind, OpKind::Constant(_))
            && let Some(value) = array.splat()
        {
            splats.push((op, value));
        }
        let result = operation.results[0];
        if uses.get(&result).is_some_and(|&n| n > 0) {
            known.insert(result, array);
        }
    }
    splats
}

fn replace_with_splat(f: &mut Function, op: OpId, value: i64) {
    let result = f.op(op).results[0];
    let ty = f
        .value_type(result)
        .as_tensor()
        .expect("evaluated results are tensors")
        .clone();
    let data = DenseElements::splat_i64(ty.element, value);
    let location = f.op(op).location.clone();
    let constant = OpBuilder::at(f, InsertPoint::Before(op), location)
        .constant(ty, data)
        .expect("a splat of the result's own type");
    f.replace_op(op, &[constant]);
}

/// `op`'s single result, when its operands are `known` and the evaluator computes it.
fn evaluate(f: &Function, op: OpId, known: &HashMap<Value, Array>) -> Option<Array> {
    let operation = f.op(op);
    let [result] = operation.results.as_slice() else {
        return None;
    };
    let ty = f.value_type(*result).as_tensor()?;
    let element = ty.element;
    if !computes_with(element) {
        return None;
    }
    let shape: Vec<usize> = ty.static_shape()?.into_iter().map(|d| d as usize).collect();
    if shape.iter().product::<usize>() > ELEMENT_LIMIT {
        return None;
    }
    let args: Vec<&Array> = operation
        .operands
        .iter()
        .map(|v| known.get(v))
        .collect::<Option<_>>()?;
    let combine = |op: BinaryOp| move |a: i64, b: i64| compute::binary(op, a, b, element);
    match (&operation.kind, args.as_slice()) {
        (OpKind::Constant(data), []) => Array::constant(data, ty, shape),
        (OpKind::Iota { dimension }, []) => Array::iota(shape, *dimension as usize),
        (OpKind::Reshape, [x]) => Some(Array {
            shape,
            data: x.data.clone(),
        }),
        (OpKind::BroadcastInDim { dims }, [x]) => x.broadcast(dims, shape),
        (OpKind::Transpose { permutation }, [x]) => x.transpose(permutation, shape),
        (OpKind::Slice { start, strides, .. }, [x]) => x.slice(start, strides, shape),
        (OpKind::Reverse { dims }, [x]) => x.reverse(dims),
        (OpKind::Concatenate { dimension }, parts) => {
            Array::concatenate(parts, *dimension as usize, shape)
        }
        // Out-of-range integer conversions are implementation-defined: left to the device.
        (OpKind::Convert, [x]) => map(x, shape, |v| {
            let converted = wrap(i128::from(v), element);
            (element.is_bool() || converted == v).then_some(converted)
        }),
        (OpKind::Unary(unary), [x]) => map(x, shape, |v| compute::unary(*unary, v, element)),
        // Boolean arithmetic is where XLA departs from the spec (`add` is `xor` there).
        (OpKind::Binary(binary), [x, y]) if !element.is_bool() || is_logical(*binary) => {
            zip(x, y, shape, |v, w| compute::binary(*binary, v, w, element))
        }
        (OpKind::Compare { direction, .. }, [x, y]) => {
            zip(x, y, shape, |v, w| Some(compute::compare(*direction, v, w)))
        }
        (OpKind::Select, [pred, on_true, on_false]) => Array::build(shape, |index| {
            let picks_true = if pred.len() == 1 {
                pred.data[0]
            } else {
                pred.at(index)
            };
            Some(if picks_true != 0 { on_true } else { on_false }.at(index))
        }),
        (OpKind::Reduce { dimensions }, [x, init]) => {
            let body = f.single_binary_body(op)?;
            compute::reduce(x, init.data[0], dimensions, combine(body), shape)
        }
        (OpKind::ReduceWindow(window), [x, init]) => {
            let body = f.single_binary_body(op)?;
            compute::reduce_window(x, init.data[0], window, combine(body), shape)
        }
        (
            OpKind::Gather {
                dims, slice_sizes, ..
            },
            [operand, indices],
        ) => compute::gather(operand, indices, dims, slice_sizes, shape),
        _ => None,
    }
}

fn is_logical(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::And | BinaryOp::Or | BinaryOp::Xor | BinaryOp::Maximum | BinaryOp::Minimum
    )
}

fn map(x: &Array, shape: Vec<usize>, f: impl Fn(i64) -> Option<i64>) -> Option<Array> {
    let data = x.data.iter().map(|&v| f(v)).collect::<Option<_>>()?;
    Some(Array { shape, data })
}

fn zip(
    x: &Array,
    y: &Array,
    shape: Vec<usize>,
    f: impl Fn(i64, i64) -> Option<i64>,
) -> Option<Array> {
    let data = x
        .data
        .iter()
        .zip(&y.data)
        .map(|(&v, &w)| f(v, w))
        .collect::<Option<_>>()?;
    Some(Array { shape, data })
}
