//! An integer or boolean tensor held in memory, and the ops that only move its elements.

use tpuc_ir::{DenseElements, ElementType, ElementValue, TensorType};

/// Elements in row-major order; booleans are 0 and 1, unsigned values at most 32 bits wide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Array {
    pub shape: Vec<usize>,
    pub data: Vec<i64>,
}

/// Whether the evaluator computes with `element`: `i64` holds every value exactly.
pub(super) fn computes_with(element: ElementType) -> bool {
    element.is_bool()
        || element.is_signed_integer()
        || (element.is_unsigned_integer() && element.bit_width() <= 32)
}

/// `value` wrapped to `element`'s width, as the hardware keeps it.
pub(super) fn wrap(value: i128, element: ElementType) -> i64 {
    let bits = element.bit_width();
    if element.is_bool() {
        return i64::from(value != 0);
    }
    let shift = 128 - bits;
    if element.is_unsigned_integer() {
        ((value << shift) as u128 >> shift) as i64
    } else {
        ((value << shift) >> shift) as i64
    }
}

pub(super) fn strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1];
    }
    strides
}

/// Visits every index of `shape` in row-major order.
pub(super) fn for_each_index(shape: &[usize], mut visit: impl FnMut(&[usize])) {
    if shape.contains(&0) {
        return;
    }
    let mut index = vec![0; shape.len()];
    loop {
        visit(&index);
        let mut d = shape.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
}

impl Array {
    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn at(&self, index: &[usize]) -> i64 {
        let offset: usize = index
            .iter()
            .zip(strides(&self.shape))
            .map(|(i, s)| i * s)
            .sum();
        self.data[offset]
    }

    /// The one value every element holds.
    pub fn splat(&self) -> Option<i64> {
        let first = *self.data.first()?;
        self.data.iter().all(|&v| v == first).then_some(first)
    }

    /// An array of `shape` whose element at each index is `element(index)`.
    pub fn build(
        shape: Vec<usize>,
        mut element: impl FnMut(&[usize]) -> Option<i64>,
    ) -> Option<Self> {
        let mut data = Vec::with_capacity(shape.iter().product());
        let mut failed = false;
        for_each_index(&shape, |index| match element(index) {
            Some(v) if !failed => data.push(v),
            _ => failed = true,
        });
        (!failed).then_some(Self { shape, data })
    }

    pub fn constant(data: &DenseElements, ty: &TensorType, shape: Vec<usize>) -> Option<Self> {
        let count = shape.iter().product();
        let value = |index: usize| match data.value(ty.element, index) {
            ElementValue::Bool(b) => Some(i64::from(b)),
            ElementValue::Signed(v) => Some(v),
            ElementValue::Unsigned(v) => i64::try_from(v).ok(),
            _ => None,
        };
        let data = if data.is_splat() {
            vec![value(0)?; count]
        } else {
            (0..count).map(value).collect::<Option<_>>()?
        };
        Some(Self { shape, data })
    }

    pub fn iota(shape: Vec<usize>, dimension: usize) -> Option<Self> {
        Self::build(shape, |index| Some(index[dimension] as i64))
    }

    pub fn broadcast(&self, dims: &[i64], shape: Vec<usize>) -> Option<Self> {
        Self::build(shape, |out| {
            let index: Vec<usize> = dims
                .iter()
                .enumerate()
                .map(|(i, &d)| {
                    if self.shape[i] == 1 {
                        0
                    } else {
                        out[d as usize]
                    }
                })
                .collect();
            Some(self.at(&index))
        })
    }

    pub fn transpose(&self, permutation: &[i64], shape: Vec<usize>) -> Option<Self> {
        Self::build(shape, |out| {
            let mut index = vec![0; out.len()];
            for (i, &p) in permutation.iter().enumerate() {
                index[p as usize] = out[i];
            }
            Some(self.at(&index))
        })
    }

    pub fn slice(&self, start: &[i64], strides: &[i64], shape: Vec<usize>) -> Option<Self> {
        Self::build(shape, |out| {
            let index: Vec<usize> = (0..out.len())
                .map(|d| start[d] as usize + out[d] * strides[d] as usize)
                .collect();
            Some(self.at(&index))
        })
    }

    pub fn reverse(&self, dims: &[i64]) -> Option<Self> {
        Self::build(self.shape.clone(), |out| {
            let mut index = out.to_vec();
            for &d in dims {
                index[d as usize] = self.shape[d as usize] - 1 - out[d as usize];
            }
            Some(self.at(&index))
        })
    }

    pub fn concatenate(parts: &[&Array], dimension: usize, shape: Vec<usize>) -> Option<Self> {
        Self::build(shape, |out| {
            let mut index = out.to_vec();
            for part in parts {
                if index[dimension] < part.shape[dimension] {
                    return Some(part.at(&index));
                }
                index[dimension] -= part.shape[dimension];
            }
            None
        })
    }
}
