//! Fourier transforms: `_fft_r2c`, `_fft_c2r` and `_fft_c2c`, the core ATen ops every
//! `torch.fft` function decomposes into, lowered to `stablehlo.fft`, and the conjugates the
//! Hermitian ones add (`_conj`, `_conj_physical`); the functions themselves, which
//! training-dialect programs keep, are in `fft_functions`.
//!
//! StableHLO transforms the last 1 to 3 dimensions, so the transformed dimensions are moved to
//! the end and back, at most three at a time (a multi-dimensional DFT is one 1-D DFT per
//! dimension, in any order; only the last of `dim` is halved by the real transforms). XLA's
//! inverse transforms divide by the transformed size and the forward ones do not; torch's
//! `normalization` (0: none, 1: by the square root of the size, 2: by the size, the size being
//! the product of the transformed signal's dimensions) is applied on top.

use tpuc_ir::{ElementType, FftType, FunctionBuilder, Value};

use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support;

pub(super) const OPS: &[OpDef] = &[
    aten(
        "_fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor",
        r2c,
    ),
    aten(
        "_fft_c2r(Tensor self, int[] dim, int normalization, SymInt last_dim_size) -> Tensor",
        c2r,
    ),
    aten(
        "_fft_c2c(Tensor self, SymInt[] dim, int normalization, bool forward) -> Tensor",
        c2c,
    ),
    // The conjugate, as a value: `_conj` marks a view conjugated, which a copy materializes.
    aten("_conj(Tensor(a) self) -> Tensor(a)", conj_op),
    aten("_conj_physical(Tensor self) -> Tensor", conj_op),
    aten("conj_physical(Tensor self) -> Tensor", conj_op),
];

/// The most dimensions one `stablehlo.fft` transforms.
const MAX_FFT_DIMS: usize = 3;

/// torch's `fft_norm_mode`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Norm {
    None,
    ByRootN,
    ByN,
}

impl Norm {
    fn of(args: &Args<'_>) -> OpResult<Norm> {
        Ok(match args.int("normalization")? {
            0 => Norm::None,
            1 => Norm::ByRootN,
            2 => Norm::ByN,
            other => bail!("normalization must be 0 (none), 1 (1/sqrt(n)) or 2 (1/n), got {other}"),
        })
    }

    /// torch's `norm_from_string`: the `norm` argument of the `torch.fft` functions for a
    /// forward or backward transform. "backward" (the default) divides the backward transform
    /// by n, "forward" the forward one, "ortho" both by the square root of n.
    pub(super) fn named(norm: Option<&str>, forward: bool) -> OpResult<Norm> {
        Ok(match (norm.unwrap_or("backward"), forward) {
            ("backward", true) | ("forward", false) => Norm::None,
            ("backward", false) | ("forward", true) => Norm::ByN,
            ("ortho", _) => Norm::ByRootN,
            (other, _) => bail!(
                "invalid normalization mode {other:?}: norm must be \"backward\", \"forward\" or \
                 \"ortho\""
            ),
        })
    }

    /// The factor torch applies to an unnormalized transform of `n` points.
    fn factor(self, n: f64) -> f64 {
        match self {
            Norm::None => 1.0,
            Norm::ByRootN => 1.0 / n.sqrt(),
            Norm::ByN => 1.0 / n,
        }
    }

    /// The factor to apply to XLA's inverse transform of `n` points, which divided by `n`.
    fn after_inverse(self, n: f64) -> f64 {
        match self {
            Norm::None => n,
            Norm::ByRootN => n.sqrt(),
            Norm::ByN => 1.0,
        }
    }
}

/// The shape of `x` and the transformed dimensions `dim` (made non-negative, in torch's order);
/// each must appear once and have a static size.
pub(super) fn fft_dims(
    b: &FunctionBuilder,
    x: Value,
    dim: &[i64],
    op: &str,
) -> OpResult<(Vec<i64>, Vec<usize>)> {
    let shape = support::shape(b, x)?;
    let dims = support::norm_dims(dim, shape.len())?;
    for (i, &d) in dims.iter().enumerate() {
        if dims[..i].contains(&d) {
            bail!("{op}: dimension {d} appears twice in dim {dims:?}");
        }
        if shape.is_empty() || shape[d] < 0 {
            bail!("{op}: transformed dimension {d} of {shape:?} must have a static size");
        }
    }
    Ok((shape, dims))
}

/// The input and its transformed dimensions, from the core ops' `self` and `dim`.
fn input_and_dims(b: &FunctionBuilder, args: &Args<'_>, op: &str) -> OpResult<(Value, Vec<usize>)> {
    let x = args.tensor("self")?;
    let (_, dims) = fft_dims(b, x, &args.ints("dim")?, op)?;
    Ok((x, dims))
}

/// The element type of `x`, which must be one of `allowed` (`what` names them).
fn element_of(
    b: &FunctionBuilder,
    x: Value,
    allowed: &[ElementType],
    op: &str,
    what: &str,
) -> OpResult<ElementType> {
    let element = support::element(b, x)?;
    if !allowed.contains(&element) {
        bail!("{op} takes a {what} tensor, got {element} (torch's CPU FFT has no half types)");
    }
    Ok(element)
}

/// `fft_type` of the dimensions `dims` of `x` (at most [`MAX_FFT_DIMS`], the last one
/// innermost), moved to the end and back; `lengths` is `fft_length`.
fn transform(
    b: &mut FunctionBuilder,
    x: Value,
    dims: &[usize],
    fft_type: FftType,
    lengths: &[i64],
) -> OpResult<Value> {
    let rank = support::rank(b, x)?;
    let mut permutation: Vec<i64> = (0..rank)
        .filter(|d| !dims.contains(d))
        .map(|d| d as i64)
        .collect();
    permutation.extend(dims.iter().map(|&d| d as i64));
    let mut inverse = vec![0; rank];
    for (i, &p) in permutation.iter().enumerate() {
        inverse[p as usize] = i as i64;
    }
    let moved = support::transpose(b, x, &permutation)?;
    let transformed = b.fft(moved, fft_type, lengths)?;
    support::transpose(b, transformed, &inverse)
}

/// FFT or IFFT of every dimension of `dims`, up to three at a time.
fn complex_transform(
    b: &mut FunctionBuilder,
    mut x: Value,
    dims: &[usize],
    fft_type: FftType,
) -> OpResult<Value> {
    for chunk in dims.chunks(MAX_FFT_DIMS) {
        let shape = support::shape(b, x)?;
        let lengths: Vec<i64> = chunk.iter().map(|&d| shape[d]).collect();
        x = transform(b, x, chunk, fft_type, &lengths)?;
    }
    Ok(x)
}

/// `x * factor`, or `x` when the factor is 1.
fn scale(b: &mut FunctionBuilder, x: Value, factor: f64) -> OpResult<Value> {
    if factor == 1.0 {
        return Ok(x);
    }
    let factor = support::like(b, x, Scalar::Float(factor))?;
    Ok(b.multiply(x, factor)?)
}

/// The product of `sizes` as a float: the `n` of the normalization.
fn points(sizes: impl IntoIterator<Item = i64>) -> f64 {
    sizes.into_iter().map(|s| s as f64).product()
}

/// A tensor of zeros of `shape` and `element`: the transform of an empty tensor.
fn empty(b: &mut FunctionBuilder, element: ElementType, shape: &[i64]) -> OpResult<Value> {
    let dtype = crate::dtype::dtype_of(element)?;
    support::zeros(b, dtype, shape)
}

/// Real to complex, forward, of the dimensions `dims` (from [`fft_dims`]) of a float32 or
/// float64 `x`: the full spectrum, or with `onesided` the first `n / 2 + 1` frequencies of the
/// last of `dims`.
pub(super) fn real_to_complex(
    b: &mut FunctionBuilder,
    x: Value,
    dims: &[usize],
    norm: Norm,
    onesided: bool,
    op: &str,
) -> OpResult<Value> {
    let shape = support::shape(b, x)?;
    let element = element_of(
        b,
        x,
        &[ElementType::F32, ElementType::F64],
        op,
        "float32 or float64",
    )?;
    let complex = element
        .complex_of()
        .expect("f32 and f64 have complex types");
    let Some(&last) = dims.last() else {
        bail!("{op}: dim must name at least one dimension");
    };
    if let Some(&d) = dims.iter().find(|&&d| shape[d] == 0) {
        bail!("{op}: cannot transform dimension {d} of {shape:?}, which is empty");
    }
    let mut out_shape = shape.clone();
    if onesided {
        out_shape[last] = shape[last] / 2 + 1;
    }
    if support::numel(&shape) == 0 {
        return empty(b, complex, &out_shape);
    }
    let n = points(dims.iter().map(|&d| shape[d]));
    let spectrum = if onesided {
        // RFFT of the innermost chunk (ending with the halved dimension), FFT of the rest.
        let split = dims.len().saturating_sub(MAX_FFT_DIMS);
        let (outer, inner) = dims.split_at(split);
        let lengths: Vec<i64> = inner.iter().map(|&d| shape[d]).collect();
        let half = transform(b, x, inner, FftType::Rfft, &lengths)?;
        complex_transform(b, half, outer, FftType::Fft)?
    } else {
        let z = b.convert(x, complex)?;
        complex_transform(b, z, dims, FftType::Fft)?
    };
    scale(b, spectrum, norm.factor(n))
}

/// Complex to real, backward, of the dimensions `dims` (from [`fft_dims`]) of a complex64 or
/// complex128 `x` that holds the first `length / 2 + 1` frequencies of the last of `dims`: the
/// result has `length` real values there.
pub(super) fn complex_to_real(
    b: &mut FunctionBuilder,
    x: Value,
    dims: &[usize],
    norm: Norm,
    length: i64,
    op: &str,
) -> OpResult<Value> {
    let shape = support::shape(b, x)?;
    let element = element_of(
        b,
        x,
        &[ElementType::ComplexF32, ElementType::ComplexF64],
        op,
        "complex64 or complex128",
    )?;
    let real = element.complex_part().expect("a complex type");
    let Some(&last) = dims.last() else {
        bail!("{op}: dim must name at least one dimension");
    };
    if length < 1 || shape[last] != length / 2 + 1 {
        bail!(
            "{op}: last_dim_size {length} needs {} frequencies in dimension {last}, which has {} \
             (torch's CPU kernel asserts the same)",
            length.max(0) / 2 + 1,
            shape[last]
        );
    }
    let mut out_shape = shape.clone();
    out_shape[last] = length;
    if support::numel(&shape) == 0 {
        return empty(b, real, &out_shape);
    }
    let n = points(dims.iter().map(|&d| out_shape[d]));
    // IFFT of the outer chunks, then IRFFT of the innermost (ending with the halved dimension),
    // the order torch's kernel takes.
    let split = dims.len().saturating_sub(MAX_FFT_DIMS);
    let (outer, inner) = dims.split_at(split);
    let z = complex_transform(b, x, outer, FftType::Ifft)?;
    let lengths: Vec<i64> = inner.iter().map(|&d| out_shape[d]).collect();
    let signal = transform(b, z, inner, FftType::Irfft, &lengths)?;
    scale(b, signal, norm.after_inverse(n))
}

/// Complex to complex, forward or backward, of the dimensions `dims` (from [`fft_dims`]) of a
/// complex64 or complex128 `x`.
pub(super) fn complex_to_complex(
    b: &mut FunctionBuilder,
    x: Value,
    dims: &[usize],
    norm: Norm,
    forward: bool,
    op: &str,
) -> OpResult<Value> {
    let shape = support::shape(b, x)?;
    element_of(
        b,
        x,
        &[ElementType::ComplexF32, ElementType::ComplexF64],
        op,
        "complex64 or complex128",
    )?;
    if dims.is_empty() || support::numel(&shape) == 0 {
        return Ok(x);
    }
    let n = points(dims.iter().map(|&d| shape[d]));
    let (fft_type, factor) = if forward {
        (FftType::Fft, norm.factor(n))
    } else {
        (FftType::Ifft, norm.after_inverse(n))
    };
    let y = complex_transform(b, x, dims, fft_type)?;
    scale(b, y, factor)
}

fn r2c(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    const OP: &str = "_fft_r2c";
    let (x, dims) = input_and_dims(cx.b, args, OP)?;
    let (norm, onesided) = (Norm::of(args)?, args.bool("onesided")?);
    one(real_to_complex(cx.b, x, &dims, norm, onesided, OP)?)
}

fn c2r(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    const OP: &str = "_fft_c2r";
    let (x, dims) = input_and_dims(cx.b, args, OP)?;
    let (norm, length) = (Norm::of(args)?, args.int("last_dim_size")?);
    one(complex_to_real(cx.b, x, &dims, norm, length, OP)?)
}

fn c2c(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    const OP: &str = "_fft_c2c";
    let (x, dims) = input_and_dims(cx.b, args, OP)?;
    let (norm, forward) = (Norm::of(args)?, args.bool("forward")?);
    one(complex_to_complex(cx.b, x, &dims, norm, forward, OP)?)
}

/// The complex conjugate of `x`; a real `x` is its own.
pub(super) fn conj(b: &mut FunctionBuilder, x: Value) -> OpResult<Value> {
    if !support::element(b, x)?.is_complex() {
        return Ok(x);
    }
    let re = b.real(x)?;
    let im = b.imag(x)?;
    let minus_im = b.negate(im)?;
    Ok(b.complex(re, minus_im)?)
}

fn conj_op(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let x = args.tensor("self")?;
    one(conj(cx.b, x)?)
}
