//! Convolutions in PyTorch's NCHW layout.

use tpuc_ir::{ConvAttrs, ConvDims};

use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpError, OpResult, bail};
use crate::registry::{OpDef, aten};
use crate::support;

pub(super) const OPS: &[OpDef] = &[
    aten(
        "convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor",
        convolution,
    ),
    aten(
        "conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=1, SymInt[1] padding=0, SymInt[1] dilation=1, SymInt groups=1) -> Tensor",
        convolution,
    ),
    aten(
        "conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, SymInt[2] padding=0, SymInt[2] dilation=1, SymInt groups=1) -> Tensor",
        convolution,
    ),
    aten(
        "conv3d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=1, SymInt[3] padding=0, SymInt[3] dilation=1, SymInt groups=1) -> Tensor",
        convolution,
    ),
];

/// A per-spatial-dimension list, a single value repeated.
fn per_dim(values: Vec<i64>, spatial: usize, name: &str) -> OpResult<Vec<i64>> {
    match values.len() {
        n if n == spatial => Ok(values),
        1 => Ok(vec![values[0]; spatial]),
        _ => bail!(
            "`{name}` has {} values for {spatial} spatial dimensions",
            values.len()
        ),
    }
}

fn convolution(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("input")?;
    let w = args.tensor("weight")?;
    let bias = args.opt_tensor("bias")?;
    if args.raw("transposed").is_ok() && args.bool("transposed")? {
        return Err(OpError::unsupported("transposed convolution"));
    }
    let b = &mut *cx.b;
    let rank = support::rank(b, x)?;
    if rank < 3 {
        return Err(OpError::unsupported(
            "convolution without a batch dimension",
        ));
    }
    let spatial = rank - 2;
    let stride = per_dim(args.ints("stride")?, spatial, "stride")?;
    let padding = per_dim(args.ints("padding")?, spatial, "padding")?;
    let dilation = per_dim(args.ints("dilation")?, spatial, "dilation")?;
    let groups = args.int("groups")?;
    let mut attrs = ConvAttrs::new(ConvDims::nchw(spatial));
    if stride.iter().any(|&s| s != 1) {
        attrs.window_strides = stride;
    }
    if padding.iter().any(|&p| p != 0) {
        attrs.padding = padding.iter().map(|&p| (p, p)).collect();
    }
    if dilation.iter().any(|&d| d != 1) {
        attrs.rhs_dilation = dilation;
    }
    attrs.feature_group_count = groups as u64;
    let y = b.convolution(x, w, attrs)?;
    let Some(bias) = bias else {
        return one(y);
    };
    let shape = support::shape(b, y)?;
    let bias = support::broadcast_in_dim(b, bias, &[1], &shape)?;
    one(b.add(y, bias)?)
}
