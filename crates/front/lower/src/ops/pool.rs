//! Pooling: max windows (with the indices of the maxima) and average windows.

use tpuc_ir::{BinaryOp, FunctionBuilder, Value, WindowAttrs};
use tpuc_pt2::DType;

use super::norm::compute_dtype;
use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::dtype::element_type;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support::{self, arg_extremum, reduce_init};

pub(super) const OPS: &[OpDef] = &[
    aten(
        "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor",
        max_pool,
    ),
    aten(
        "max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
        max_pool_with_indices,
    ),
    aten(
        "avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor",
        avg_pool,
    ),
];

struct Window {
    kernel: Vec<i64>,
    stride: Vec<i64>,
    padding: Vec<i64>,
    dilation: Vec<i64>,
    ceil_mode: bool,
}

fn window_args(args: &Args<'_>) -> OpResult<Window> {
    let kernel = args.ints("kernel_size")?;
    let stride = match args.ints("stride")? {
        s if s.is_empty() => kernel.clone(),
        s => s,
    };
    let two = |v: Vec<i64>| if v.len() == 1 { vec![v[0]; 2] } else { v };
    let dilation = if args.raw("dilation").is_ok() {
        two(args.ints("dilation")?)
    } else {
        vec![1, 1]
    };
    Ok(Window {
        kernel: two(kernel),
        stride: two(stride),
        padding: two(args.ints("padding")?),
        dilation,
        ceil_mode: args.bool("ceil_mode")?,
    })
}

/// `reduce_window` attributes over the two trailing dimensions of a rank-`rank` tensor.
fn window_attrs(window: &Window, shape: &[i64]) -> OpResult<WindowAttrs> {
    let rank = shape.len();
    if rank < 3 {
        bail!("pooling needs a [N, C, H, W] or [C, H, W] input, got {shape:?}");
    }
    let lead = rank - 2;
    let mut padding = vec![(0, 0); rank];
    for i in 0..2 {
        let size = shape[lead + i];
        let (k, s, p, d) = (
            window.kernel[i],
            window.stride[i],
            window.padding[i],
            window.dilation[i],
        );
        let span = d * (k - 1) + 1;
        let mut high = p;
        if window.ceil_mode {
            // torch's ceil mode: one more window if it starts inside the input or left padding.
            let floor_out = (size + 2 * p - span) / s + 1;
            let mut ceil_out = (size + 2 * p - span + s - 1) / s + 1;
            if (ceil_out - 1) * s >= size + p {
                ceil_out -= 1;
            }
            high += (ceil_out - floor_out) * s;
        }
        padding[lead + i] = (p, high);
    }
    let ones = |v: &[i64]| [vec![1; lead], v.to_vec()].concat();
    Ok(WindowAttrs {
        window_dimensions: ones(&window.kernel),
        window_strides: ones(&window.stride),
        base_dilations: Vec::new(),
        window_dilations: if window.dilation.iter().all(|&d| d == 1) {
            Vec::new()
        } else {
            ones(&window.dilation)
        },
        padding: if padding.iter().all(|&p| p == (0, 0)) {
            Vec::new()
        } else {
            padding
        },
    })
}

fn max_pool(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let window = window_args(args)?;
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    let attrs = window_attrs(&window, &shape)?;
    let element = support::element(b, x)?;
    let init = reduce_init(b, BinaryOp::Maximum, element)?;
    // StableHLO's `maximum` propagates NaN, so a window holding one gives NaN, as torch's
    // kernel does (tpuc compiles with XLA:CPU's fast min/max off; see tpuc-pjrt's options).
    let out = b.reduce_window(&[x], &[init], attrs, |b, a| {
        Ok(vec![b.maximum(a[0], a[1])?])
    })?;
    one(out[0])
}

/// The maxima and, when used, their flat indices into each `H x W` plane of the input (the
/// first maximum of a window, the last NaN, as torch's kernel).
fn max_pool_with_indices(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    if !cx.used(1) {
        let values = max_pool(cx, args)?;
        return Ok(vec![values[0].clone(), Val::None]);
    }
    let x = args.tensor("self")?;
    let window = window_args(args)?;
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    let attrs = window_attrs(&window, &shape)?;
    let element = support::element(b, x)?;
    let rank = shape.len();
    let plane = [shape[rank - 2], shape[rank - 1]];
    let flat = b.iota(
        support::tensor_type(element_type(DType::I64)?, &[plane[0] * plane[1]]),
        0,
    )?;
    let flat = support::reshape(b, flat, &plane)?;
    let indices = support::broadcast_in_dim(b, flat, &[rank as i64 - 2, rank as i64 - 1], &shape)?;
    let init_value = reduce_init(b, BinaryOp::Maximum, element)?;
    // Padding takes the largest index, so any input element wins a tie with it.
    let init_index = support::splat(b, DType::I64, &[], Scalar::Int(i64::MAX))?;
    let out = b.reduce_window(&[x, indices], &[init_value, init_index], attrs, |b, a| {
        let (value, index) = arg_extremum(b, (a[0], a[1]), (a[2], a[3]), true, true)?;
        Ok(vec![value, index])
    })?;
    Ok(vec![Val::Tensor(out[0]), Val::Tensor(out[1])])
}

fn avg_pool(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let window = Window {
        dilation: vec![1, 1],
        ..window_args(args)?
    };
    let divisor = args.opt_int("divisor_override")?;
    let count_include_pad = args.bool("count_include_pad")?;
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    let attrs = window_attrs(&window, &shape)?;
    // Half types sum in float32 and round once, as torch's kernel.
    let dtype = support::dtype(b, x)?;
    let x = support::convert(b, x, compute_dtype(dtype))?;
    let element = support::element(b, x)?;
    let init = reduce_init(b, BinaryOp::Add, element)?;
    let sums = b.reduce_window(&[x], &[init], attrs, |b, a| Ok(vec![b.add(a[0], a[1])?]))?;
    let uniform =
        !window.ceil_mode && (count_include_pad || window.padding.iter().all(|&p| p == 0));
    let average = match divisor {
        Some(n) => divided_by(b, sums[0], n)?,
        None if uniform => divided_by(b, sums[0], window.kernel.iter().product())?,
        None => {
            let counts = window_counts(b, &window, &shape, count_include_pad)?;
            let counts = support::convert(b, counts, support::dtype(b, x)?)?;
            let out_shape = support::shape(b, sums[0])?;
            let r = out_shape.len() as i64;
            let counts = support::broadcast_in_dim(b, counts, &[r - 2, r - 1], &out_shape)?;
            b.divide(sums[0], counts)?
        }
    };
    one(support::convert(b, average, dtype)?)
}

/// torch's divisor of each output window, `[OH, OW]`: the elements of the window inside the
/// input (`count_include_pad=False`) or inside the input and its explicit padding (the extra
/// windows of `ceil_mode` reach past both).
fn window_counts(
    b: &mut FunctionBuilder,
    window: &Window,
    shape: &[i64],
    count_include_pad: bool,
) -> OpResult<Value> {
    let r = shape.len();
    let (mut plane, mut counted) = ([1, shape[r - 2], shape[r - 1]], window.padding.clone());
    if count_include_pad {
        // Ones over the input and its explicit padding; only the ceil-mode overhang is zero.
        plane[1] += 2 * window.padding[0];
        plane[2] += 2 * window.padding[1];
        counted = vec![0, 0];
    }
    let inner = Window {
        kernel: window.kernel.clone(),
        stride: window.stride.clone(),
        padding: counted,
        dilation: vec![1, 1],
        ceil_mode: false,
    };
    let mut attrs = window_attrs(&inner, &plane)?;
    // The ceil-mode overhang of the real window, past the far edge.
    let real = window_attrs(window, shape)?;
    if !real.padding.is_empty() {
        let mut padding = if attrs.padding.is_empty() {
            vec![(0, 0); 3]
        } else {
            attrs.padding.clone()
        };
        for i in 0..2 {
            let (low, high) = real.padding[r - 2 + i];
            let extra = high - low;
            padding[1 + i].1 += extra;
        }
        attrs.padding = padding;
    }
    let ones = support::splat(b, DType::I64, &plane, Scalar::Int(1))?;
    let zero = support::splat(b, DType::I64, &[], Scalar::Int(0))?;
    let counts = b.reduce_window(&[ones], &[zero], attrs, |b, a| Ok(vec![b.add(a[0], a[1])?]))?;
    let out = support::shape(b, counts[0])?;
    support::reshape(b, counts[0], &out[1..])
}

/// `sums / n`: for floats a multiply by the reciprocal (within an ulp of the quotient), for
/// integers the quotient truncated towards zero (torch's kernel divides in C++).
fn divided_by(b: &mut FunctionBuilder, sums: Value, n: i64) -> OpResult<Value> {
    if !support::element(b, sums)?.is_float() {
        let n = support::like(b, sums, Scalar::Int(n))?;
        return Ok(b.divide(sums, n)?);
    }
    let reciprocal = support::like(b, sums, Scalar::Float(1.0 / n as f64))?;
    Ok(b.multiply(sums, reciprocal)?)
}
