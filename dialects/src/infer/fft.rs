//! `fft`: the element types and shapes each `fft_type` relates (the spec's C1–C5).

use super::{InferResult, shape_str, tensor};
use crate::attr::FftType;
use crate::types::{Dim, ElementType, TensorType, Type};

/// The size of the complex dimension `RFFT` keeps of a real dimension of `n`: `n / 2 + 1`, or
/// 0 for an empty one.
fn half_spectrum(n: i64) -> i64 {
    if n == 0 { 0 } else { n / 2 + 1 }
}

/// `fft_type` of the last `fft_length.len()` dimensions of the operand.
pub(super) fn fft(
    fft_type: FftType,
    fft_length: &[i64],
    operands: &[Type],
) -> InferResult<Vec<Type>> {
    let operand = tensor(&operands[0], "operand")?;
    let name = fft_type.keyword();
    let count = fft_length.len();
    if !(1..=3).contains(&count) {
        return Err(format!("fft_length must have 1 to 3 entries, got {count}"));
    }
    if count > operand.rank() {
        return Err(format!(
            "fft_length has {count} entries, more than the rank {} of the operand {operand}",
            operand.rank()
        ));
    }
    if fft_length.iter().any(|&n| n < 0) {
        return Err(format!("fft_length {fft_length:?} has a negative size"));
    }
    let element = result_element(fft_type, operand.element)?;
    let lead = operand.rank() - count;
    let transformed = &operand.shape[lead..];
    let last = fft_length[count - 1];
    // The operand's transformed dimensions: `fft_length`, but for IRFFT's last one, which holds
    // the half spectrum. The spec implies FFT's and IFFT's sizes from the operand (C4 names only
    // real tensors), but XLA:CPU aborts the process on a complex transform whose `fft_length`
    // differs from the operand's dimensions, so they must be equal here too.
    let mut expected = fft_length.to_vec();
    if fft_type == FftType::Irfft {
        expected[count - 1] = half_spectrum(last);
    }
    let fits = transformed
        .iter()
        .zip(&expected)
        .all(|(dim, &size)| dim.is_compatible(Dim::Static(size as u64)));
    if !fits {
        let what = if fft_type == FftType::Irfft {
            format!(
                "{fft_length:?} but the last, which must be fft_length[-1] / 2 + 1 = {}",
                expected[count - 1]
            )
        } else {
            format!("{fft_length:?}")
        };
        return Err(format!(
            "{name} needs the operand's last {count} dimension(s) {} to equal fft_length {what}",
            shape_str(transformed)
        ));
    }
    let mut shape = operand.shape.clone();
    let last_dim = operand.rank() - 1;
    match fft_type {
        FftType::Fft | FftType::Ifft => {}
        FftType::Rfft => shape[last_dim] = Dim::Static(half_spectrum(last) as u64),
        FftType::Irfft => shape[last_dim] = Dim::Static(last as u64),
    }
    Ok(vec![Type::Tensor(TensorType::new(shape, element))])
}

/// The result element type: FFT and IFFT keep a complex type, RFFT makes f32 or f64 complex,
/// IRFFT takes the part type of a complex one.
fn result_element(fft_type: FftType, element: ElementType) -> InferResult<ElementType> {
    let name = fft_type.keyword();
    let found = match fft_type {
        FftType::Fft | FftType::Ifft => element.is_complex().then_some(element),
        FftType::Rfft => element.complex_of(),
        FftType::Irfft => element.complex_part(),
    };
    found.ok_or_else(|| match fft_type {
        FftType::Rfft => format!("{name} takes an f32 or f64 operand, got {element}"),
        _ => format!("{name} takes a complex operand, got {element}"),
    })
}
