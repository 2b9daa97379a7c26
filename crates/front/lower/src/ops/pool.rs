//! Pooling over the last 1, 2 or 3 dimensions: max windows (with the indices of the maxima)
//! and average windows, and the average's gradient (`avg_pool2d_backward`).

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
        "max_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0, int[1] dilation=1, bool ceil_mode=False) -> Tensor",
        |cx, args| max_pool(cx, args, 1),
    ),
    aten(
        "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor",
        |cx, args| max_pool(cx, args, 2),
    ),
    aten(
        "max_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, int[3] dilation=1, bool ceil_mode=False) -> Tensor",
        |cx, args| max_pool(cx, args, 3),
    ),
    aten(
        "max_pool1d_with_indices(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0, int[1] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
        |cx, args| max_pool_with_indices(cx, args, 1),
    ),
    aten(
        "max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
        |cx, args| max_pool_with_indices(cx, args, 2),
    ),
    aten(
        "max_pool3d_with_indices(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, int[3] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
        |cx, args| max_pool_with_indices(cx, args, 3),
    ),
    aten(
        "avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0, bool ceil_mode=False, bool count_include_pad=True) -> Tensor",
        |cx, args| avg_pool(cx, args, 1),
    ),
    aten(
        "avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor",
        |cx, args| avg_pool(cx, args, 2),
    ),
    aten(
        "avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor",
        |cx, args| avg_pool(cx, args, 3),
    ),
    aten(
        "avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor",
        avg_pool2d_backward,
    ),
];

/// A window over the last `kernel.len()` dimensions.
struct Window {
    kernel: Vec<i64>,
    stride: Vec<i64>,
    padding: Vec<i64>,
    dilation: Vec<i64>,
    ceil_mode: bool,
}

/// The window of an op pooling `n` dimensions (a single value stands for all `n`).
fn window_args(args: &Args<'_>, n: usize) -> OpResult<Window> {
    let kernel = args.ints("kernel_size")?;
    let stride = match args.ints("stride")? {
        s if s.is_empty() => kernel.clone(),
        s => s,
    };
    let each = |name: &str, v: Vec<i64>| -> OpResult<Vec<i64>> {
        match v.len() {
            1 => Ok(vec![v[0]; n]),
            len if len == n => Ok(v),
            len => bail!("`{name}` has {len} values for {n} pooled dimensions"),
        }
    };
    let dilation = if args.raw("dilation").is_ok() {
        each("dilation", args.ints("dilation")?)?
    } else {
        vec![1; n]
    };
    Ok(Window {
        kernel: each("kernel_size", kernel)?,
        stride: each("stride", stride)?,
        padding: each("padding", args.ints("padding")?)?,
        dilation,
        ceil_mode: args.bool("ceil_mode")?,
    })
}

/// `reduce_window` attributes over the window's trailing dimensions of `shape`.
fn window_attrs(window: &Window, shape: &[i64]) -> OpResult<WindowAttrs> {
    let rank = shape.len();
    let n = window.kernel.len();
    if rank < n + 1 {
        bail!("pooling {n} dimensions needs a batched or channels-first input, got {shape:?}");
    }
    let lead = rank - n;
    let mut padding = vec![(0, 0); rank];
    for i in 0..n {
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

fn max_pool(cx: &mut Cx<'_>, args: &Args<'_>, n: usize) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let window = window_args(args, n)?;
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

/// The maxima and, when used, their flat indices into each pooled plane (`H x W`, or
/// `D x H x W`) of the input (the first maximum of a window, the last NaN, as torch's kernel).
fn max_pool_with_indices(cx: &mut Cx<'_>, args: &Args<'_>, n: usize) -> OpResult<Vec<Val>> {
    if !cx.used(1) {
        let values = max_pool(cx, args, n)?;
        return Ok(vec![values[0].clone(), Val::None]);
    }
    let x = args.tensor("self")?;
    let window = window_args(args, n)?;
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    let attrs = window_attrs(&window, &shape)?;
    let element = support::element(b, x)?;
    let rank = shape.len();
    let plane = &shape[rank - n..];
    let flat = b.iota(
        support::tensor_type(element_type(DType::I64)?, &[plane.iter().product()]),
        0,
    )?;
    let flat = support::reshape(b, flat, plane)?;
    let pooled: Vec<i64> = (rank - n..rank).map(|d| d as i64).collect();
    let indices = support::broadcast_in_dim(b, flat, &pooled, &shape)?;
    let init_value = reduce_init(b, BinaryOp::Maximum, element)?;
    // Padding takes the largest index, so any input element wins a tie with it.
    let init_index = support::splat(b, DType::I64, &[], Scalar::Int(i64::MAX))?;
    let out = b.reduce_window(&[x, indices], &[init_value, init_index], attrs, |b, a| {
        let (value, index) = arg_extremum(b, (a[0], a[1]), (a[2], a[3]), true, true)?;
        Ok(vec![value, index])
    })?;
    Ok(vec![Val::Tensor(out[0]), Val::Tensor(out[1])])
}

/// An average pool's window and what divides each window's sum.
struct Average {
    window: Window,
    count_include_pad: bool,
    divisor_override: Option<i64>,
}

fn average_args(args: &Args<'_>, n: usize) -> OpResult<Average> {
    Ok(Average {
        window: Window {
            dilation: vec![1; n],
            ..window_args(args, n)?
        },
        count_include_pad: args.bool("count_include_pad")?,
        divisor_override: if args.raw("divisor_override").is_ok() {
            args.opt_int("divisor_override")?
        } else {
            None
        },
    })
}

impl Average {
    /// `sums` (one per output window of an input of `shape`) divided by torch's divisors.
    fn divide(&self, b: &mut FunctionBuilder, sums: Value, shape: &[i64]) -> OpResult<Value> {
        let window = &self.window;
        let uniform =
            !window.ceil_mode && (self.count_include_pad || window.padding.iter().all(|&p| p == 0));
        Ok(match self.divisor_override {
            Some(n) => divided_by(b, sums, n)?,
            None if uniform => divided_by(b, sums, window.kernel.iter().product())?,
            None => {
                let counts = window_counts(b, window, shape, self.count_include_pad)?;
                let counts = support::convert(b, counts, support::dtype(b, sums)?)?;
                let out_shape = support::shape(b, sums)?;
                let r = out_shape.len() as i64;
                let n = window.kernel.len() as i64;
                let pooled: Vec<i64> = (r - n..r).collect();
                let counts = support::broadcast_in_dim(b, counts, &pooled, &out_shape)?;
                b.divide(sums, counts)?
            }
        })
    }
}

fn avg_pool(cx: &mut Cx<'_>, args: &Args<'_>, n: usize) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let average = average_args(args, n)?;
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    let attrs = window_attrs(&average.window, &shape)?;
    // Half types sum in float32 and round once, as torch's kernel.
    let dtype = support::dtype(b, x)?;
    let x = support::convert(b, x, compute_dtype(dtype))?;
    let element = support::element(b, x)?;
    let init = reduce_init(b, BinaryOp::Add, element)?;
    let sums = b.reduce_window(&[x], &[init], attrs, |b, a| Ok(vec![b.add(a[0], a[1])?]))?;
    let means = average.divide(b, sums[0], &shape)?;
    one(support::convert(b, means, dtype)?)
}

/// The input gradient of an average pool: each window's gradient divided as its sum was, then
/// added over the window's inputs — the window sum transposed: the gradient spread by the
/// stride (interior padding), edged so that every input sees the windows covering it, summed
/// over windows of the kernel's size.
fn avg_pool2d_backward(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let g = args.tensor("grad_output")?;
    let x = args.tensor("self")?;
    let average = average_args(args, 2)?;
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    let g_shape = support::shape(b, g)?;
    let r = shape.len();
    if r < 3 || g_shape.len() != r {
        bail!("average-pool gradient of shape {g_shape:?} for an input of shape {shape:?}");
    }
    let dtype = support::dtype(b, g)?;
    let g = support::convert(b, g, compute_dtype(dtype))?;
    let g = average.divide(b, g, &shape)?;
    let window = &average.window;
    let (mut low, mut high, mut interior) = (vec![0; r], vec![0; r], vec![0; r]);
    for i in 0..2 {
        let d = r - 2 + i;
        let (k, s, p) = (window.kernel[i], window.stride[i], window.padding[i]);
        interior[d] = s - 1;
        low[d] = k - 1 - p;
        high[d] = shape[d] + k - 1 - low[d] - ((g_shape[d] - 1) * s + 1);
    }
    let zero = support::splat(b, support::dtype(b, g)?, &[], Scalar::Int(0))?;
    let spread = b.pad(g, zero, &low, &high, &interior)?;
    let ones = vec![1; r - 2];
    let attrs = WindowAttrs {
        window_dimensions: [ones.clone(), window.kernel.clone()].concat(),
        ..WindowAttrs::default()
    };
    let element = support::element(b, spread)?;
    let init = reduce_init(b, BinaryOp::Add, element)?;
    let sums = b.reduce_window(&[spread], &[init], attrs, |b, a| {
        Ok(vec![b.add(a[0], a[1])?])
    })?;
    one(support::convert(b, sums[0], dtype)?)
}

/// torch's divisor of each output window, `[OH, OW]` (or `[OD, OH, OW]`): the elements of the
/// window inside the input (`count_include_pad=False`) or inside the input and its explicit
/// padding (the extra windows of `ceil_mode` reach past both).
fn window_counts(
    b: &mut FunctionBuilder,
    window: &Window,
    shape: &[i64],
    count_include_pad: bool,
) -> OpResult<Value> {
    let r = shape.len();
    let n = window.kernel.len();
    let mut plane = [&[1], &shape[r - n..]].concat();
    let mut counted = window.padding.clone();
    if count_include_pad {
        // Ones over the input and its explicit padding; only the ceil-mode overhang is zero.
        for (size, pad) in plane[1..].iter_mut().zip(&window.padding) {
            *size += 2 * pad;
        }
        counted = vec![0; n];
    }
    let inner = Window {
        kernel: window.kernel.clone(),
        stride: window.stride.clone(),
        padding: counted,
        dilation: vec![1; n],
        ceil_mode: false,
    };
    let mut attrs = window_attrs(&inner, &plane)?;
    // The ceil-mode overhang of the real window, past the far edge.
    let real = window_attrs(window, shape)?;
    if !real.padding.is_empty() {
        let mut padding = if attrs.padding.is_empty() {
            vec![(0, 0); n + 1]
        } else {
            attrs.padding.clone()
        };
        for i in 0..n {
            let (low, high) = real.padding[r - n + i];
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
