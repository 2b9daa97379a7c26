//! `reduce`, `reduce_window`, `select_and_scatter` and `sort`.

use super::support::*;
use tpuc_ir::{
    BinaryOp, ComparisonDirection, ComparisonType, ElementType, TensorType, WindowAttrs,
};

fn counting(shape: &[u64]) -> Vec<f32> {
    let n: u64 = shape.iter().product();
    (0..n).map(|i| i as f32).collect()
}

/// Distinct values in a scrambled order.
fn scrambled(n: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 7) % n) as f32 - 3.0).collect()
}

/// Reference `reduce_window` over a rank-2 input with padding and strides.
fn window_reference(
    x: &[f32],
    shape: [usize; 2],
    window: [usize; 2],
    stride: [usize; 2],
    padding: [(usize, usize); 2],
    init: f32,
    f: impl Fn(f32, f32) -> f32,
) -> (Vec<u64>, Vec<f32>) {
    let out = |d: usize| (shape[d] + padding[d].0 + padding[d].1 - window[d]) / stride[d] + 1;
    let (oh, ow) = (out(0), out(1));
    let mut result = Vec::new();
    for y in 0..oh {
        for x_ in 0..ow {
            let mut acc = init;
            for wy in 0..window[0] {
                for wx in 0..window[1] {
                    let sy = (y * stride[0] + wy) as i64 - padding[0].0 as i64;
                    let sx = (x_ * stride[1] + wx) as i64 - padding[1].0 as i64;
                    if (0..shape[0] as i64).contains(&sy) && (0..shape[1] as i64).contains(&sx) {
                        acc = f(acc, x[sy as usize * shape[1] + sx as usize]);
                    }
                }
            }
            result.push(acc);
        }
    }
    (vec![oh as u64, ow as u64], result)
}

pub fn cases() -> Vec<Case> {
    let mut cases = reduce_cases();
    cases.extend(window_cases());
    cases.extend(sort_cases());
    cases.extend(map_cases());
    cases.push(promoted_reduce_case());
    cases
}

fn reduce_cases() -> Vec<Case> {
    let x = counting(&[2, 3]);
    vec![
        case(
            "reduce sum over one dimension",
            vec![f32s(&[2, 3], &x), f32s(&[], &[0.0])],
            vec![exact(f32s(&[2], &[3.0, 12.0]))],
            |b, a| Ok(vec![b.reduce_with(BinaryOp::Add, a[0], a[1], &[1])?]),
        ),
        case(
            "reduce sum over every dimension (init value counted once)",
            vec![i32s(&[2, 3], &[1, 2, 3, 4, 5, 6]), i32s(&[], &[100])],
            vec![exact(i32s(&[], &[121]))],
            |b, a| Ok(vec![b.reduce_with(BinaryOp::Add, a[0], a[1], &[0, 1])?]),
        ),
        case(
            "reduce max",
            vec![
                f32s(&[2, 3], &[1.0, -5.0, 3.0, 0.5, 7.0, -1.0]),
                f32s(&[], &[f32::NEG_INFINITY]),
            ],
            vec![exact(f32s(&[3], &[1.0, 7.0, 3.0]))],
            |b, a| Ok(vec![b.reduce_with(BinaryOp::Maximum, a[0], a[1], &[0])?]),
        ),
        case(
            "reduce with two operands (argmax, first index wins ties)",
            vec![
                f32s(&[2, 4], &[1.0, 5.0, 5.0, 2.0, -1.0, -3.0, 0.0, -2.0]),
                f32s(&[], &[f32::NEG_INFINITY]),
                i32s(&[], &[0]),
            ],
            vec![exact(f32s(&[2], &[5.0, 0.0])), exact(i32s(&[2], &[1, 2]))],
            |b, a| {
                let iota = b.iota(TensorType::of(&[2, 4], ElementType::I32), 1)?;
                b.reduce(&[a[0], iota], &[a[1], a[2]], &[1], |b, v| {
                    let greater = b.compare(ComparisonDirection::Gt, v[0], v[2])?;
                    let equal = b.compare(ComparisonDirection::Eq, v[0], v[2])?;
                    let value = b.select(greater, v[0], v[2])?;
                    let lower = b.minimum(v[1], v[3])?;
                    let on_tie = b.select(equal, lower, v[3])?;
                    let index = b.select(greater, v[1], on_tie)?;
                    Ok(vec![value, index])
                })
            },
        ),
    ]
}

fn window_cases() -> Vec<Case> {
    let pool_input = counting(&[4, 4]);
    let (pool_shape, pooled) = window_reference(
        &pool_input,
        [4, 4],
        [2, 2],
        [2, 2],
        [(0, 0), (0, 0)],
        f32::NEG_INFINITY,
        f32::max,
    );
    let sum_input = scrambled(12);
    let (sum_shape, summed) = window_reference(
        &sum_input,
        [3, 4],
        [3, 2],
        [1, 2],
        [(1, 1), (1, 0)],
        0.0,
        |a, b| a + b,
    );

    // select_and_scatter: each source element goes to the maximum of its 2x2 window.
    let operand = scrambled(16);
    let source = [1.0f32, 2.0, 3.0, 4.0];
    let mut scattered = vec![0f32; 16];
    for wy in 0..2 {
        for wx in 0..2 {
            let mut best = (wy * 2) * 4 + wx * 2;
            for (dy, dx) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                let i = (wy * 2 + dy) * 4 + wx * 2 + dx;
                if operand[i] > operand[best] {
                    best = i;
                }
            }
            scattered[best] += source[wy * 2 + wx];
        }
    }

    vec![
        case(
            "reduce_window max pool 2x2 stride 2",
            vec![
                f32s(&[1, 1, 4, 4], &pool_input),
                f32s(&[], &[f32::NEG_INFINITY]),
            ],
            vec![exact(f32s(&[1, 1, pool_shape[0], pool_shape[1]], &pooled))],
            |b, a| {
                let window = WindowAttrs {
                    window_dimensions: vec![1, 1, 2, 2],
                    window_strides: vec![1, 1, 2, 2],
                    ..WindowAttrs::default()
                };
                b.reduce_window(&[a[0]], &[a[1]], window, |b, v| {
                    Ok(vec![b.maximum(v[0], v[1])?])
                })
            },
        ),
        case(
            "reduce_window sum with padding and strides",
            vec![f32s(&[3, 4], &sum_input), f32s(&[], &[0.0])],
            vec![exact(f32s(&sum_shape, &summed))],
            |b, a| {
                let window = WindowAttrs {
                    window_dimensions: vec![3, 2],
                    window_strides: vec![1, 2],
                    padding: vec![(1, 1), (1, 0)],
                    ..WindowAttrs::default()
                };
                b.reduce_window(&[a[0]], &[a[1]], window, |b, v| {
                    Ok(vec![b.add(v[0], v[1])?])
                })
            },
        ),
        case(
            "reduce_window with base and window dilation",
            vec![f32s(&[4], &[1.0, 2.0, 3.0, 4.0]), f32s(&[], &[0.0])],
            // Base dilation 2 gives [1, 0, 2, 0, 3, 0, 4]; a window of 2 dilated by 2 sums
            // positions (i, i + 2): [1+2, 0, 2+3, 0, 3+4].
            vec![exact(f32s(&[5], &[3.0, 0.0, 5.0, 0.0, 7.0]))],
            |b, a| {
                let window = WindowAttrs {
                    window_dimensions: vec![2],
                    base_dilations: vec![2],
                    window_dilations: vec![2],
                    ..WindowAttrs::default()
                };
                b.reduce_window(&[a[0]], &[a[1]], window, |b, v| {
                    Ok(vec![b.add(v[0], v[1])?])
                })
            },
        ),
        case(
            "select_and_scatter (max-pool gradient)",
            vec![
                f32s(&[1, 1, 4, 4], &operand),
                f32s(&[1, 1, 2, 2], &source),
                f32s(&[], &[0.0]),
            ],
            vec![exact(f32s(&[1, 1, 4, 4], &scattered))],
            |b, a| {
                Ok(vec![b.select_and_scatter(
                    a[0],
                    a[1],
                    a[2],
                    &[1, 1, 2, 2],
                    &[1, 1, 2, 2],
                    &[],
                    |b, v| Ok(vec![b.compare(ComparisonDirection::Ge, v[0], v[1])?]),
                    |b, v| Ok(vec![b.add(v[0], v[1])?]),
                )?])
            },
        ),
    ]
}

fn sort_cases() -> Vec<Case> {
    let nan = f32::NAN;
    vec![
        case(
            "sort ascending",
            vec![f32s(&[5], &[3.0, -1.0, 2.0, 0.5, -7.0])],
            vec![exact(f32s(&[5], &[-7.0, -1.0, 0.5, 2.0, 3.0]))],
            |b, a| {
                b.sort(&[a[0]], 0, false, |b, v| {
                    Ok(vec![b.compare(ComparisonDirection::Lt, v[0], v[1])?])
                })
            },
        ),
        case(
            "sort descending along the last dimension",
            vec![i32s(&[2, 3], &[1, 3, 2, -4, 6, 0])],
            vec![exact(i32s(&[2, 3], &[3, 2, 1, 6, 0, -4]))],
            |b, a| {
                b.sort(&[a[0]], 1, false, |b, v| {
                    Ok(vec![b.compare(ComparisonDirection::Gt, v[0], v[1])?])
                })
            },
        ),
        case(
            "sort TOTALORDER (-0 before 0, NaN last)",
            vec![f32s(&[5], &[0.0, -0.0, nan, f32::NEG_INFINITY, 1.0])],
            vec![exact(f32s(&[5], &[f32::NEG_INFINITY, -0.0, 0.0, 1.0, nan]))],
            |b, a| {
                b.sort(&[a[0]], 0, true, |b, v| {
                    Ok(vec![b.compare_with_type(
                        ComparisonDirection::Lt,
                        Some(ComparisonType::TotalOrder),
                        v[0],
                        v[1],
                    )?])
                })
            },
        ),
        case(
            "sort two operands by the first, stable",
            vec![
                i32s(&[6], &[2, 1, 2, 1, 0, 1]),
                f32s(&[6], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]),
            ],
            vec![
                exact(i32s(&[6], &[0, 1, 1, 1, 2, 2])),
                exact(f32s(&[6], &[4.0, 1.0, 3.0, 5.0, 0.0, 2.0])),
            ],
            |b, a| {
                b.sort(&[a[0], a[1]], 0, true, |b, v| {
                    Ok(vec![b.compare(ComparisonDirection::Lt, v[0], v[1])?])
                })
            },
        ),
    ]
}

fn map_cases() -> Vec<Case> {
    vec![
        case(
            "map multiply over i64",
            vec![i64s(&[2, 2], &[0, 1, 2, 3]), i64s(&[2, 2], &[4, 5, 6, 7])],
            vec![exact(i64s(&[2, 2], &[0, 5, 12, 21]))],
            |b, a| {
                Ok(vec![b.map(&[a[0], a[1]], |b, v| {
                    Ok(vec![b.multiply(v[0], v[1])?])
                })?])
            },
        ),
        case(
            "map of f32 and i32 inputs to f32",
            vec![f32s(&[3], &[1.5, -2.0, 0.5]), i32s(&[3], &[2, 3, -4])],
            vec![exact(f32s(&[3], &[3.0, -6.0, -2.0]))],
            |b, a| {
                Ok(vec![b.map(&[a[0], a[1]], |b, v| {
                    let y = b.convert(v[1], ElementType::F32)?;
                    Ok(vec![b.multiply(v[0], y)?])
                })?])
            },
        ),
    ]
}

/// A reduction whose body computes in f64 over f32 inputs (the spec's promotable types): the
/// sum of 2^24 and 1 twice is exact in f64 (2^24 + 2), not in f32 (2^24).
fn promoted_reduce_case() -> Case {
    let text = "func.func public @main(%x: tensor<3xf32>, %init: tensor<f32>) -> tensor<f64> {
  %0 = \"stablehlo.reduce\"(%x, %init) ({
  ^bb0(%a: tensor<f64>, %b: tensor<f64>):
    %1 = stablehlo.add %a, %b : tensor<f64>
    stablehlo.return %1 : tensor<f64>
  }) {dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<f64>
  return %0 : tensor<f64>
}
";
    Case::from_module(
        "reduce with an f64 body over f32 inputs (promotable types)",
        Ok(tpuc_ir::parse::parse_module(text).expect("the case's text parses")),
        vec![f32s(&[3], &[16_777_216.0, 1.0, 1.0]), f32s(&[], &[0.0])],
        vec![exact(f64s(&[], &[16_777_218.0]))],
    )
}
