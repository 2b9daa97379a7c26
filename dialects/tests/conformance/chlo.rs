//! CHLO ops: the plugins parse and legalize them themselves; references are computed here
//! (std's f64 functions, or published values where std has none).

use super::support::*;
use tpuc_ir::{ChloBinaryOp, ChloBroadcastOp, ChloUnaryOp, OpKind};

/// XLA's CHLO approximations in f32.
const APPROX: Tol = tol(1e-6, 1e-5);

fn chlo_unary(op: ChloUnaryOp, input: Host, expected: Expect) -> Case {
    case(op.name(), vec![input], vec![expected], |b, a| {
        b.op(OpKind::ChloUnary(op), &[a[0]], Vec::new(), None)
    })
}

fn chlo_binary(op: ChloBinaryOp, lhs: Host, rhs: Host, expected: Expect) -> Case {
    case(op.name(), vec![lhs, rhs], vec![expected], move |b, a| {
        b.op(OpKind::ChloBinary(op), &[a[0], a[1]], Vec::new(), None)
    })
}

fn chlo_broadcast(
    op: ChloBroadcastOp,
    dims: &[i64],
    lhs: Host,
    rhs: Host,
    expected: Expect,
) -> Case {
    let dims = dims.to_vec();
    case(op.name(), vec![lhs, rhs], vec![expected], move |b, a| {
        b.op(
            OpKind::ChloBroadcast(op, dims),
            &[a[0], a[1]],
            Vec::new(),
            None,
        )
    })
}

pub fn cases() -> Vec<Case> {
    use ChloUnaryOp::*;
    let x = f32s(&[5], &[-0.9, -0.3, 0.0, 0.4, 0.8]);
    let wide = f32s(&[5], &[-3.0, -1.0, 0.0, 0.5, 2.0]);
    let above_one = f32s(&[4], &[1.0, 1.5, 3.0, 10.0]);
    let special = f32s(&[4], &[f32::NEG_INFINITY, -1.0, f32::INFINITY, f32::NAN]);
    let mut cases: Vec<Case> = [
        (Acos, x.clone(), f64::acos as fn(f64) -> f64),
        (Asin, x.clone(), f64::asin),
        (Atan, wide.clone(), f64::atan),
        (Atanh, x.clone(), f64::atanh),
        (Asinh, wide.clone(), f64::asinh),
        (Sinh, wide.clone(), f64::sinh),
        (Cosh, wide.clone(), f64::cosh),
        (Tan, x.clone(), f64::tan),
        (Square, wide.clone(), |v| v * v),
    ]
    .into_iter()
    .map(|(op, input, f)| {
        let want = map_f32(&input, f);
        chlo_unary(op, input, close(want, APPROX))
    })
    .collect();
    cases.extend([
        chlo_unary(
            Acosh,
            above_one.clone(),
            close(map_f32(&above_one, f64::acosh), APPROX),
        ),
        // erf(0.5), erfc(0.5), lgamma(0.5) = log sqrt(pi), digamma(1) = -Euler's gamma, ...
        chlo_unary(
            Erf,
            f32s(&[3], &[-0.5, 0.0, 2.0]),
            close(f32s(&[3], &[-0.520_499_9, 0.0, 0.995_322_3]), APPROX),
        ),
        chlo_unary(
            Erfc,
            f32s(&[3], &[-0.5, 0.0, 2.0]),
            close(f32s(&[3], &[1.5205, 1.0, 0.004_677_735]), APPROX),
        ),
        chlo_unary(
            Lgamma,
            f32s(&[3], &[0.5, 1.0, 5.0]),
            close(f32s(&[3], &[0.572_364_9, 0.0, 3.178_053_8]), APPROX),
        ),
        chlo_unary(
            Digamma,
            f32s(&[3], &[0.5, 1.0, 5.0]),
            close(f32s(&[3], &[-1.963_51, -0.577_215_7, 1.506_117_7]), APPROX),
        ),
        chlo_unary(
            IsInf,
            special.clone(),
            exact(bools(&[4], &[true, false, true, false])),
        ),
        chlo_unary(
            IsPosInf,
            special.clone(),
            exact(bools(&[4], &[false, false, true, false])),
        ),
        chlo_unary(
            IsNegInf,
            special,
            exact(bools(&[4], &[true, false, false, false])),
        ),
        // erfinv, i1e, zeta, polygamma: scipy.special's values; next_after: numpy's.
        chlo_unary(
            ErfInv,
            f32s(&[3], &[-0.5, 0.0, 0.9]),
            close(f32s(&[3], &[-0.476_936_28, 0.0, 1.163_087_2]), APPROX),
        ),
        chlo_unary(
            BesselI1e,
            f32s(&[3], &[-1.0, 0.0, 10.0]),
            close(f32s(&[3], &[-0.207_910_42, 0.0, 0.121_262_68]), APPROX),
        ),
        chlo_unary(Conj, x.clone(), exact(x.clone())),
        chlo_binary(
            ChloBinaryOp::Zeta,
            f32s(&[2], &[2.0, 3.0]),
            f32s(&[2], &[1.0, 2.0]),
            close(f32s(&[2], &[1.644_934, 0.202_056_9]), APPROX),
        ),
        chlo_binary(
            ChloBinaryOp::Polygamma,
            f32s(&[2], &[1.0, 2.0]),
            f32s(&[2], &[1.0, 1.0]),
            close(f32s(&[2], &[1.644_934, -2.404_113_8]), APPROX),
        ),
        // The high halves of 64 x 4 = 256, -64 x 4 = -256, -64 x -4; 240 x 16 = 3840 and
        // 0xFFFFFFFF squared.
        case(
            "chlo.mulhi i8",
            vec![i8s(&[3], &[64, -64, -64]), i8s(&[3], &[4, 4, -4])],
            vec![exact(i8s(&[3], &[1, -1, 1]))],
            |b, a| {
                b.op(
                    OpKind::ChloBinary(ChloBinaryOp::Mulhi),
                    &[a[0], a[1]],
                    Vec::new(),
                    None,
                )
            },
        ),
        case(
            "chlo.mulhi ui32",
            vec![
                u32s(&[2], &[240, 0xFFFF_FFFF]),
                u32s(&[2], &[16 << 24, 0xFFFF_FFFF]),
            ],
            vec![exact(u32s(&[2], &[15, 0xFFFF_FFFE]))],
            |b, a| {
                b.op(
                    OpKind::ChloBinary(ChloBinaryOp::Mulhi),
                    &[a[0], a[1]],
                    Vec::new(),
                    None,
                )
            },
        ),
        chlo_binary(
            ChloBinaryOp::NextAfter,
            f32s(&[2], &[1.0, 0.0]),
            f32s(&[2], &[2.0, -1.0]),
            exact(f32s(&[2], &[1.000_000_1, -1e-45])),
        ),
        case(
            "chlo.broadcast_compare",
            vec![
                f32s(&[2, 2], &[1.0, 5.0, 3.0, 0.0]),
                f32s(&[2], &[2.0, 2.0]),
            ],
            vec![exact(bools(&[2, 2], &[true, false, false, true]))],
            |b, a| {
                let kind = OpKind::ChloBroadcastCompare {
                    dims: Vec::new(),
                    direction: tpuc_ir::ComparisonDirection::Lt,
                    compare_type: None,
                };
                b.op(kind, &[a[0], a[1]], Vec::new(), None)
            },
        ),
        case(
            "chlo.constant_like",
            vec![f32s(&[2], &[1.0, 5.0])],
            vec![exact(f32s(&[2], &[0.25, 0.25]))],
            |b, a| {
                let value = tpuc_ir::Attribute::Float {
                    value: 0.25,
                    ty: tpuc_ir::ElementType::F32,
                };
                b.op(OpKind::ChloConstantLike(value), &[a[0]], Vec::new(), None)
            },
        ),
        // XLA:CPU has no ragged-dot (tpuc legalizes it first); libtpu compiles it.
        case(
            "chlo.ragged_dot",
            vec![
                f32s(&[3, 2], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
                f32s(&[2, 2, 1], &[1.0, 1.0, 2.0, 2.0]),
                i32s(&[2], &[1, 2]),
            ],
            vec![exact(f32s(&[3, 1], &[3.0, 14.0, 22.0]))],
            |b, a| {
                let kind = OpKind::ChloRaggedDot {
                    dims: tpuc_ir::RaggedDotDims {
                        dot: tpuc_ir::DotDims::contracting(1, 1),
                        lhs_ragged: vec![0],
                        rhs_group: vec![0],
                    },
                    precision: Vec::new(),
                };
                b.op(kind, &[a[0], a[1], a[2]], Vec::new(), None)
            },
        )
        .cpu_rejects("ragged-dot"),
        case(
            "chlo.top_k",
            vec![f32s(&[5], &[0.5, 3.0, -1.0, 3.0, 2.0])],
            vec![exact(f32s(&[2], &[3.0, 3.0])), exact(i32s(&[2], &[1, 3]))],
            |b, a| b.op(OpKind::ChloTopK { k: 2 }, &[a[0]], Vec::new(), None),
        ),
        case(
            "chlo.broadcast_select",
            vec![
                bools(&[2], &[true, false]),
                f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.0]),
                f32s(&[], &[9.0]),
            ],
            vec![exact(f32s(&[2, 2], &[1.0, 9.0, 3.0, 9.0]))],
            |b, a| {
                b.op(
                    OpKind::ChloBroadcastSelect,
                    &[a[0], a[1], a[2]],
                    Vec::new(),
                    None,
                )
            },
        ),
    ]);
    let matrix = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let row = f32s(&[3], &[10.0, 20.0, 30.0]);
    let bits = i32s(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    let int_row = i32s(&[3], &[1, 0, 3]);
    for op in ChloBroadcastOp::ALL.iter().copied() {
        use tpuc_ir::BroadcastBinary::Stablehlo;
        let binary = op.binary();
        let is_int = matches!(
            binary,
            Stablehlo(
                tpuc_ir::BinaryOp::And
                    | tpuc_ir::BinaryOp::Or
                    | tpuc_ir::BinaryOp::Xor
                    | tpuc_ir::BinaryOp::ShiftLeft
                    | tpuc_ir::BinaryOp::ShiftRightArithmetic
                    | tpuc_ir::BinaryOp::ShiftRightLogical
            )
        );
        let (lhs, rhs) = if is_int {
            (bits.clone(), int_row.clone())
        } else {
            (matrix.clone(), row.clone())
        };
        let want = Expect::Shape(if binary == Stablehlo(tpuc_ir::BinaryOp::Complex) {
            tpuc_ir::TensorType::of(&[2, 3], tpuc_ir::ElementType::ComplexF32)
        } else {
            lhs.ty.clone()
        });
        cases.push(chlo_broadcast(op, &[1], lhs, rhs, want));
    }
    cases
}
