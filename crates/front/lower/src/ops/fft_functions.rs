//! The `torch.fft` functions (`fft_rfft`, `fft_fft2`, `fft_irfftn`, ...), which training-dialect
//! programs keep and `run_decompositions()` turns into `_fft_r2c`, `_fft_c2r` and `_fft_c2c`;
//! lowered the way torch's `SpectralOps.cpp` composes them from those.
//!
//! Each function transforms a signal of given sizes along given dimensions: the 1-D functions
//! take `n` and one `dim`, the others `s` and `dim` (either may be left out: `dim` defaults to
//! the last `len(s)` dimensions, or all; `s` to the input's sizes, `-1` in `s` to one of them).
//! The input is zero-padded or trimmed to those sizes first, along each dimension from index 0.
//! `norm` names which direction divides: "backward" (the default) divides the backward
//! transform by n, "forward" the forward one, "ortho" both by the square root of n, n being the
//! number of points of the signal transformed (the product of its sizes).
//!
//! Integer and bool inputs become float32; a real input to a complex transform becomes complex;
//! half types are refused, as by torch's CPU kernels. The Hermitian transforms are the real
//! ones of the conjugate: `hfft*(x)` is the backward complex-to-real transform of `conj(x)`
//! with forward normalization, `ihfft*(x)` the conjugate of the forward real-to-complex one
//! with backward normalization. `fftshift` and `ifftshift` roll the zero frequency to the
//! middle and back.

use tpuc_ir::{ElementType, FunctionBuilder, Value};

use super::fft::{Norm, complex_to_complex, complex_to_real, conj, fft_dims, real_to_complex};
use super::one;
use super::shape::{pad_constant, slice_dim};
use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::{OpResult, bail};
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support;

/// An entry: the function of `signature`, a `kind` transform forward or backward.
macro_rules! function {
    ($signature:literal, $kind:ident, $forward:literal) => {
        aten($signature, |cx, args| {
            lower(cx, args, $signature, Kind::$kind, $forward)
        })
    };
}

pub(super) const OPS: &[OpDef] = &[
    function!(
        "fft_fft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor",
        Complex,
        true
    ),
    function!(
        "fft_ifft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor",
        Complex,
        false
    ),
    function!(
        "fft_rfft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor",
        Real,
        true
    ),
    function!(
        "fft_irfft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor",
        Hermitian,
        false
    ),
    function!(
        "fft_hfft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor",
        Hermitian,
        true
    ),
    function!(
        "fft_ihfft(Tensor self, SymInt? n=None, int dim=-1, str? norm=None) -> Tensor",
        Real,
        false
    ),
    function!(
        "fft_fft2(Tensor self, SymInt[1]? s=None, int[1] dim=[-2, -1], str? norm=None) -> Tensor",
        Complex,
        true
    ),
    function!(
        "fft_ifft2(Tensor self, SymInt[1]? s=None, int[1] dim=[-2, -1], str? norm=None) -> Tensor",
        Complex,
        false
    ),
    function!(
        "fft_rfft2(Tensor self, SymInt[1]? s=None, int[1] dim=[-2, -1], str? norm=None) -> Tensor",
        Real,
        true
    ),
    function!(
        "fft_irfft2(Tensor self, SymInt[1]? s=None, int[1] dim=[-2, -1], str? norm=None) -> Tensor",
        Hermitian,
        false
    ),
    function!(
        "fft_hfft2(Tensor self, SymInt[1]? s=None, int[1] dim=[-2, -1], str? norm=None) -> Tensor",
        Hermitian,
        true
    ),
    function!(
        "fft_ihfft2(Tensor self, SymInt[1]? s=None, int[1] dim=[-2, -1], str? norm=None) -> Tensor",
        Real,
        false
    ),
    function!(
        "fft_fftn(Tensor self, SymInt[1]? s=None, int[1]? dim=None, str? norm=None) -> Tensor",
        Complex,
        true
    ),
    function!(
        "fft_ifftn(Tensor self, SymInt[1]? s=None, int[1]? dim=None, str? norm=None) -> Tensor",
        Complex,
        false
    ),
    function!(
        "fft_rfftn(Tensor self, SymInt[1]? s=None, int[1]? dim=None, str? norm=None) -> Tensor",
        Real,
        true
    ),
    function!(
        "fft_irfftn(Tensor self, SymInt[1]? s=None, int[1]? dim=None, str? norm=None) -> Tensor",
        Hermitian,
        false
    ),
    function!(
        "fft_hfftn(Tensor self, SymInt[1]? s=None, int[1]? dim=None, str? norm=None) -> Tensor",
        Hermitian,
        true
    ),
    function!(
        "fft_ihfftn(Tensor self, SymInt[1]? s=None, int[1]? dim=None, str? norm=None) -> Tensor",
        Real,
        false
    ),
    aten(
        "fft_fftshift(Tensor self, int[1]? dim=None) -> Tensor",
        |cx, args| shift(cx, args, false),
    ),
    aten(
        "fft_ifftshift(Tensor self, int[1]? dim=None) -> Tensor",
        |cx, args| shift(cx, args, true),
    ),
];

/// What a function transforms from and to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `fft*` (forward) and `ifft*` (backward): complex to complex.
    Complex,
    /// `rfft*` (forward) and `ihfft*` (backward): real to the one-sided spectrum.
    Real,
    /// `irfft*` (backward) and `hfft*` (forward): the one-sided spectrum to real.
    Hermitian,
}

/// The signal a function transforms: its dimensions and its size along each.
struct Signal {
    dims: Vec<usize>,
    sizes: Vec<i64>,
    /// The output size of the last dimension for [`Kind::Hermitian`]: the one given, else
    /// `2 * (m - 1)` for an input of `m` frequencies there.
    real_last: i64,
}

/// A `kind` transform, forward or backward, of the signal the arguments describe.
fn lower(
    cx: &mut Cx<'_>,
    args: &Args<'_>,
    signature: &str,
    kind: Kind,
    forward: bool,
) -> OpResult<Vec<Val>> {
    let op = signature.split('(').next().unwrap_or(signature);
    let b = &mut *cx.b;
    let norm = Norm::named(args.opt_str("norm")?, forward)?;
    let x = promote(b, args.tensor("self")?, kind, op)?;
    let mut signal = signal(b, args, x, op)?;
    let y = match kind {
        Kind::Complex => {
            let x = resize(b, x, &signal)?;
            complex_to_complex(b, x, &signal.dims, norm, forward, op)?
        }
        Kind::Real => {
            let x = resize(b, x, &signal)?;
            let y = real_to_complex(b, x, &signal.dims, norm, true, op)?;
            if forward { y } else { conj(b, y)? }
        }
        Kind::Hermitian => {
            if signal.dims.is_empty() {
                bail!("{op} must transform at least one dimension");
            }
            let length = signal.real_last;
            if length < 1 {
                bail!("{op}: invalid number of data points ({length}) specified");
            }
            if let Some(last) = signal.sizes.last_mut() {
                *last = length / 2 + 1;
            }
            let x = resize(b, x, &signal)?;
            let x = if forward { conj(b, x)? } else { x };
            complex_to_real(b, x, &signal.dims, norm, length, op)?
        }
    };
    one(y)
}

/// `x` in a type the transform takes: integers and bools become float32, and real inputs of
/// the complex and Hermitian transforms complex; the real transforms refuse complex inputs.
fn promote(b: &mut FunctionBuilder, x: Value, kind: Kind, op: &str) -> OpResult<Value> {
    let element = support::element(b, x)?;
    let real = match element {
        ElementType::ComplexF32 | ElementType::ComplexF64 if kind == Kind::Real => {
            bail!("{op} expects a real input tensor, got {element}")
        }
        ElementType::ComplexF32 | ElementType::ComplexF64 => return Ok(x),
        ElementType::F32 | ElementType::F64 => x,
        e if e.is_float() => {
            bail!(
                "{op} takes float32 or float64, got {element} (torch's CPU FFT has no half types)"
            )
        }
        _ => b.convert(x, ElementType::F32)?,
    };
    if kind == Kind::Real {
        return Ok(real);
    }
    let complex = support::element(b, real)?
        .complex_of()
        .expect("f32 and f64 have complex types");
    Ok(b.convert(real, complex)?)
}

/// The signal from `n` and `dim` (the 1-D functions, whose names end in `fft`) or `s` and
/// `dim`, as torch's `canonicalize_fft_shape_and_dim_args` works it out.
fn signal(b: &FunctionBuilder, args: &Args<'_>, x: Value, op: &str) -> OpResult<Signal> {
    let (s, dim) = if op.ends_with("fft") {
        let n = args.opt_int("n")?;
        if let Some(n) = n.filter(|&n| n < 1) {
            bail!("{op}: invalid number of data points ({n}) specified");
        }
        (n.map(|n| vec![n]), Some(vec![args.int("dim")?]))
    } else {
        (args.opt_ints("s")?, args.opt_ints("dim")?)
    };
    let rank = support::rank(b, x)?;
    let dim = match (&s, dim) {
        (_, Some(dim)) => dim,
        (Some(s), None) => (rank as i64 - s.len() as i64..rank as i64).collect(),
        (None, None) => (0..rank as i64).collect(),
    };
    if let Some(s) = &s {
        if s.len() != dim.len() {
            bail!("{op}: s {s:?} and dim {dim:?} must have the same length");
        }
        if s.len() > rank {
            bail!("{op}: s {s:?} has more values than the input has dimensions ({rank})");
        }
    }
    let (shape, dims) = fft_dims(b, x, &dim, op)?;
    let given = |i: usize| s.as_ref().map(|s| s[i]).filter(|&n| n != -1);
    let sizes: Vec<i64> = dims
        .iter()
        .enumerate()
        .map(|(i, &d)| given(i).unwrap_or(shape[d]))
        .collect();
    if let Some(n) = sizes.iter().find(|&&n| n < 1) {
        bail!("{op}: invalid number of data points ({n}) specified");
    }
    let real_last = match dims.last() {
        Some(&d) => given(dims.len() - 1).unwrap_or(2 * (shape[d] - 1)),
        None => 0,
    };
    Ok(Signal {
        dims,
        sizes,
        real_last,
    })
}

/// `x` zero-padded or trimmed (from index 0) to the signal's sizes along its dimensions.
fn resize(b: &mut FunctionBuilder, x: Value, signal: &Signal) -> OpResult<Value> {
    let shape = support::shape(b, x)?;
    // (before, after) pairs from the last dimension back, as `constant_pad_nd` takes them.
    let mut pad = vec![0; 2 * shape.len()];
    for (&d, &size) in signal.dims.iter().zip(&signal.sizes) {
        pad[2 * (shape.len() - 1 - d) + 1] = size - shape[d];
    }
    pad_constant(b, x, &pad, Scalar::Int(0))
}

/// `fftshift`: each of `dim` (default: every dimension) rolled forward by half its size
/// (rounded down), which moves the zero frequency to the middle; `ifftshift` (`inverse`) rolls
/// by the other half, back.
fn shift(cx: &mut Cx<'_>, args: &Args<'_>, inverse: bool) -> OpResult<Vec<Val>> {
    let b = &mut *cx.b;
    let mut x = args.tensor("self")?;
    let shape = support::shape(b, x)?;
    if shape.is_empty() {
        return one(x);
    }
    let dims = match args.opt_ints("dim")? {
        Some(dim) => support::norm_dims(&dim, shape.len())?,
        None => (0..shape.len()).collect(),
    };
    for d in dims {
        let size = shape[d];
        if size < 0 {
            bail!("cannot shift dimension {d} of {shape:?}, which is dynamic");
        }
        let by = if inverse { (size + 1) / 2 } else { size / 2 };
        if by == 0 {
            continue;
        }
        // The last `by` elements, then the others: a window of `x` repeated twice.
        let twice = b.concatenate(&[x, x], d as i64)?;
        x = slice_dim(b, twice, d, size - by, 2 * size - by, 1)?;
    }
    one(x)
}
