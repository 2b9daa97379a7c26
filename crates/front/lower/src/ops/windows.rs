//! Strided windows over a tensor's elements: `as_strided` over the contiguous input, and
//! `im2col` / `col2im` (`F.unfold` / `F.fold`), the patches of a 2-D convolution and their sum.

use tpuc_ir::{FunctionBuilder, GatherDims, Value};
use tpuc_pt2::DType;

use super::conv::per_dim;
use super::one;
use super::shape::{concat, slice_dim};
use crate::args::Args;
use crate::cx::Cx;
use crate::dtype::element_type;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support::{self, numel};

pub(super) const OPS: &[OpDef] = &[
    aten(
        "as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)",
        as_strided,
    ),
    aten(
        "im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor",
        im2col,
    ),
    aten(
        "col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor",
        col2im,
    ),
];

/// Element `offset + sum(i[k] * stride[k])` of the input's row-major elements at each index `i`
/// of `size`. Stride-0 dimensions are a broadcast; the others are static ops (a slice of a
/// reshape, transposed) when they tile the elements without overlap, else one gather.
fn as_strided(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    let size = args.ints("size")?;
    let stride = args.ints("stride")?;
    let offset = args.opt_int("storage_offset")?.unwrap_or(0);
    let b = &mut *cx.b;
    let elements = numel(&support::shape(b, x)?);
    if size.len() != stride.len() {
        bail!(
            "as_strided has {} sizes and {} strides",
            size.len(),
            stride.len()
        );
    }
    if size.iter().chain(&stride).any(|&v| v < 0) || offset < 0 {
        bail!("as_strided with a negative size, stride or offset ({size:?}, {stride:?}, {offset})");
    }
    let last = offset
        + size
            .iter()
            .zip(&stride)
            .map(|(&n, &s)| (n - 1).max(0) * s)
            .sum::<i64>();
    if numel(&size) > 0 && last >= elements {
        bail!(
            "as_strided(size={size:?}, stride={stride:?}, storage_offset={offset}) reads element \
             {last} of an input of {elements} elements; tpuc reads the input as contiguous"
        );
    }
    let flat = support::reshape(b, x, &[elements])?;
    // The dimensions that move through memory, outermost (largest stride) first.
    let mut moving: Vec<usize> = (0..size.len())
        .filter(|&d| size[d] > 1 && stride[d] > 0)
        .collect();
    moving.sort_by_key(|&d| std::cmp::Reverse(stride[d]));
    let moving_size: Vec<i64> = moving.iter().map(|&d| size[d]).collect();
    let moving_stride: Vec<i64> = moving.iter().map(|&d| stride[d]).collect();
    let windows = match tiling(&moving_size, &moving_stride) {
        Some(factors) => tiled(b, flat, offset, &moving_size, &factors)?,
        None => gathered(b, flat, offset, &moving_size, &moving_stride)?,
    };
    // `windows` is `[size[d] for d in moving]`: put the moving dimensions back in order and
    // broadcast along the others (stride 0, or size 1).
    let mut order: Vec<usize> = (0..moving.len()).collect();
    order.sort_by_key(|&i| moving[i]);
    let permutation: Vec<i64> = order.iter().map(|&i| i as i64).collect();
    let windows = support::transpose(b, windows, &permutation)?;
    let mut kept = moving.clone();
    kept.sort_unstable();
    let kept: Vec<i64> = kept.iter().map(|&d| d as i64).collect();
    one(support::broadcast_in_dim(b, windows, &kept, &size)?)
}

/// When the strides (outermost first) tile memory without overlap, each a multiple of the
/// next: the row lengths `[stride[0] / stride[1], ..., stride[m-1]]` the span of `size[0]`
/// rows reshapes into, one dimension per stride.
fn tiling(size: &[i64], stride: &[i64]) -> Option<Vec<i64>> {
    let mut factors = Vec::with_capacity(size.len());
    for k in 0..size.len() {
        let inner = stride.get(k + 1).copied().unwrap_or(1);
        if stride[k] % inner != 0 {
            return None;
        }
        let factor = stride[k] / inner;
        let fits = match size.get(k + 1) {
            Some(&next) => next <= factor,
            None => true,
        };
        if !fits {
            return None;
        }
        factors.push(factor);
    }
    Some(factors)
}

/// `size[0]` rows of `stride[0]` elements from `offset` (zero-padded past the end, never read),
/// reshaped to `[size[0], factors...]`, and the first `size[k]` of each factor kept.
fn tiled(
    b: &mut FunctionBuilder,
    flat: Value,
    offset: i64,
    size: &[i64],
    factors: &[i64],
) -> OpResult<Value> {
    let Some(&rows) = size.first() else {
        // No moving dimension: the single element at `offset`.
        let v = slice_dim(b, flat, 0, offset, offset + 1, 1)?;
        return support::reshape(b, v, &[]);
    };
    let elements = support::shape(b, flat)?[0];
    let span = rows * factors.iter().product::<i64>();
    let end = offset + span;
    let flat = if end > elements {
        let dtype = support::dtype(b, flat)?;
        let zero = support::zeros(b, dtype, &[])?;
        b.pad(flat, zero, &[0], &[end - elements], &[0])?
    } else {
        flat
    };
    let v = slice_dim(b, flat, 0, offset, end, 1)?;
    let tiles = [&[rows][..], factors].concat();
    let v = support::reshape(b, v, &tiles)?;
    // Dimension k + 1 (a factor) keeps `size[k + 1]` of its positions; the last factor (the
    // innermost stride) keeps its first.
    let mut limits = tiles.clone();
    for (k, limit) in limits.iter_mut().enumerate().skip(1) {
        *limit = size.get(k).copied().unwrap_or(1);
    }
    let v = b.slice(v, &vec![0; tiles.len()], &limits, &vec![1; tiles.len()])?;
    support::reshape(b, v, size)
}

/// One gather of the elements at `offset + sum(iota[k] * stride[k])`.
fn gathered(
    b: &mut FunctionBuilder,
    flat: Value,
    offset: i64,
    size: &[i64],
    stride: &[i64],
) -> OpResult<Value> {
    let ty = support::tensor_type(element_type(DType::I64)?, size);
    let mut index = support::splat(b, DType::I64, size, Scalar::Int(offset))?;
    for (k, &s) in stride.iter().enumerate() {
        let i = b.iota(ty.clone(), k as i64)?;
        let step = support::like(b, i, Scalar::Int(s))?;
        let term = b.multiply(i, step)?;
        index = b.add(index, term)?;
    }
    let rank = size.len() as i64;
    let index = support::reshape(b, index, &[size, &[1]].concat())?;
    let dims = GatherDims {
        offset_dims: Vec::new(),
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: rank,
        ..GatherDims::default()
    };
    Ok(b.gather(flat, index, dims, &[1], false)?)
}

/// The 2-D window of `im2col` / `col2im`.
struct Patches {
    kernel: Vec<i64>,
    dilation: Vec<i64>,
    padding: Vec<i64>,
    stride: Vec<i64>,
}

impl Patches {
    fn new(args: &Args<'_>) -> OpResult<Self> {
        let patches = Patches {
            kernel: per_dim(args.ints("kernel_size")?, 2, "kernel_size")?,
            dilation: per_dim(args.ints("dilation")?, 2, "dilation")?,
            padding: per_dim(args.ints("padding")?, 2, "padding")?,
            stride: per_dim(args.ints("stride")?, 2, "stride")?,
        };
        let positive = |v: &[i64]| v.iter().all(|&x| x > 0);
        if !positive(&patches.kernel)
            || !positive(&patches.dilation)
            || !positive(&patches.stride)
            || patches.padding.iter().any(|&p| p < 0)
        {
            bail!(
                "im2col/col2im needs positive kernel_size, dilation and stride and a non-negative \
                 padding"
            );
        }
        Ok(patches)
    }

    /// Patch positions along spatial dimension `i` of a `size` input.
    fn count(&self, i: usize, size: i64) -> OpResult<i64> {
        let reach = self.dilation[i] * (self.kernel[i] - 1) + 1;
        let padded = size + 2 * self.padding[i];
        if padded < reach {
            bail!(
                "the kernel spans {reach} elements, more than the padded input's {padded} along \
                 spatial dimension {i}"
            );
        }
        Ok((padded - reach) / self.stride[i] + 1)
    }

    /// The kernel offsets `(ki, kj)`, row-major (torch's channel order `c * kh * kw + ki * kw + kj`).
    fn offsets(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        (0..self.kernel[0]).flat_map(move |ki| (0..self.kernel[1]).map(move |kj| (ki, kj)))
    }
}

/// Adds a batch of one to an unbatched input of rank `batched - 1`; whether it did.
fn batched(b: &mut FunctionBuilder, x: Value, rank: usize) -> OpResult<(Value, bool)> {
    let shape = support::shape(b, x)?;
    if shape.len() == rank {
        return Ok((x, false));
    }
    if shape.len() + 1 != rank {
        bail!(
            "expected an input of rank {} or {rank}, got {shape:?}",
            rank - 1
        );
    }
    Ok((support::reshape(b, x, &[&[1], &shape[..]].concat())?, true))
}

fn unbatched(b: &mut FunctionBuilder, y: Value, added: bool) -> OpResult<Vec<Val>> {
    if !added {
        return one(y);
    }
    let shape = support::shape(b, y)?;
    one(support::reshape(b, y, &shape[1..])?)
}

/// `[N, C, H, W]` to `[N, C * kh * kw, L]`: each kernel offset's strided slice of the padded
/// input, joined.
fn im2col(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let patches = Patches::new(args)?;
    let b = &mut *cx.b;
    let (x, added) = batched(b, args.tensor("self")?, 4)?;
    let shape = support::shape(b, x)?;
    let (n, c) = (shape[0], shape[1]);
    let rows = patches.count(0, shape[2])?;
    let cols = patches.count(1, shape[3])?;
    let dtype = support::dtype(b, x)?;
    let zero = support::zeros(b, dtype, &[])?;
    let (ph, pw) = (patches.padding[0], patches.padding[1]);
    let padded = b.pad(x, zero, &[0, 0, ph, pw], &[0, 0, ph, pw], &[0, 0, 0, 0])?;
    let (sh, sw) = (patches.stride[0], patches.stride[1]);
    let mut parts = Vec::new();
    for (ki, kj) in patches.offsets() {
        let (top, left) = (ki * patches.dilation[0], kj * patches.dilation[1]);
        let part = b.slice(
            padded,
            &[0, 0, top, left],
            &[n, c, top + (rows - 1) * sh + 1, left + (cols - 1) * sw + 1],
            &[1, 1, sh, sw],
        )?;
        parts.push(support::reshape(b, part, &[n, c, 1, rows * cols])?);
    }
    let joined = concat(b, &parts, 2)?;
    let k = parts.len() as i64;
    let y = support::reshape(b, joined, &[n, c * k, rows * cols])?;
    unbatched(b, y, added)
}

/// `[N, C * kh * kw, L]` to `[N, C, H, W]`: each kernel offset's patch values spread onto the
/// padded output (a pad with interior padding of `stride - 1`) and summed; then the padding cut.
fn col2im(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let patches = Patches::new(args)?;
    let output = per_dim(args.ints("output_size")?, 2, "output_size")?;
    let b = &mut *cx.b;
    let (x, added) = batched(b, args.tensor("self")?, 3)?;
    let shape = support::shape(b, x)?;
    let k = patches.kernel[0] * patches.kernel[1];
    let rows = patches.count(0, output[0])?;
    let cols = patches.count(1, output[1])?;
    if shape[1] % k != 0 || shape[2] != rows * cols {
        bail!(
            "col2im input {shape:?} is not [N, C * {k}, {}] for output_size {output:?} and kernel \
             {:?}",
            rows * cols,
            patches.kernel
        );
    }
    let (n, c) = (shape[0], shape[1] / k);
    let x = support::reshape(b, x, &[n, c, k, rows, cols])?;
    let (ph, pw) = (patches.padding[0], patches.padding[1]);
    let (height, width) = (output[0] + 2 * ph, output[1] + 2 * pw);
    let (sh, sw) = (patches.stride[0], patches.stride[1]);
    let dtype = support::dtype(b, x)?;
    let zero = support::zeros(b, dtype, &[])?;
    let mut sum: Option<Value> = None;
    for (i, (ki, kj)) in patches.offsets().enumerate() {
        let i = i as i64;
        let part = b.slice(x, &[0, 0, i, 0, 0], &[n, c, i + 1, rows, cols], &[1; 5])?;
        let part = support::reshape(b, part, &[n, c, rows, cols])?;
        let (top, left) = (ki * patches.dilation[0], kj * patches.dilation[1]);
        let bottom = height - (top + (rows - 1) * sh + 1);
        let right = width - (left + (cols - 1) * sw + 1);
        let spread = b.pad(
            part,
            zero,
            &[0, 0, top, left],
            &[0, 0, bottom, right],
            &[0, 0, sh - 1, sw - 1],
        )?;
        sum = Some(match sum {
            Some(s) => b.add(s, spread)?,
            None => spread,
        });
    }
    let Some(sum) = sum else {
        bail!("col2im with an empty kernel");
    };
    let y = b.slice(
        sum,
        &[0, 0, ph, pw],
        &[n, c, ph + output[0], pw + output[1]],
        &[1; 4],
    )?;
    unbatched(b, y, added)
}
