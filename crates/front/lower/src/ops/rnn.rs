//! Recurrent layers as `nn.LSTM` (with or without `proj_size`), `nn.GRU` and `nn.RNN` export
//! them in the TRAINING dialect (`lstm.input`, `gru.input`, `rnn_tanh.input`,
//! `rnn_relu.input`): every layer and direction unrolled over the (static) sequence, the input
//! projections of all steps computed in one product per layer and direction.

use tpuc_ir::{DotDims, FunctionBuilder, Value};

use super::shape::{concat, slice_dim};
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpError, OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::support;

pub(super) const OPS: &[OpDef] = &[
    aten(
        "lstm.input(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, int num_layers, float dropout, bool train, bool bidirectional, bool batch_first) -> (Tensor, Tensor, Tensor)",
        |cx, args| recurrent(cx, args, Cell::Lstm),
    ),
    aten(
        "gru.input(Tensor input, Tensor hx, Tensor[] params, bool has_biases, int num_layers, float dropout, bool train, bool bidirectional, bool batch_first) -> (Tensor, Tensor)",
        |cx, args| recurrent(cx, args, Cell::Gru),
    ),
    aten(
        "rnn_tanh.input(Tensor input, Tensor hx, Tensor[] params, bool has_biases, int num_layers, float dropout, bool train, bool bidirectional, bool batch_first) -> (Tensor, Tensor)",
        |cx, args| recurrent(cx, args, Cell::Tanh),
    ),
    aten(
        "rnn_relu.input(Tensor input, Tensor hx, Tensor[] params, bool has_biases, int num_layers, float dropout, bool train, bool bidirectional, bool batch_first) -> (Tensor, Tensor)",
        |cx, args| recurrent(cx, args, Cell::Relu),
    ),
];

#[derive(Clone, Copy, PartialEq)]
enum Cell {
    Lstm,
    Gru,
    Tanh,
    Relu,
}

impl Cell {
    fn gates(self) -> i64 {
        match self {
            Cell::Lstm => 4,
            Cell::Gru => 3,
            Cell::Tanh | Cell::Relu => 1,
        }
    }
}

/// One layer and direction's weights: `w_ih [G·H, I]`, `w_hh [G·H, P]`, biases `[G·H]`, and
/// with `proj_size` an LSTM's `w_hr [P, H]` (`P = H` without it).
struct Weights {
    w_ih: Value,
    w_hh: Value,
    b_ih: Option<Value>,
    b_hh: Option<Value>,
    w_hr: Option<Value>,
}

/// `x · wᵀ (+ bias)` over the last dimension of `x`.
fn project(b: &mut FunctionBuilder, x: Value, w: Value, bias: Option<Value>) -> OpResult<Value> {
    let rank = support::rank(b, x)? as i64;
    let dims = DotDims {
        lhs_batching: Vec::new(),
        rhs_batching: Vec::new(),
        lhs_contracting: vec![rank - 1],
        rhs_contracting: vec![1],
    };
    let y = support::dot(b, x, w, dims)?;
    match bias {
        Some(bias) => {
            let shape = support::shape(b, y)?;
            let bias = support::broadcast_in_dim(b, bias, &[rank - 1], &shape)?;
            Ok(b.add(y, bias)?)
        }
        None => Ok(y),
    }
}

/// Gate `k` of `g` gates along the last dimension.
fn gate(b: &mut FunctionBuilder, v: Value, k: i64, hidden: i64) -> OpResult<Value> {
    let last = support::rank(b, v)? - 1;
    slice_dim(b, v, last, k * hidden, (k + 1) * hidden, 1)
}

/// Runs one layer and direction over `x` (`[T, B, I]`): the outputs of every step (`[T, B, P]`,
/// in time order) and the final states.
fn run_direction(
    b: &mut FunctionBuilder,
    cell: Cell,
    x: Value,
    weights: &Weights,
    mut h: Value,
    mut c: Option<Value>,
    reverse: bool,
) -> OpResult<(Value, Value, Option<Value>)> {
    let shape = support::shape(b, x)?;
    let (steps, batch) = (shape[0], shape[1]);
    // The gates' width: the cell state's with an LSTM (its output may be projected).
    let hidden = support::shape(b, c.unwrap_or(h))?[1];
    let width = support::shape(b, h)?[1];
    let inputs = project(b, x, weights.w_ih, weights.b_ih)?; // [T, B, G·H]
    let mut outputs = vec![h; steps as usize];
    let order: Vec<i64> = if reverse {
        (0..steps).rev().collect()
    } else {
        (0..steps).collect()
    };
    for t in order {
        let step = slice_dim(b, inputs, 0, t, t + 1, 1)?;
        let gi = support::reshape(b, step, &[batch, cell.gates() * hidden])?;
        let gh = project(b, h, weights.w_hh, weights.b_hh)?;
        match cell {
            Cell::Lstm => {
                let sum = b.add(gi, gh)?;
                let i = gate(b, sum, 0, hidden)?;
                let i = b.logistic(i)?;
                let f = gate(b, sum, 1, hidden)?;
                let f = b.logistic(f)?;
                let g = gate(b, sum, 2, hidden)?;
                let g = b.tanh(g)?;
                let o = gate(b, sum, 3, hidden)?;
                let o = b.logistic(o)?;
                let prev =
                    c.ok_or_else(|| OpError::new("internal: an LSTM without a cell state"))?;
                let kept = b.multiply(f, prev)?;
                let added = b.multiply(i, g)?;
                let next = b.add(kept, added)?;
                let squashed = b.tanh(next)?;
                h = b.multiply(o, squashed)?;
                if let Some(w_hr) = weights.w_hr {
                    h = project(b, h, w_hr, None)?;
                }
                c = Some(next);
            }
            Cell::Gru => {
                let parts = |b: &mut FunctionBuilder, v: Value| -> OpResult<[Value; 3]> {
                    Ok([
                        gate(b, v, 0, hidden)?,
                        gate(b, v, 1, hidden)?,
                        gate(b, v, 2, hidden)?,
                    ])
                };
                let [ir, iz, inn] = parts(b, gi)?;
                let [hr, hz, hn] = parts(b, gh)?;
                let r = b.add(ir, hr)?;
                let r = b.logistic(r)?;
                let z = b.add(iz, hz)?;
                let z = b.logistic(z)?;
                let reset = b.multiply(r, hn)?;
                let n = b.add(inn, reset)?;
                let n = b.tanh(n)?;
                // h' = n + z · (h - n)
                let diff = b.subtract(h, n)?;
                let kept = b.multiply(z, diff)?;
                h = b.add(n, kept)?;
            }
            Cell::Tanh => {
                let sum = b.add(gi, gh)?;
                h = b.tanh(sum)?;
            }
            Cell::Relu => {
                let sum = b.add(gi, gh)?;
                let zero = support::like(b, sum, crate::promote::Scalar::Int(0))?;
                h = b.maximum(sum, zero)?;
            }
        }
        outputs[t as usize] = support::reshape(b, h, &[1, batch, width])?;
    }
    Ok((concat(b, &outputs, 0)?, h, c))
}

fn recurrent(cx: &mut Cx<'_>, args: &Args<'_>, cell: Cell) -> OpResult<Vec<Val>> {
    let x = args.tensor("input")?;
    let params = args.tensors("params")?;
    let has_biases = args.bool("has_biases")?;
    let layers = args.int("num_layers")?;
    let directions = if args.bool("bidirectional")? { 2 } else { 1 };
    let batch_first = args.bool("batch_first")?;
    if args.bool("train")? && args.float("dropout")? > 0.0 {
        return Err(OpError::unsupported(
            "recurrent layers with dropout in training mode (call `model.eval()` before exporting)",
        ));
    }
    let biases = if has_biases { 4 } else { 2 };
    // With `proj_size`, every LSTM layer and direction has a projection weight after the rest.
    let runs = layers * directions;
    let per_direction = params.len() as i64 / runs.max(1);
    let projected = per_direction == biases + 1 && cell == Cell::Lstm;
    if per_direction * runs != params.len() as i64 || !(per_direction == biases || projected) {
        bail!(
            "{} weights for {layers} layer(s) in {directions} direction(s) (biases: {has_biases})",
            params.len()
        );
    }
    let (h0, c0) = match cell {
        Cell::Lstm => {
            let hx = args.tensors("hx")?;
            let [h, c] = hx[..] else {
                bail!("an LSTM takes two initial states, got {}", hx.len());
            };
            (h, Some(c))
        }
        Cell::Gru | Cell::Tanh | Cell::Relu => (args.tensor("hx")?, None),
    };
    let b = &mut *cx.b;
    let mut layer_input = if batch_first {
        support::transpose(b, x, &[1, 0, 2])?
    } else {
        x
    };
    // Layer `k`'s state of `[L·D, B, W]`, and back.
    let state = |b: &mut FunctionBuilder, v: Value, k: i64| -> OpResult<Value> {
        let shape = support::shape(b, v)?;
        let s = slice_dim(b, v, 0, k, k + 1, 1)?;
        support::reshape(b, s, &shape[1..])
    };
    let stacked = |b: &mut FunctionBuilder, v: Value| -> OpResult<Value> {
        let shape = support::shape(b, v)?;
        support::reshape(b, v, &[&[1], &shape[..]].concat())
    };
    let mut h_n = Vec::new();
    let mut c_n = Vec::new();
    for layer in 0..layers {
        let mut outputs = Vec::new();
        for direction in 0..directions {
            let k = layer * directions + direction;
            let p = &params[(k * per_direction) as usize..((k + 1) * per_direction) as usize];
            let weights = Weights {
                w_ih: p[0],
                w_hh: p[1],
                b_ih: has_biases.then(|| p[2]),
                b_hh: has_biases.then(|| p[3]),
                w_hr: (per_direction > biases).then(|| p[biases as usize]),
            };
            let h = state(b, h0, k)?;
            let c = c0.map(|c0| state(b, c0, k)).transpose()?;
            let (out, h, c) = run_direction(b, cell, layer_input, &weights, h, c, direction == 1)?;
            outputs.push(out);
            h_n.push(stacked(b, h)?);
            if let Some(c) = c {
                c_n.push(stacked(b, c)?);
            }
        }
        layer_input = concat(b, &outputs, 2)?;
    }
    let output = if batch_first {
        support::transpose(b, layer_input, &[1, 0, 2])?
    } else {
        layer_input
    };
    let mut results = vec![Val::Tensor(output), Val::Tensor(concat(b, &h_n, 0)?)];
    if cell == Cell::Lstm {
        results.push(Val::Tensor(concat(b, &c_n, 0)?));
    }
    Ok(results)
}
