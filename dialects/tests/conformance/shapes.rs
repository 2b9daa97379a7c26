//! Data movement: broadcast, reshape, transpose, slices, concatenate, pad, reverse, gather and
//! scatter.

use super::support::*;
use tpuc_ir::{GatherDims, ScatterDims};

/// `0, 1, 2, ...` as f32 of `shape`.
fn counting(shape: &[u64]) -> Host {
    let n: u64 = shape.iter().product();
    let values: Vec<f32> = (0..n).map(|i| i as f32).collect();
    f32s(shape, &values)
}

/// Row-major strides of `shape`.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}

fn unravel(mut index: usize, shape: &[usize]) -> Vec<usize> {
    let mut out = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        out[d] = index % shape[d];
        index /= shape[d];
    }
    out
}

/// Reference pad: `(low, high, interior)` per dimension.
fn pad_reference(
    input: &[f32],
    shape: &[usize],
    fill: f32,
    config: &[(i64, i64, i64)],
) -> (Vec<u64>, Vec<f32>) {
    let out_shape: Vec<usize> = shape
        .iter()
        .zip(config)
        .map(|(&n, &(lo, hi, interior))| {
            (lo + hi + n as i64 + (n as i64 - 1).max(0) * interior) as usize
        })
        .collect();
    let out_strides = strides(&out_shape);
    let mut out = vec![fill; out_shape.iter().product()];
    for (i, &value) in input.iter().enumerate() {
        let index = unravel(i, shape);
        let position: Option<Vec<usize>> = index
            .iter()
            .zip(config)
            .zip(&out_shape)
            .map(|((&x, &(lo, _, interior)), &size)| {
                let p = lo + x as i64 * (interior + 1);
                (0..size as i64).contains(&p).then_some(p as usize)
            })
            .collect();
        if let Some(position) = position {
            let flat: usize = position.iter().zip(&out_strides).map(|(p, s)| p * s).sum();
            out[flat] = value;
        }
    }
    (out_shape.iter().map(|&d| d as u64).collect(), out)
}

pub fn cases() -> Vec<Case> {
    let mut cases = vec![
        case(
            "broadcast_in_dim (new leading dimension)",
            vec![f32s(&[3], &[1.0, 2.0, 3.0])],
            vec![exact(f32s(&[2, 3], &[1.0, 2.0, 3.0, 1.0, 2.0, 3.0]))],
            |b, a| Ok(vec![b.broadcast_in_dim(a[0], &[1], [2, 3])?]),
        ),
        case(
            "broadcast_in_dim (size-1 dimension expands)",
            vec![i32s(&[3, 1], &[1, 2, 3])],
            vec![exact(i32s(
                &[2, 3, 2],
                &[1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3],
            ))],
            |b, a| Ok(vec![b.broadcast_in_dim(a[0], &[1, 2], [2, 3, 2])?]),
        ),
        case(
            "reshape keeps row-major order",
            vec![counting(&[2, 3])],
            vec![exact(counting(&[3, 1, 2]))],
            |b, a| Ok(vec![b.reshape(a[0], [3, 1, 2])?]),
        ),
        case(
            "reshape to a scalar",
            vec![i32s(&[1, 1], &[42])],
            vec![exact(i32s(&[], &[42]))],
            |b, a| Ok(vec![b.reshape(a[0], [])?]),
        ),
    ];

    // transpose [2, 3, 4] by [2, 0, 1]: out[k][i][j] = x[i][j][k].
    let mut transposed = Vec::new();
    for k in 0..4 {
        for i in 0..2 {
            for j in 0..3 {
                transposed.push((i * 12 + j * 4 + k) as f32);
            }
        }
    }
    cases.push(case(
        "transpose 3-D",
        vec![counting(&[2, 3, 4])],
        vec![exact(f32s(&[4, 2, 3], &transposed))],
        |b, a| Ok(vec![b.transpose(a[0], &[2, 0, 1])?]),
    ));

    // slice rows 1..4 step 2, columns 1..6 step 2 of a 4x6 matrix.
    let sliced: Vec<f32> = [1, 3]
        .iter()
        .flat_map(|r| [1, 3, 5].map(|c| (r * 6 + c) as f32))
        .collect();
    cases.push(case(
        "slice with strides",
        vec![counting(&[4, 6])],
        vec![exact(f32s(&[2, 3], &sliced))],
        |b, a| Ok(vec![b.slice(a[0], &[1, 1], &[4, 6], &[2, 2])?]),
    ));

    let window = |r: i64, c: i64| -> Vec<f32> {
        (0..2)
            .flat_map(|i| (0..2).map(move |j| ((r + i) * 4 + c + j) as f32))
            .collect()
    };
    cases.push(case(
        "dynamic_slice",
        vec![counting(&[4, 4]), i32s(&[], &[1]), i32s(&[], &[2])],
        vec![exact(f32s(&[2, 2], &window(1, 2)))],
        |b, a| Ok(vec![b.dynamic_slice(a[0], &[a[1], a[2]], &[2, 2])?]),
    ));
    cases.push(case(
        "dynamic_slice clamps the start into bounds",
        vec![counting(&[4, 4]), i32s(&[], &[3]), i32s(&[], &[-5])],
        vec![exact(f32s(&[2, 2], &window(2, 0)))],
        |b, a| Ok(vec![b.dynamic_slice(a[0], &[a[1], a[2]], &[2, 2])?]),
    ));

    let mut updated: Vec<f32> = (0..16).map(|i| i as f32).collect();
    for (i, j) in [(2, 2), (2, 3), (3, 2), (3, 3)] {
        updated[i * 4 + j] = -1.0;
    }
    cases.push(case(
        "dynamic_update_slice clamps the start into bounds",
        vec![
            counting(&[4, 4]),
            f32s(&[2, 2], &[-1.0; 4]),
            i64s(&[], &[3]),
            i64s(&[], &[7]),
        ],
        vec![exact(f32s(&[4, 4], &updated))],
        |b, a| Ok(vec![b.dynamic_update_slice(a[0], a[1], &[a[2], a[3]])?]),
    ));

    cases.push(case(
        "concatenate along dimension 0",
        vec![
            i32s(&[2, 2], &[1, 2, 3, 4]),
            i32s(&[1, 2], &[5, 6]),
            i32s(&[0, 2], &[]),
        ],
        vec![exact(i32s(&[3, 2], &[1, 2, 3, 4, 5, 6]))],
        |b, a| Ok(vec![b.concatenate(&[a[0], a[1], a[2]], 0)?]),
    ));
    cases.push(case(
        "concatenate along dimension 1",
        vec![i32s(&[2, 2], &[1, 2, 3, 4]), i32s(&[2, 1], &[5, 6])],
        vec![exact(i32s(&[2, 3], &[1, 2, 5, 3, 4, 6]))],
        |b, a| Ok(vec![b.concatenate(&[a[0], a[1]], 1)?]),
    ));

    for (name, config) in [
        ("pad (edges)", [(1, 2, 0), (0, 1, 0)]),
        (
            "pad (negative low edge and interior)",
            [(1, 0, 1), (-1, 2, 0)],
        ),
        (
            "pad (negative high edge and interior)",
            [(0, -2, 2), (2, -1, 1)],
        ),
    ] {
        let input: Vec<f32> = (0..6).map(|i| i as f32 + 1.0).collect();
        let (shape, expected) = pad_reference(&input, &[2, 3], -9.0, &config);
        let low: Vec<i64> = config.iter().map(|c| c.0).collect();
        let high: Vec<i64> = config.iter().map(|c| c.1).collect();
        let interior: Vec<i64> = config.iter().map(|c| c.2).collect();
        cases.push(case(
            name,
            vec![f32s(&[2, 3], &input), f32s(&[], &[-9.0])],
            vec![exact(f32s(&shape, &expected))],
            move |b, a| Ok(vec![b.pad(a[0], a[1], &low, &high, &interior)?]),
        ));
    }

    cases.push(case(
        "reverse one dimension",
        vec![counting(&[2, 3])],
        vec![exact(f32s(&[2, 3], &[2.0, 1.0, 0.0, 5.0, 4.0, 3.0]))],
        |b, a| Ok(vec![b.reverse(a[0], &[1])?]),
    ));
    cases.push(case(
        "reverse both dimensions",
        vec![counting(&[2, 3])],
        vec![exact(f32s(&[2, 3], &[5.0, 4.0, 3.0, 2.0, 1.0, 0.0]))],
        |b, a| Ok(vec![b.reverse(a[0], &[0, 1])?]),
    ));

    cases.extend(gather_scatter_cases());
    cases
}

fn gather_scatter_cases() -> Vec<Case> {
    // Embedding lookup: a [5, 3] table, a [2, 2] batch of row ids.
    let ids = [4i64, 0, 2, 4];
    let embedded: Vec<f32> = ids
        .iter()
        .flat_map(|&r| (0..3).map(move |c| (r * 3 + c) as f32))
        .collect();
    let embedding = GatherDims {
        offset_dims: vec![2],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 2,
        ..GatherDims::default()
    };

    // General: 2x2 windows of a [3, 4] matrix at (row, col) starts; (2, 3) clamps to (1, 2).
    let starts = [(0usize, 1usize), (2, 3)];
    let windows: Vec<f32> = starts
        .iter()
        .flat_map(|&(r, c)| {
            let (r, c) = (r.min(1), c.min(2));
            (0..2).flat_map(move |i| (0..2).map(move |j| ((r + i) * 4 + c + j) as f32))
        })
        .collect();
    let general = GatherDims {
        offset_dims: vec![1, 2],
        start_index_map: vec![0, 1],
        index_vector_dim: 1,
        ..GatherDims::default()
    };

    let rows = ScatterDims {
        update_window_dims: vec![1],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..ScatterDims::default()
    };
    let mut added: Vec<f32> = (0..12).map(|i| i as f32).collect();
    for (row, scale) in [(1, 1.0), (3, 10.0), (1, 100.0)] {
        for c in 0..3 {
            added[row * 3 + c] += scale;
        }
    }
    let mut replaced: Vec<f32> = (0..12).map(|i| i as f32).collect();
    for (row, value) in [(0, -1.0), (2, -2.0)] {
        for c in 0..3 {
            replaced[row * 3 + c] = value;
        }
    }
    let replace_rows = rows.clone();

    vec![
        case(
            "gather (embedding lookup)",
            vec![counting(&[5, 3]), i32s(&[2, 2], &ids)],
            vec![exact(f32s(&[2, 2, 3], &embedded))],
            move |b, a| Ok(vec![b.gather(a[0], a[1], embedding, &[1, 3], false)?]),
        ),
        case(
            "gather (2-D windows, start clamped)",
            vec![counting(&[3, 4]), i32s(&[2, 2], &[0, 1, 2, 3])],
            vec![exact(f32s(&[2, 2, 2], &windows))],
            move |b, a| Ok(vec![b.gather(a[0], a[1], general, &[2, 2], false)?]),
        ),
        case(
            "scatter add (repeated index accumulates)",
            vec![
                counting(&[4, 3]),
                i32s(&[3, 1], &[1, 3, 1]),
                f32s(
                    &[3, 3],
                    &[1.0, 1.0, 1.0, 10.0, 10.0, 10.0, 100.0, 100.0, 100.0],
                ),
            ],
            vec![exact(f32s(&[4, 3], &added))],
            move |b, a| {
                b.scatter(&[a[0]], a[1], &[a[2]], rows, false, false, |b, v| {
                    Ok(vec![b.add(v[0], v[1])?])
                })
            },
        ),
        case(
            "scatter replace (unique indices)",
            vec![
                counting(&[4, 3]),
                i32s(&[2, 1], &[0, 2]),
                f32s(&[2, 3], &[-1.0, -1.0, -1.0, -2.0, -2.0, -2.0]),
            ],
            vec![exact(f32s(&[4, 3], &replaced))],
            move |b, a| {
                b.scatter(&[a[0]], a[1], &[a[2]], replace_rows, true, true, |_, v| {
                    Ok(vec![v[1]])
                })
            },
        ),
        case(
            "scatter out of bounds is skipped",
            vec![
                i32s(&[4], &[0, 0, 0, 0]),
                i32s(&[2, 1], &[5, 1]),
                i32s(&[2], &[7, 8]),
            ],
            vec![exact(i32s(&[4], &[0, 8, 0, 0]))],
            |b, a| {
                let dims = ScatterDims {
                    inserted_window_dims: vec![0],
                    scatter_dims_to_operand_dims: vec![0],
                    index_vector_dim: 1,
                    ..ScatterDims::default()
                };
                b.scatter(&[a[0]], a[1], &[a[2]], dims, false, false, |b, v| {
                    Ok(vec![b.add(v[0], v[1])?])
                })
            },
        ),
        case(
            "gather with batching dimensions",
            vec![counting(&[2, 3, 2]), i32s(&[2, 1], &[2, 1])],
            // Batch b takes row indices[b] of operand[b]: rows (0, 2) and (1, 1).
            vec![exact(f32s(&[2, 2], &[4.0, 5.0, 8.0, 9.0]))],
            |b, a| {
                let dims = GatherDims {
                    offset_dims: vec![1],
                    collapsed_slice_dims: vec![1],
                    operand_batching_dims: vec![0],
                    start_indices_batching_dims: vec![0],
                    start_index_map: vec![1],
                    index_vector_dim: 1,
                };
                Ok(vec![b.gather(a[0], a[1], dims, &[1, 1, 2], false)?])
            },
        ),
        case(
            "scatter of two inputs at once",
            vec![
                i32s(&[3], &[0, 0, 0]),
                f32s(&[3], &[0.0, 0.0, 0.0]),
                i32s(&[2, 1], &[2, 0]),
                i32s(&[2], &[5, 6]),
                f32s(&[2], &[0.5, 0.25]),
            ],
            vec![
                exact(i32s(&[3], &[6, 0, 5])),
                exact(f32s(&[3], &[0.25, 0.0, 0.5])),
            ],
            |b, a| {
                let dims = ScatterDims {
                    inserted_window_dims: vec![0],
                    scatter_dims_to_operand_dims: vec![0],
                    index_vector_dim: 1,
                    ..ScatterDims::default()
                };
                b.scatter(
                    &[a[0], a[1]],
                    a[2],
                    &[a[3], a[4]],
                    dims,
                    false,
                    true,
                    |b, v| Ok(vec![b.add(v[0], v[2])?, b.add(v[1], v[3])?]),
                )
            },
        ),
        case(
            "gather (bf16 operand, i64 indices, implicit index vector dimension)",
            vec![
                bf16s(&[3, 2], &[0.5, 1.5, 2.5, 3.5, 4.5, 5.5]),
                i64s(&[2], &[2, 0]),
            ],
            vec![exact(bf16s(&[2, 2], &[4.5, 5.5, 0.5, 1.5]))],
            |b, a| {
                let dims = GatherDims {
                    offset_dims: vec![1],
                    collapsed_slice_dims: vec![0],
                    start_index_map: vec![0],
                    index_vector_dim: 1,
                    ..GatherDims::default()
                };
                Ok(vec![b.gather(a[0], a[1], dims, &[1, 2], false)?])
            },
        ),
    ]
}
