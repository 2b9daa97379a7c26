//! Convolutions and transposed convolutions in PyTorch's NCHW layout.

use tpuc_ir::{ConvAttrs, ConvDims, FunctionBuilder, Value};

use super::norm::compute_dtype;
use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::dtype::element_type;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::support;

pub(super) const OPS: &[OpDef] = &[
    aten(
        "convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor",
        convolve,
    ),
    aten(
        "conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, SymInt[1] padding=0, SymInt[1] dilation=1, SymInt groups=1) -> Tensor",
        convolve,
    ),
    aten(
        "conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, SymInt[2] padding=0, SymInt[2] dilation=1, SymInt groups=1) -> Tensor",
        convolve,
    ),
    aten(
        "conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, str padding=\"valid\", SymInt[1] dilation=1, SymInt groups=1) -> Tensor",
        convolve,
    ),
    aten(
        "conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, str padding=\"valid\", SymInt[2] dilation=1, SymInt groups=1) -> Tensor",
        convolve,
    ),
    aten(
        "conv3d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=1, str padding=\"valid\", SymInt[3] dilation=1, SymInt groups=1) -> Tensor",
        convolve,
    ),
    aten(
        "conv3d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=1, SymInt[3] padding=0, SymInt[3] dilation=1, SymInt groups=1) -> Tensor",
        convolve,
    ),
    aten(
        "conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, SymInt[1] padding=0, SymInt[1] output_padding=0, SymInt groups=1, SymInt[1] dilation=1) -> Tensor",
        convolve_transposed,
    ),
    aten(
        "conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, SymInt[2] padding=0, SymInt[2] output_padding=0, SymInt groups=1, SymInt[2] dilation=1) -> Tensor",
        convolve_transposed,
    ),
    aten(
        "conv_transpose3d.input(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=1, SymInt[3] padding=0, SymInt[3] output_padding=0, SymInt groups=1, SymInt[3] dilation=1) -> Tensor",
        convolve_transposed,
    ),
];

/// A per-spatial-dimension list, a single value repeated.
pub(super) fn per_dim(values: Vec<i64>, spatial: usize, name: &str) -> OpResult<Vec<i64>> {
    match values.len() {
        n if n == spatial => Ok(values),
        1 => Ok(vec![values[0]; spatial]),
        _ => bail!(
            "`{name}` has {} values for {spatial} spatial dimensions",
            values.len()
        ),
    }
}

/// The window of a convolution: per-spatial-dimension stride, padding and dilation, and groups.
struct Window {
    stride: Vec<i64>,
    padding: Vec<i64>,
    dilation: Vec<i64>,
    groups: i64,
    /// `padding="same"`: the output keeps the input's spatial size.
    same: bool,
}

fn window(args: &Args<'_>, spatial: usize) -> OpResult<Window> {
    let (padding, same) = match args.raw("padding")? {
        tpuc_pt2::schema::Argument::AsString(mode) => match mode.as_str() {
            "valid" => (vec![0; spatial], false),
            "same" => (vec![0; spatial], true),
            other => bail!("convolution padding `{other}` is not `valid` or `same`"),
        },
        _ => (per_dim(args.ints("padding")?, spatial, "padding")?, false),
    };
    Ok(Window {
        stride: per_dim(args.ints("stride")?, spatial, "stride")?,
        padding,
        dilation: per_dim(args.ints("dilation")?, spatial, "dilation")?,
        groups: args.int("groups")?,
        same,
    })
}

/// The number of spatial dimensions of a batched input.
fn spatial_rank(b: &FunctionBuilder, x: Value) -> OpResult<usize> {
    let rank = support::rank(b, x)?;
    if rank < 3 {
        bail!(
            "a convolution needs an input of rank 3 or more ([N, C, spatial...]), got rank {rank}"
        );
    }
    Ok(rank - 2)
}

fn is_transposed(args: &Args<'_>) -> OpResult<bool> {
    Ok(args.raw("transposed").is_ok() && args.bool("transposed")?)
}

fn convolve(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    if is_transposed(args)? {
        return with_batch(cx, args, conv_transpose);
    }
    with_batch(cx, args, convolution)
}

fn convolve_transposed(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    with_batch(cx, args, conv_transpose)
}

/// A convolution of the input with the weight and optional bias, as `args` configure it.
type Conv = fn(&mut FunctionBuilder, Value, Value, Option<Value>, &Args<'_>) -> OpResult<Value>;

/// Runs `conv` on the input, which torch also accepts without its batch dimension (one rank
/// below the weight's): that input is convolved as a batch of one.
fn with_batch(cx: &mut Cx<'_>, args: &Args<'_>, conv: Conv) -> OpResult<Vec<Val>> {
    let [x, w] = cx.autocast_floats([args.tensor("input")?, args.tensor("weight")?])?;
    let bias = match args.opt_tensor("bias")? {
        Some(bias) => Some(cx.autocast_floats([bias])?[0]),
        None => None,
    };
    let b = &mut *cx.b;
    let shape = support::shape(b, x)?;
    if shape.len() + 1 != support::rank(b, w)? {
        return one(conv(b, x, w, bias, args)?);
    }
    let batched = support::reshape(b, x, &[&[1], &shape[..]].concat())?;
    let y = conv(b, batched, w, bias, args)?;
    let out = support::shape(b, y)?;
    one(support::reshape(b, y, &out[1..])?)
}

fn convolution(
    b: &mut FunctionBuilder,
    x: Value,
    w: Value,
    bias: Option<Value>,
    args: &Args<'_>,
) -> OpResult<Value> {
    let attrs = conv_attrs(b, x, w, args)?;
    convolve_with_bias(b, x, w, attrs, bias)
}

/// The attributes of a (not transposed) convolution of `x` with the kernel `w` as `args`
/// give its window.
pub(super) fn conv_attrs(
    b: &FunctionBuilder,
    x: Value,
    w: Value,
    args: &Args<'_>,
) -> OpResult<ConvAttrs> {
    let spatial = spatial_rank(b, x)?;
    let window = window(args, spatial)?;
    let mut attrs = ConvAttrs::new(ConvDims::nchw(spatial));
    if window.stride.iter().any(|&s| s != 1) {
        attrs.window_strides = window.stride;
    }
    if window.same {
        // torch pads `dilation * (k - 1)` in total, the odd element on the high side.
        let kernel = support::shape(b, w)?;
        attrs.padding = (0..spatial)
            .map(|i| {
                let total = window.dilation[i] * (kernel[2 + i] - 1);
                (total / 2, total - total / 2)
            })
            .collect();
    } else if window.padding.iter().any(|&p| p != 0) {
        attrs.padding = window.padding.iter().map(|&p| (p, p)).collect();
    }
    if window.dilation.iter().any(|&d| d != 1) {
        attrs.rhs_dilation = window.dilation;
    }
    attrs.feature_group_count = window.groups as u64;
    Ok(attrs)
}

/// The convolution plus the bias. Half types accumulate in float32 (the convolution's result
/// type, which backends honour; XLA:CPU otherwise sums in the narrow type), add the bias there
/// and round once, as torch's kernels.
fn convolve_with_bias(
    b: &mut FunctionBuilder,
    x: Value,
    w: Value,
    attrs: ConvAttrs,
    bias: Option<Value>,
) -> OpResult<Value> {
    let dtype = support::dtype(b, x)?;
    let wide = compute_dtype(dtype);
    let y = if wide == dtype {
        b.convolution(x, w, attrs)?
    } else {
        b.convolution_to(x, w, attrs, element_type(wide)?)?
    };
    let Some(bias) = bias else {
        return support::convert(b, y, dtype);
    };
    let shape = support::shape(b, y)?;
    let bias = support::convert(b, bias, wide)?;
    let bias = support::broadcast_in_dim(b, bias, &[1], &shape)?;
    let y = b.add(y, bias)?;
    support::convert(b, y, dtype)
}

/// A transposed convolution (the gradient of a convolution with respect to its input): the
/// input dilated by the stride, padded by `dilation * (k - 1) - padding` (plus `output_padding`
/// on the high side) and convolved with the spatially flipped kernel, whose `[C_in, C_out / g]`
/// feature dimensions swap roles.
fn conv_transpose(
    b: &mut FunctionBuilder,
    x: Value,
    w: Value,
    bias: Option<Value>,
    args: &Args<'_>,
) -> OpResult<Value> {
    let spatial = spatial_rank(b, x)?;
    let window = window(args, spatial)?;
    let output_padding = per_dim(args.ints("output_padding")?, spatial, "output_padding")?;
    for (i, &op) in output_padding.iter().enumerate() {
        if op < 0 || (op >= window.stride[i] && op >= window.dilation[i]) {
            bail!(
                "output_padding {op} must be smaller than the stride ({}) or the dilation ({})",
                window.stride[i],
                window.dilation[i]
            );
        }
    }
    let kernel = support::shape(b, w)?;
    if kernel.len() != spatial + 2 {
        bail!(
            "a transposed convolution of a rank-{} input needs a rank-{} weight, got {kernel:?}",
            spatial + 2,
            spatial + 2
        );
    }
    let groups = window.groups;
    if groups < 1 || kernel[0] % groups != 0 {
        bail!(
            "a transposed convolution's {} input channels do not split into {groups} groups",
            kernel[0]
        );
    }
    let spatial_dims: Vec<i64> = (2..2 + spatial as i64).collect();
    let flipped = b.reverse(w, &spatial_dims)?;
    let mut dims = ConvDims::nchw(spatial);
    let w = if groups == 1 {
        dims.kernel_input_feature = 0;
        dims.kernel_output_feature = 1;
        flipped
    } else {
        // [g * C_in/g, C_out/g, k...] -> [g * C_out/g, C_in/g, k...], group-major.
        let (c_in, c_out) = (kernel[0] / groups, kernel[1]);
        let k = &kernel[2..];
        let split = [&[groups, c_in, c_out][..], k].concat();
        let v = support::reshape(b, flipped, &split)?;
        let mut permutation = vec![0, 2, 1];
        permutation.extend(3..3 + spatial as i64);
        let v = support::transpose(b, v, &permutation)?;
        support::reshape(b, v, &[&[groups * c_out, c_in][..], k].concat())?
    };
    let mut attrs = ConvAttrs::new(dims);
    attrs.padding = (0..spatial)
        .map(|i| {
            let span = window.dilation[i] * (kernel[2 + i] - 1);
            let low = span - window.padding[i];
            (low, low + output_padding[i])
        })
        .collect();
    if window.stride.iter().any(|&s| s != 1) {
        attrs.lhs_dilation = window.stride;
    }
    if window.dilation.iter().any(|&d| d != 1) {
        attrs.rhs_dilation = window.dilation;
    }
    attrs.feature_group_count = groups as u64;
    convolve_with_bias(b, x, w, attrs, bias)
}
