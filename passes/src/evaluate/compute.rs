//! The ops that compute elements: elementwise arithmetic, comparisons, reductions and gathers,
//! with StableHLO's integer semantics (results wrap to the element type's width).

use tpuc_ir::{BinaryOp, ComparisonDirection, ElementType, GatherDims, UnaryOp, WindowAttrs};

use super::array::{Array, for_each_index, wrap};

pub(super) fn binary(op: BinaryOp, x: i64, y: i64, element: ElementType) -> Option<i64> {
    let (a, b) = (i128::from(x), i128::from(y));
    let value = match op {
        BinaryOp::Add => a + b,
        BinaryOp::Subtract => a - b,
        BinaryOp::Multiply => a * b,
        BinaryOp::Maximum => a.max(b),
        BinaryOp::Minimum => a.min(b),
        BinaryOp::And => a & b,
        BinaryOp::Or => a | b,
        BinaryOp::Xor => a ^ b,
        BinaryOp::Divide | BinaryOp::Remainder => {
            let exact = if op == BinaryOp::Divide {
                a.checked_div(b)?
            } else {
                a.checked_rem(b)?
            };
            // `MIN / -1` overflows: what the device gives is implementation-defined.
            let wrapped = wrap(exact, element);
            return (i128::from(wrapped) == exact).then_some(wrapped);
        }
        _ => return None,
    };
    Some(wrap(value, element))
}

pub(super) fn unary(op: UnaryOp, x: i64, element: ElementType) -> Option<i64> {
    let x = i128::from(x);
    let value = match op {
        UnaryOp::Not if element.is_bool() => i128::from(x == 0),
        UnaryOp::Not => !x,
        UnaryOp::Negate => -x,
        UnaryOp::Abs => x.abs(),
        UnaryOp::Sign => x.signum(),
        _ => return None,
    };
    Some(wrap(value, element))
}

pub(super) fn compare(direction: ComparisonDirection, x: i64, y: i64) -> i64 {
    i64::from(match direction {
        ComparisonDirection::Eq => x == y,
        ComparisonDirection::Ne => x != y,
        ComparisonDirection::Lt => x < y,
        ComparisonDirection::Le => x <= y,
        ComparisonDirection::Gt => x > y,
        ComparisonDirection::Ge => x >= y,
    })
}

/// `reduce` of one operand over `dimensions`, combining with `combine` from `init`.
pub(super) fn reduce(
    input: &Array,
    init: i64,
    dimensions: &[i64],
    combine: impl Fn(i64, i64) -> Option<i64>,
    shape: Vec<usize>,
) -> Option<Array> {
    let kept: Vec<usize> = (0..input.shape.len())
        .filter(|d| !dimensions.contains(&(*d as i64)))
        .collect();
    let mut out = Array::build(shape, |_| Some(init))?;
    let out_strides = super::array::strides(&out.shape);
    let mut failed = false;
    let mut offset = 0;
    for_each_index(&input.shape, |index| {
        let at: usize = kept
            .iter()
            .zip(&out_strides)
            .map(|(&d, s)| index[d] * s)
            .sum();
        match combine(out.data[at], input.data[offset]) {
            Some(v) => out.data[at] = v,
            None => failed = true,
        }
        offset += 1;
    });
    (!failed).then_some(out)
}

/// `reduce_window` of one operand: padding and base dilation hold `init`, as the spec pads.
pub(super) fn reduce_window(
    input: &Array,
    init: i64,
    window: &WindowAttrs,
    combine: impl Fn(i64, i64) -> Option<i64>,
    shape: Vec<usize>,
) -> Option<Array> {
    let rank = input.shape.len();
    let or_one = |v: &[i64], d: usize| v.get(d).copied().unwrap_or(1);
    let window_shape: Vec<usize> = window
        .window_dimensions
        .iter()
        .map(|&w| w as usize)
        .collect();
    Array::build(shape, |out| {
        let mut acc = init;
        let mut failed = false;
        for_each_index(&window_shape, |w| {
            let mut index = Vec::with_capacity(rank);
            for d in 0..rank {
                let low = window.padding.get(d).map_or(0, |p| p.0);
                let position = out[d] as i64 * or_one(&window.window_strides, d)
                    + w[d] as i64 * or_one(&window.window_dilations, d)
                    - low;
                let base = or_one(&window.base_dilations, d);
                if position >= 0 && position % base == 0 && position / base < input.shape[d] as i64
                {
                    index.push((position / base) as usize);
                }
            }
            let element = if index.len() == rank {
                input.at(&index)
            } else {
                init
            };
            match combine(acc, element) {
                Some(v) => acc = v,
                None => failed = true,
            }
        });
        (!failed).then_some(acc)
    })
}

/// `gather` without batching dimensions, start indices clamped as the spec says.
pub(super) fn gather(
    operand: &Array,
    indices: &Array,
    dims: &GatherDims,
    slice_sizes: &[i64],
    shape: Vec<usize>,
) -> Option<Array> {
    if !dims.operand_batching_dims.is_empty() {
        return None;
    }
    let rank = shape.len();
    let batch_dims: Vec<usize> = (0..rank)
        .filter(|d| !dims.offset_dims.contains(&(*d as i64)))
        .collect();
    let offset_operand_dims: Vec<usize> = (0..operand.shape.len())
        .filter(|d| !dims.collapsed_slice_dims.contains(&(*d as i64)))
        .collect();
    let vector_dim = dims.index_vector_dim as usize;
    Array::build(shape, |out| {
        let batch: Vec<usize> = batch_dims.iter().map(|&d| out[d]).collect();
        let mut full = vec![0usize; operand.shape.len()];
        for (k, &d) in dims.start_index_map.iter().enumerate() {
            let mut at = batch.clone();
            if vector_dim < indices.shape.len() {
                at.insert(vector_dim, k);
            }
            let d = d as usize;
            let limit = operand.shape[d] as i64 - slice_sizes[d];
            full[d] = indices.at(&at).clamp(0, limit.max(0)) as usize;
        }
        for (i, &d) in dims.offset_dims.iter().enumerate() {
            full[offset_operand_dims[i]] += out[d as usize];
        }
        Some(operand.at(&full))
    })
}

#[cfg(test)]
mod tests {
    use tpuc_ir::{BinaryOp as B, ElementType as E, UnaryOp as U, WindowAttrs};

    use super::*;

    #[test]
    fn integer_arithmetic_wraps_to_the_element_width() {
        let cases = [
            (B::Add, 127, 1, E::I8, Some(-128)),
            (B::Add, 255, 1, E::UI8, Some(0)),
            (B::Subtract, 0, 1, E::UI32, Some(i64::from(u32::MAX))),
            (B::Multiply, 1 << 40, 1 << 30, E::I64, Some(0)),
            (B::Divide, -7, 2, E::I32, Some(-3)),
            (B::Remainder, -7, 2, E::I32, Some(-1)),
            (B::Divide, 1, 0, E::I32, None),
            (B::Divide, -128, -1, E::I8, None),
            (B::Maximum, -3, 2, E::I16, Some(2)),
            (B::Power, 2, 3, E::I32, None),
        ];
        for (op, x, y, element, expected) in cases {
            assert_eq!(
                binary(op, x, y, element),
                expected,
                "{op:?} {x} {y} {element:?}"
            );
        }
        assert_eq!(unary(U::Not, 1, E::I1), Some(0));
        assert_eq!(unary(U::Not, 0, E::I8), Some(-1));
        assert_eq!(unary(U::Negate, -128, E::I8), Some(-128));
    }

    #[test]
    fn reduce_window_pads_with_the_initial_value() {
        // A running sum from 10 over [1, 2, 3]: padding elements are 10 too, as the spec pads.
        let input = Array {
            shape: vec![3],
            data: vec![1, 2, 3],
        };
        let window = WindowAttrs {
            window_dimensions: vec![2],
            window_strides: vec![1],
            base_dilations: vec![],
            window_dilations: vec![],
            padding: vec![(1, 0)],
        };
        let add = |a, b| binary(B::Add, a, b, E::I64);
        let out = reduce_window(&input, 10, &window, add, vec![3]).unwrap();
        assert_eq!(out.data, [21, 13, 15]);
    }

    #[test]
    fn gather_clamps_start_indices_into_the_operand() {
        let operand = Array {
            shape: vec![5],
            data: vec![10, 11, 12, 13, 14],
        };
        let indices = Array {
            shape: vec![3, 1],
            data: vec![-2, 1, 4],
        };
        let dims = GatherDims {
            offset_dims: vec![1],
            start_index_map: vec![0],
            index_vector_dim: 1,
            ..GatherDims::default()
        };
        let out = gather(&operand, &indices, &dims, &[2], vec![3, 2]).unwrap();
        assert_eq!(out.data, [10, 11, 11, 12, 13, 14]);
    }
}
