//! Comparing computed outputs with expected ones.

use tpuc_npy::Array;

/// `|got - want| <= atol + rtol * |want|`, elementwise, for floating and complex values
/// (complex: each part). Integer and bool values must match exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    pub rtol: f64,
    pub atol: f64,
}

impl Default for Tolerance {
    /// The float32 tolerance of the fixtures: XLA and PyTorch kernels sum in different orders.
    fn default() -> Self {
        Tolerance {
            rtol: 1e-4,
            atol: 1e-5,
        }
    }
}

/// How far an output is from its expected value.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Largest `|got - want|` (0 for NaN against NaN and for equal infinities).
    pub max_abs: f64,
    /// Largest `|got - want| / |want|` over the elements where `want` is not 0.
    pub max_rel: f64,
    /// Elements outside the tolerance.
    pub mismatched: usize,
    /// Elements compared (complex values count their two parts).
    pub total: usize,
    /// Why the arrays could not be compared at all (dtype or shape differ).
    pub incompatible: Option<String>,
    /// NaNs and infinities of `got` where `want` is finite: the first one's row-major index
    /// and how many.
    pub unexpected_non_finite: Option<(usize, usize)>,
}

impl Comparison {
    pub fn passed(&self) -> bool {
        self.incompatible.is_none() && self.mismatched == 0
    }
}

/// Compares `got` with `want`; NaN where `want` has NaN counts as equal.
pub fn compare(got: &Array, want: &Array, tolerance: Tolerance) -> Comparison {
    let mut comparison = Comparison {
        max_abs: 0.0,
        max_rel: 0.0,
        mismatched: 0,
        total: 0,
        incompatible: None,
        unexpected_non_finite: None,
    };
    if got.dtype() != want.dtype() || got.shape() != want.shape() {
        comparison.incompatible = Some(format!(
            "got {}{:?}, expected {}{:?}",
            got.dtype(),
            got.shape(),
            want.dtype(),
            want.shape()
        ));
        return comparison;
    }
    let exact = !(got.dtype().is_float() || got.dtype().is_complex());
    let width = if got.dtype().is_complex() {
        got.dtype().itemsize() / 2
    } else {
        got.dtype().itemsize()
    };
    let bytes = got
        .data()
        .chunks_exact(width)
        .zip(want.data().chunks_exact(width));
    let parts = if got.dtype().is_complex() { 2 } else { 1 };
    for (at, ((g, w), (g_bytes, w_bytes))) in got
        .to_f64()
        .into_iter()
        .zip(want.to_f64())
        .zip(bytes)
        .enumerate()
    {
        comparison.total += 1;
        if !exact && !g.is_finite() && w.is_finite() {
            let (first, count) = comparison.unexpected_non_finite.unwrap_or((at / parts, 0));
            comparison.unexpected_non_finite = Some((first, count + 1));
        }
        let same = if exact {
            g_bytes == w_bytes
        } else {
            g == w || (g.is_nan() && w.is_nan())
        };
        if same {
            continue;
        }
        let abs = (g - w).abs();
        let abs = if abs.is_nan() { f64::INFINITY } else { abs };
        comparison.max_abs = comparison.max_abs.max(abs);
        if w != 0.0 {
            comparison.max_rel = comparison.max_rel.max(abs / w.abs());
        }
        if exact || abs > tolerance.atol + tolerance.rtol * w.abs() {
            comparison.mismatched += 1;
        }
    }
    comparison
}

/// The NaNs of a floating-point array: the first one's row-major index and how many.
pub fn nans(array: &Array) -> Option<(usize, usize)> {
    if !(array.dtype().is_float() || array.dtype().is_complex()) {
        return None;
    }
    let parts = if array.dtype().is_complex() { 2 } else { 1 };
    let mut found = None;
    for (at, value) in array.to_f64().into_iter().enumerate() {
        if value.is_nan() {
            let (first, count) = found.unwrap_or((at / parts, 0));
            found = Some((first, count + 1));
        }
    }
    found
}

/// The multi-index of row-major position `flat` in `shape`.
pub fn position(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for (slot, &size) in index.iter_mut().zip(shape).rev() {
        if size > 0 {
            *slot = flat % size;
            flat /= size;
        }
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpuc_npy::Dtype;

    fn f32s(values: &[f32]) -> Array {
        let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        Array::new(Dtype::F32, vec![values.len()], bytes).unwrap()
    }

    #[test]
    fn floats_within_tolerance_pass() {
        let tolerance = Tolerance {
            rtol: 1e-3,
            atol: 1e-6,
        };
        let want = f32s(&[1.0, -2.0, 0.0, f32::NAN, f32::INFINITY]);
        let got = f32s(&[1.0005, -2.0, 5e-7, f32::NAN, f32::INFINITY]);
        let c = compare(&got, &want, tolerance);
        assert!(c.passed(), "{c:?}");
        assert_eq!(c.unexpected_non_finite, None);
        assert_eq!(c.total, 5);
        assert!((c.max_abs - 0.0005).abs() < 1e-6, "{c:?}");
        assert!((c.max_rel - 0.0005).abs() < 1e-6, "{c:?}");
    }

    #[test]
    fn outliers_nans_and_shapes_fail() {
        let tolerance = Tolerance::default();
        let want = f32s(&[1.0, 2.0, 3.0]);
        let c = compare(&f32s(&[1.0, 2.1, f32::NAN]), &want, tolerance);
        assert_eq!(c.mismatched, 2);
        assert_eq!(c.unexpected_non_finite, Some((2, 1)));
        assert_eq!(c.max_abs, f64::INFINITY);
        assert!(!c.passed());
        let c = compare(&f32s(&[1.0, 2.0]), &want, tolerance);
        assert!(c.incompatible.unwrap().contains("[2]"));
    }

    #[test]
    fn nans_are_counted_and_placed() {
        assert_eq!(
            nans(&f32s(&[1.0, f32::NAN, f32::INFINITY, f32::NAN])),
            Some((1, 2))
        );
        assert_eq!(nans(&f32s(&[1.0, f32::INFINITY])), None);
        assert_eq!(position(7, &[2, 2, 3]), vec![1, 0, 1]);
    }

    #[test]
    fn integers_must_match_exactly() {
        let ints = |values: &[i64]| {
            let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            Array::new(Dtype::I64, vec![values.len()], bytes).unwrap()
        };
        let loose = Tolerance {
            rtol: 1.0,
            atol: 10.0,
        };
        let want = ints(&[i64::MAX, 4]);
        assert!(compare(&want, &want, loose).passed());
        let c = compare(&ints(&[i64::MAX - 1, 5]), &want, loose);
        assert_eq!(c.mismatched, 2, "{c:?}");
    }
}
