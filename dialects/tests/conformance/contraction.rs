//! `dot_general`, `convolution` and `triangular_solve` against straightforward loop references;
//! `fft` against numpy's `numpy.fft`, computed offline.

use super::support::*;
use tpuc_ir::{ConvAttrs, ConvDims, DotDims, ElementType, FftType, Precision, Transpose};

/// Small values exact in f32 and bf16, so sums of products are exact too.
fn values(count: usize, seed: usize) -> Vec<f32> {
    (0..count)
        .map(|i| ((i * 7 + seed * 3) % 11) as f32 * 0.25 - 1.25)
        .collect()
}

fn index_of(index: &[usize], shape: &[usize]) -> usize {
    index.iter().zip(shape).fold(0, |acc, (&i, &n)| acc * n + i)
}

/// Every index of `shape`, row-major.
fn indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let mut all = vec![Vec::new()];
    for &n in shape {
        all = all
            .into_iter()
            .flat_map(|prefix| {
                (0..n).map(move |i| {
                    let mut next = prefix.clone();
                    next.push(i);
                    next
                })
            })
            .collect();
    }
    all
}

/// Reference `dot_general`: result dims are batch, lhs free, rhs free.
fn dot_reference(
    lhs: &[f32],
    lhs_shape: &[usize],
    rhs: &[f32],
    rhs_shape: &[usize],
    dims: &DotDims,
) -> (Vec<u64>, Vec<f32>) {
    let as_usize = |v: &[i64]| v.iter().map(|&d| d as usize).collect::<Vec<_>>();
    let (lb, rb) = (as_usize(&dims.lhs_batching), as_usize(&dims.rhs_batching));
    let (lc, rc) = (
        as_usize(&dims.lhs_contracting),
        as_usize(&dims.rhs_contracting),
    );
    let lf: Vec<usize> = (0..lhs_shape.len())
        .filter(|d| !lb.contains(d) && !lc.contains(d))
        .collect();
    let rf: Vec<usize> = (0..rhs_shape.len())
        .filter(|d| !rb.contains(d) && !rc.contains(d))
        .collect();
    let out_shape: Vec<usize> = lb
        .iter()
        .map(|&d| lhs_shape[d])
        .chain(lf.iter().map(|&d| lhs_shape[d]))
        .chain(rf.iter().map(|&d| rhs_shape[d]))
        .collect();
    let contract_shape: Vec<usize> = lc.iter().map(|&d| lhs_shape[d]).collect();
    let mut out = Vec::new();
    for index in indices(&out_shape) {
        let (batch, rest) = index.split_at(lb.len());
        let (lfree, rfree) = rest.split_at(lf.len());
        let mut sum = 0f64;
        for k in indices(&contract_shape) {
            let mut li = vec![0; lhs_shape.len()];
            let mut ri = vec![0; rhs_shape.len()];
            for (j, (&l, &r)) in lb.iter().zip(&rb).enumerate() {
                li[l] = batch[j];
                ri[r] = batch[j];
            }
            for (j, &l) in lf.iter().enumerate() {
                li[l] = lfree[j];
            }
            for (j, &r) in rf.iter().enumerate() {
                ri[r] = rfree[j];
            }
            for (j, (&l, &r)) in lc.iter().zip(&rc).enumerate() {
                li[l] = k[j];
                ri[r] = k[j];
            }
            sum +=
                f64::from(lhs[index_of(&li, lhs_shape)]) * f64::from(rhs[index_of(&ri, rhs_shape)]);
        }
        out.push(sum as f32);
    }
    (out_shape.iter().map(|&d| d as u64).collect(), out)
}

fn dot_case(
    name: &str,
    lhs_shape: &[usize],
    rhs_shape: &[usize],
    dims: DotDims,
    precision: Vec<Precision>,
) -> Case {
    let lhs = values(lhs_shape.iter().product(), 1);
    let rhs = values(rhs_shape.iter().product(), 2);
    let (shape, expected) = dot_reference(&lhs, lhs_shape, &rhs, rhs_shape, &dims);
    let u64s = |s: &[usize]| s.iter().map(|&d| d as u64).collect::<Vec<_>>();
    case(
        name,
        vec![f32s(&u64s(lhs_shape), &lhs), f32s(&u64s(rhs_shape), &rhs)],
        vec![close(f32s(&shape, &expected), tol(1e-5, 1e-6))],
        move |b, a| Ok(vec![b.dot_general(a[0], a[1], dims, precision)?]),
    )
}

/// Window and grouping of a reference NCHW x OIHW convolution.
#[derive(Clone)]
struct Conv {
    input: [usize; 4],
    kernel: [usize; 4],
    stride: [usize; 2],
    padding: [(i64, i64); 2],
    lhs_dilation: [usize; 2],
    rhs_dilation: [usize; 2],
    /// Flip the kernel along each spatial dimension.
    reversal: [bool; 2],
    groups: usize,
}

impl Conv {
    fn reference(&self, x: &[f32], k: &[f32]) -> (Vec<u64>, Vec<f32>) {
        let [n, c, h, w] = self.input;
        let [o, i, kh, kw] = self.kernel;
        let dilated = [
            (h - 1) * self.lhs_dilation[0] + 1,
            (w - 1) * self.lhs_dilation[1] + 1,
        ];
        let out_size = |d: usize, k: usize| {
            let padded = dilated[d] as i64 + self.padding[d].0 + self.padding[d].1;
            let window = ((k - 1) * self.rhs_dilation[d] + 1) as i64;
            ((padded - window) / self.stride[d] as i64 + 1) as usize
        };
        let (oh, ow) = (out_size(0, kh), out_size(1, kw));
        let per_group = o / self.groups;
        let mut out = Vec::new();
        for b in 0..n {
            for f in 0..o {
                let group = f / per_group;
                for y in 0..oh {
                    for x_ in 0..ow {
                        let mut sum = 0f64;
                        for ci in 0..i {
                            for ky in 0..kh {
                                for kx in 0..kw {
                                    let source = |d: usize, out: usize, k: usize, size: usize| {
                                        let p = (out * self.stride[d] + k * self.rhs_dilation[d])
                                            as i64
                                            - self.padding[d].0;
                                        let ld = self.lhs_dilation[d] as i64;
                                        (p >= 0 && p % ld == 0 && p / ld < size as i64)
                                            .then_some((p / ld) as usize)
                                    };
                                    let (Some(sy), Some(sx)) =
                                        (source(0, y, ky, h), source(1, x_, kx, w))
                                    else {
                                        continue;
                                    };
                                    let channel = group * i + ci;
                                    let xv = x[((b * c + channel) * h + sy) * w + sx];
                                    let ry = if self.reversal[0] { kh - 1 - ky } else { ky };
                                    let rx = if self.reversal[1] { kw - 1 - kx } else { kx };
                                    let kv = k[((f * i + ci) * kh + ry) * kw + rx];
                                    sum += f64::from(xv) * f64::from(kv);
                                }
                            }
                        }
                        out.push(sum as f32);
                    }
                }
            }
        }
        (vec![n as u64, o as u64, oh as u64, ow as u64], out)
    }

    fn case(self, name: &str) -> Case {
        let x = values(self.input.iter().product(), 3);
        let k = values(self.kernel.iter().product(), 4);
        let (shape, expected) = self.reference(&x, &k);
        let u64s = |s: &[usize]| s.iter().map(|&d| d as u64).collect::<Vec<_>>();
        let mut attrs = ConvAttrs::new(ConvDims::nchw(2));
        attrs.window_strides = self.stride.iter().map(|&s| s as i64).collect();
        attrs.padding = self.padding.to_vec();
        attrs.lhs_dilation = self.lhs_dilation.iter().map(|&s| s as i64).collect();
        attrs.rhs_dilation = self.rhs_dilation.iter().map(|&s| s as i64).collect();
        attrs.feature_group_count = self.groups as u64;
        if self.reversal.contains(&true) {
            attrs.window_reversal = self.reversal.to_vec();
        }
        case(
            name,
            vec![f32s(&u64s(&self.input), &x), f32s(&u64s(&self.kernel), &k)],
            vec![close(f32s(&shape, &expected), tol(1e-5, 1e-6))],
            move |b, a| Ok(vec![b.convolution(a[0], a[1], attrs)?]),
        )
    }
}

/// `data` of `shape` with its dimensions permuted: result dimension `i` is input dimension
/// `permutation[i]`.
fn permute(data: &[f32], shape: &[usize], permutation: &[usize]) -> Vec<f32> {
    let out_shape: Vec<usize> = permutation.iter().map(|&d| shape[d]).collect();
    indices(&out_shape)
        .iter()
        .map(|out| {
            let mut index = vec![0; shape.len()];
            for (i, &d) in permutation.iter().enumerate() {
                index[d] = out[i];
            }
            data[index_of(&index, shape)]
        })
        .collect()
}

/// The layout JAX uses: NHWC images, HWIO kernels. Same numbers as an NCHW reference.
fn nhwc_case() -> Case {
    let conv = Conv {
        input: [1, 2, 5, 5],
        kernel: [3, 2, 3, 3],
        stride: [2, 1],
        padding: [(1, 1), (0, 2)],
        lhs_dilation: [1, 1],
        rhs_dilation: [1, 1],
        reversal: [false, false],
        groups: 1,
    };
    let x = values(50, 5);
    let k = values(54, 6);
    let (shape, expected) = conv.reference(&x, &k);
    let out_shape: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
    let x_nhwc = permute(&x, &conv.input, &[0, 2, 3, 1]);
    let k_hwio = permute(&k, &conv.kernel, &[2, 3, 1, 0]);
    let out_nhwc = permute(&expected, &out_shape, &[0, 2, 3, 1]);
    let nhwc = [shape[0], shape[2], shape[3], shape[1]];
    let mut attrs = ConvAttrs::new(ConvDims {
        input_batch: 0,
        input_feature: 3,
        input_spatial: vec![1, 2],
        kernel_input_feature: 2,
        kernel_output_feature: 3,
        kernel_spatial: vec![0, 1],
        output_batch: 0,
        output_feature: 3,
        output_spatial: vec![1, 2],
    });
    attrs.window_strides = vec![2, 1];
    attrs.padding = conv.padding.to_vec();
    case(
        "convolution NHWC x HWIO (JAX layout)",
        vec![f32s(&[1, 5, 5, 2], &x_nhwc), f32s(&[3, 3, 2, 3], &k_hwio)],
        vec![close(f32s(&nhwc, &out_nhwc), tol(1e-5, 1e-6))],
        move |b, a| Ok(vec![b.convolution(a[0], a[1], attrs)?]),
    )
}

pub fn cases() -> Vec<Case> {
    let plain = Conv {
        input: [1, 2, 5, 5],
        kernel: [3, 2, 3, 3],
        stride: [1, 1],
        padding: [(0, 0), (0, 0)],
        lhs_dilation: [1, 1],
        rhs_dilation: [1, 1],
        reversal: [false, false],
        groups: 1,
    };
    vec![
        dot_case(
            "dot_general matmul",
            &[2, 3],
            &[3, 4],
            DotDims::contracting(1, 0),
            Vec::new(),
        ),
        dot_case(
            "dot_general batched",
            &[2, 2, 3],
            &[2, 3, 2],
            DotDims {
                lhs_batching: vec![0],
                rhs_batching: vec![0],
                lhs_contracting: vec![2],
                rhs_contracting: vec![1],
            },
            vec![Precision::Default, Precision::Default],
        ),
        dot_case(
            "dot_general with transposed contracting dimensions",
            &[3, 2],
            &[4, 3],
            DotDims::contracting(0, 1),
            vec![Precision::Highest, Precision::Highest],
        ),
        dot_case(
            "dot_general contracting two dimensions",
            &[2, 3, 2],
            &[3, 2, 2],
            DotDims {
                lhs_contracting: vec![1, 2],
                rhs_contracting: vec![0, 1],
                ..DotDims::default()
            },
            Vec::new(),
        ),
        case(
            "dot_general i32 (exact)",
            vec![i32s(&[2, 2], &[1, -2, 3, 4]), i32s(&[2, 2], &[5, 6, -7, 8])],
            vec![exact(i32s(&[2, 2], &[19, -10, -13, 50]))],
            |b, a| {
                Ok(vec![b.dot_general(
                    a[0],
                    a[1],
                    DotDims::contracting(1, 0),
                    Vec::new(),
                )?])
            },
        ),
        case(
            "dot_general bf16 x bf16 -> f32",
            vec![
                bf16s(&[1, 3], &[0.5, -1.5, 2.0]),
                bf16s(&[3, 2], &[1.0, 2.0, 3.0, -4.0, 0.25, 8.0]),
            ],
            vec![close(f32s(&[1, 2], &[-3.5, 23.0]), tol(0.0, 1e-6))],
            |b, a| {
                Ok(vec![b.dot_general_to(
                    a[0],
                    a[1],
                    DotDims::contracting(1, 0),
                    Vec::new(),
                    ElementType::F32,
                )?])
            },
        ),
        case(
            "dot_general i8 x i8 -> i32 (no overflow in the accumulator)",
            vec![
                i8s(&[1, 3], &[127, -128, 100]),
                i8s(&[3, 1], &[127, -128, 100]),
            ],
            vec![exact(i32s(&[1, 1], &[127 * 127 + 128 * 128 + 100 * 100]))],
            |b, a| {
                Ok(vec![b.dot_general_to(
                    a[0],
                    a[1],
                    DotDims::contracting(1, 0),
                    Vec::new(),
                    ElementType::I32,
                )?])
            },
        ),
        case(
            "convolution bf16 x bf16 -> f32",
            vec![
                bf16s(&[1, 1, 2, 2], &[1.0, 2.0, 3.0, 4.0]),
                bf16s(&[1, 1, 2, 2], &[0.5, -1.0, 0.25, 2.0]),
            ],
            vec![exact(f32s(&[1, 1, 1, 1], &[0.5 - 2.0 + 0.75 + 8.0]))],
            |b, a| {
                let attrs = ConvAttrs::new(ConvDims::nchw(2));
                Ok(vec![b.convolution_to(
                    a[0],
                    a[1],
                    attrs,
                    ElementType::F32,
                )?])
            },
        ),
        plain.clone().case("convolution 2-D NCHW"),
        Conv {
            stride: [2, 2],
            padding: [(1, 1), (1, 1)],
            ..plain.clone()
        }
        .case("convolution with padding and stride"),
        Conv {
            input: [1, 2, 6, 6],
            padding: [(1, 0), (0, 1)],
            rhs_dilation: [2, 2],
            ..plain.clone()
        }
        .case("convolution with kernel dilation"),
        Conv {
            input: [1, 2, 3, 3],
            kernel: [3, 2, 2, 2],
            padding: [(1, 1), (1, 1)],
            lhs_dilation: [2, 2],
            ..plain.clone()
        }
        .case("convolution with input dilation (transposed convolution)"),
        Conv {
            reversal: [true, false],
            padding: [(1, 1), (0, 0)],
            ..plain.clone()
        }
        .case("convolution with window reversal"),
        Conv {
            input: [2, 4, 4, 4],
            kernel: [4, 2, 3, 3],
            padding: [(1, 1), (1, 1)],
            groups: 2,
            ..plain.clone()
        }
        .case("convolution grouped (2 groups)"),
        Conv {
            input: [1, 3, 4, 4],
            kernel: [3, 1, 3, 3],
            groups: 3,
            ..plain
        }
        .case("convolution depthwise"),
        nhwc_case(),
    ]
    .into_iter()
    .chain(fft_cases())
    .chain(triangular_solve_cases())
    .collect()
}

/// `triangular_solve`'s answer by Gaussian elimination on the matrix it stands for: `a`'s
/// `lower` or upper triangle (ones on the diagonal if `unit_diagonal`), transposed if asked;
/// `a` is `[batch, n, n]`, `b` `[batch, rows, cols]`.
fn triangular_solve_reference(
    a: &[f64],
    b: &[f64],
    [batch, n, rows, cols]: [usize; 4],
    (left_side, lower, unit_diagonal, transpose): (bool, bool, bool, bool),
) -> Vec<f64> {
    let mut out = Vec::new();
    for k in 0..batch {
        // op(a) as a dense matrix.
        let m = |i: usize, j: usize| {
            let (i, j) = if transpose { (j, i) } else { (i, j) };
            let kept = if lower { j <= i } else { j >= i };
            match (i == j, unit_diagonal, kept) {
                (true, true, _) => 1.0,
                (_, _, true) => a[k * n * n + i * n + j],
                _ => 0.0,
            }
        };
        // Left: op(a) x = b, column by column. Right: x op(a) = b is op(a)^T x^T = b^T.
        let systems = if left_side { cols } else { rows };
        let mut x = vec![0.0; rows * cols];
        for s in 0..systems {
            let mut aug: Vec<Vec<f64>> = (0..n)
                .map(|i| {
                    let mut row: Vec<f64> = (0..n)
                        .map(|j| if left_side { m(i, j) } else { m(j, i) })
                        .collect();
                    let rhs = if left_side {
                        i * cols + s
                    } else {
                        s * cols + i
                    };
                    row.push(b[k * rows * cols + rhs]);
                    row
                })
                .collect();
            for p in 0..n {
                let pivot = (p..n)
                    .max_by(|&x, &y| aug[x][p].abs().total_cmp(&aug[y][p].abs()))
                    .expect("a row");
                aug.swap(p, pivot);
                let pivot_row = aug[p].clone();
                for (r, row) in aug.iter_mut().enumerate() {
                    if r != p {
                        let f = row[p] / pivot_row[p];
                        for (value, &from) in row.iter_mut().zip(&pivot_row).skip(p) {
                            *value -= f * from;
                        }
                    }
                }
            }
            for (i, row) in aug.iter().enumerate() {
                let at = if left_side {
                    i * cols + s
                } else {
                    s * cols + i
                };
                x[at] = row[n] / row[i];
            }
        }
        out.extend(x);
    }
    out
}

/// Both sides, both triangles, each `transpose_a`, a unit diagonal, over a batch of two.
fn triangular_solve_cases() -> Vec<Case> {
    let a: Vec<f64> = vec![
        2.0, 7.0, -3.0, 1.0, 4.0, 5.0, -2.0, 0.5, 8.0, //
        1.0, -1.0, 2.0, 3.0, 5.0, 0.25, 0.5, -4.0, 2.0,
    ];
    let b: Vec<f64> = vec![
        1.0, 2.0, -3.0, 0.5, 4.0, 1.5, 2.0, -1.0, 0.0, 3.0, 1.0, -2.5,
    ];
    let f32_of = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
    let mut cases = Vec::new();
    for (left_side, lower, unit_diagonal, transpose_a) in [
        (true, true, false, Transpose::NoTranspose),
        (false, false, true, Transpose::Transpose),
        (true, false, false, Transpose::Adjoint),
    ] {
        let (rows, cols) = if left_side { (3, 2) } else { (2, 3) };
        let expected = triangular_solve_reference(
            &a,
            &b,
            [2, 3, rows, cols],
            (
                left_side,
                lower,
                unit_diagonal,
                transpose_a != Transpose::NoTranspose,
            ),
        );
        cases.push(case(
            format!(
                "triangular_solve left_side={left_side} lower={lower} \
                 unit_diagonal={unit_diagonal} {}",
                transpose_a.keyword()
            ),
            vec![
                f32s(&[2, 3, 3], &f32_of(&a)),
                f32s(&[2, rows as u64, cols as u64], &f32_of(&b)),
            ],
            vec![close(
                f32s(&[2, rows as u64, cols as u64], &f32_of(&expected)),
                tol(1e-5, 1e-5),
            )],
            move |bld, x| {
                Ok(vec![bld.triangular_solve(
                    x[0],
                    x[1],
                    left_side,
                    lower,
                    unit_diagonal,
                    transpose_a,
                )?])
            },
        ));
    }
    cases
}

/// The four Fourier transforms; the expected values are numpy's (`np.fft.fft`, `ifft`,
/// `rfftn`, `irfft`) in f64, rounded to f32.
fn fft_cases() -> Vec<Case> {
    let signal = || {
        c64s(
            &[2, 4],
            &[
                (1.0, 2.0),
                (-0.5, 0.0),
                (3.0, -1.0),
                (0.25, 0.75),
                (2.0, 0.0),
                (0.0, -1.0),
                (-1.5, 0.5),
                (1.0, 1.0),
            ],
        )
    };
    let near = tol(1e-5, 1e-5);
    let real: Vec<f32> = vec![
        0.5, -1.0, 2.0, 0.25, 1.5, -0.75, 3.0, 0.0, -2.0, 1.0, 0.125, -0.5, 1.0, 2.0, -1.0, 0.5,
        0.0, 0.75, -1.25, 2.5, 1.0, -0.25, 0.5, 1.5,
    ];
    vec![
        case(
            "fft FFT of the last dimension",
            vec![signal()],
            vec![close(
                c64s(
                    &[2, 4],
                    &[
                        (3.75, 1.75),
                        (-2.75, 3.75),
                        (4.25, 0.25),
                        (-1.25, 2.25),
                        (1.5, 0.5),
                        (1.5, 0.5),
                        (-0.5, 0.5),
                        (5.5, -1.5),
                    ],
                ),
                near,
            )],
            |b, a| Ok(vec![b.fft(a[0], FftType::Fft, &[4])?]),
        ),
        case(
            "fft IFFT of the last dimension (divided by its size)",
            vec![signal()],
            vec![close(
                c64s(
                    &[2, 4],
                    &[
                        (0.9375, 0.4375),
                        (-0.3125, 0.5625),
                        (1.0625, 0.0625),
                        (-0.6875, 0.9375),
                        (0.375, 0.125),
                        (1.375, -0.375),
                        (-0.125, 0.125),
                        (0.375, 0.125),
                    ],
                ),
                near,
            )],
            |b, a| Ok(vec![b.fft(a[0], FftType::Ifft, &[4])?]),
        ),
        case(
            "fft RFFT of the last two dimensions",
            vec![f32s(&[2, 3, 4], &real)],
            vec![close(
                c64s(
                    &[2, 3, 3],
                    &[
                        (4.125, 0.0),
                        (-5.125, 0.5),
                        (6.125, 0.0),
                        (0.5625, -4.438_380_2),
                        (2.261_057, 1.083_734_2),
                        (1.8125, -6.603_443_6),
                        (0.5625, 4.438_380_2),
                        (-1.636_057_1, 2.166_266),
                        (1.8125, 6.603_443_6),
                        (7.25, 0.0),
                        (3.75, 2.0),
                        (-6.75, 0.0),
                        (0.125, 0.649_519),
                        (1.125, -3.899_519),
                        (-0.375, 4.113_620_8),
                        (0.125, -0.649_519),
                        (1.125, -2.600_481),
                        (-0.375, -4.113_620_8),
                    ],
                ),
                near,
            )],
            |b, a| Ok(vec![b.fft(a[0], FftType::Rfft, &[3, 4])?]),
        ),
        case(
            "fft IRFFT of an odd length (half spectrum of 3)",
            vec![c64s(
                &[2, 3],
                &[
                    (4.0, 0.0),
                    (1.0, -2.0),
                    (0.5, 1.0),
                    (-1.0, 0.0),
                    (2.0, 0.5),
                    (3.0, 0.0),
                ],
            )],
            vec![close(
                f32s(
                    &[2, 5],
                    &[
                        1.4,
                        1.287_534_5,
                        1.388_847_4,
                        -0.312_454_2,
                        0.236_072_29,
                        1.8,
                        -1.113_818,
                        -0.593_950_3,
                        -0.358_836_14,
                        -0.733_395_5,
                    ],
                ),
                near,
            )],
            |b, a| Ok(vec![b.fft(a[0], FftType::Irfft, &[5])?]),
        ),
    ]
}
