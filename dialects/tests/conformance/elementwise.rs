//! Elementwise ops: every unary and binary op, compare, select, clamp, conversions, constants
//! and iota.

use super::support::*;
use tpuc_ir::{
    BinaryOp, ComparisonDirection, ComparisonType, DenseElements, ElementType, TensorType, UnaryOp,
};

/// Tolerance of transcendental functions in f32 (XLA:CPU uses polynomial approximations).
const TRANSCENDENTAL: Tol = tol(1e-6, 4e-6);
/// Tolerance of correctly rounded f32 ops computed through f64.
const ROUNDED: Tol = tol(0.0, 1.2e-7);

fn unary(name: &str, op: UnaryOp, input: Host, expected: Expect) -> Case {
    case(name, vec![input], vec![expected], |b, a| {
        Ok(vec![b.unary(op, a[0])?])
    })
}

fn binary(name: &str, op: BinaryOp, lhs: Host, rhs: Host, expected: Expect) -> Case {
    case(name, vec![lhs, rhs], vec![expected], |b, a| {
        Ok(vec![b.binary(op, a[0], a[1])?])
    })
}

/// `f` on each i32, wrapping like two's complement hardware.
fn map_i32(input: &[i64], f: impl Fn(i32) -> i32) -> Vec<i64> {
    input.iter().map(|&v| i64::from(f(v as i32))).collect()
}

fn zip_i32(lhs: &[i64], rhs: &[i64], f: impl Fn(i32, i32) -> i32) -> Vec<i64> {
    lhs.iter()
        .zip(rhs)
        .map(|(&a, &b)| i64::from(f(a as i32, b as i32)))
        .collect()
}

fn zip_f32(lhs: &Host, rhs: &Host, f: impl Fn(f64, f64) -> f64) -> Host {
    let values: Vec<f64> = lhs
        .scalars()
        .iter()
        .zip(rhs.scalars())
        .map(|(a, b)| f(a.as_f64(), b.as_f64()))
        .collect();
    Host::from_f64s(lhs.ty.clone(), &values)
}

const MIN: i64 = i32::MIN as i64;
const MAX: i64 = i32::MAX as i64;

pub fn unary_cases() -> Vec<Case> {
    use UnaryOp::*;
    let x = f32s(&[6], &[-2.5, -0.5, -0.0, 0.7, 1.5, 3.0]);
    let angles = f32s(&[6], &[-3.0, -1.2, 0.0, 0.5, 1.0, 2.5]);
    let positive = f32s(&[6], &[1e-5, 0.25, 1.0, 2.0, 10.0, 1e6]);
    let exps = f32s(&[6], &[-3.0, -1e-4, 0.0, 0.5, 2.0, 10.0]);
    let ints = [MIN, -7, -1, 0, 1, 255, 1 << 30, MAX];
    let complex = c64s(&[3], &[(3.0, 4.0), (-1.5, 0.5), (0.0, -2.0)]);
    let special = f32s(
        &[6],
        &[1.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 0.0, -3.0],
    );
    let halves = f32s(&[8], &[-2.5, -1.5, -0.5, -0.4, 0.4, 0.5, 1.5, 2.5]);
    vec![
        unary("abs_f32", Abs, x.clone(), exact(map_f32(&x, f64::abs))),
        unary(
            "abs_i32 (abs of INT_MIN wraps)",
            Abs,
            i32s(&[8], &ints),
            exact(i32s(&[8], &map_i32(&ints, i32::wrapping_abs))),
        ),
        unary(
            "abs_complex",
            Abs,
            complex.clone(),
            close(f32s(&[3], &[5.0, 1.581_138_8, 2.0]), ROUNDED),
        ),
        unary(
            "cbrt_f32",
            Cbrt,
            f32s(&[5], &[-27.0, -1.0, 0.0, 2.0, 1000.0]),
            close(
                map_f32(&f32s(&[5], &[-27.0, -1.0, 0.0, 2.0, 1000.0]), f64::cbrt),
                TRANSCENDENTAL,
            ),
        ),
        unary("ceil_f32", Ceil, x.clone(), exact(map_f32(&x, f64::ceil))),
        unary(
            "floor_f32",
            Floor,
            x.clone(),
            exact(map_f32(&x, f64::floor)),
        ),
        unary(
            "count_leading_zeros_i32",
            CountLeadingZeros,
            i32s(&[8], &ints),
            exact(i32s(&[8], &map_i32(&ints, |v| v.leading_zeros() as i32))),
        ),
        unary(
            "count_leading_zeros_i64",
            CountLeadingZeros,
            i64s(&[3], &[0, 1, -1]),
            exact(i64s(&[3], &[64, 63, 0])),
        ),
        unary(
            "cosine_f32",
            Cosine,
            angles.clone(),
            close(map_f32(&angles, f64::cos), TRANSCENDENTAL),
        ),
        unary(
            "sine_f32",
            Sine,
            angles.clone(),
            close(map_f32(&angles, f64::sin), TRANSCENDENTAL),
        ),
        unary(
            "tan_f32",
            Tan,
            angles.clone(),
            close(map_f32(&angles, f64::tan), TRANSCENDENTAL),
        ),
        unary(
            "tanh_f32",
            Tanh,
            exps.clone(),
            close(map_f32(&exps, f64::tanh), TRANSCENDENTAL),
        ),
        unary(
            "exponential_f32",
            Exponential,
            exps.clone(),
            close(map_f32(&exps, f64::exp), TRANSCENDENTAL),
        ),
        unary(
            "exponential_f64",
            Exponential,
            f64s(&[4], &[-3.0, 0.0, 0.5, 20.0]),
            close(
                f64s(&[4], &[(-3f64).exp(), 1.0, 0.5f64.exp(), 20f64.exp()]),
                tol(0.0, 1e-14),
            ),
        ),
        unary(
            "exponential_bf16",
            Exponential,
            bf16s(&[3], &[-1.0, 0.0, 2.0]),
            close(
                bf16s(&[3], &[(-1f64).exp(), 1.0, 2f64.exp()]),
                tol(0.0, 1e-2),
            ),
        ),
        unary(
            "exponential_minus_one_f32 (accurate near zero)",
            ExponentialMinusOne,
            exps.clone(),
            close(map_f32(&exps, f64::exp_m1), TRANSCENDENTAL),
        ),
        unary(
            "imag_complex",
            Imag,
            complex.clone(),
            exact(f32s(&[3], &[4.0, 0.5, -2.0])),
        ),
        unary(
            "real_complex",
            Real,
            complex.clone(),
            exact(f32s(&[3], &[3.0, -1.5, 0.0])),
        ),
        unary(
            "is_finite_f32",
            IsFinite,
            special.clone(),
            exact(bools(&[6], &[true, false, false, false, true, true])),
        ),
        unary(
            "log_f32",
            Log,
            positive.clone(),
            close(map_f32(&positive, f64::ln), TRANSCENDENTAL),
        ),
        unary(
            "log_plus_one_f32 (accurate near zero)",
            LogPlusOne,
            positive.clone(),
            close(map_f32(&positive, f64::ln_1p), TRANSCENDENTAL),
        ),
        unary(
            "logistic_f32",
            Logistic,
            exps.clone(),
            close(map_f32(&exps, |v| 1.0 / (1.0 + (-v).exp())), TRANSCENDENTAL),
        ),
        unary("negate_f32", Negate, x.clone(), exact(map_f32(&x, |v| -v))),
        unary(
            "negate_i32 (negating INT_MIN wraps)",
            Negate,
            i32s(&[8], &ints),
            exact(i32s(&[8], &map_i32(&ints, i32::wrapping_neg))),
        ),
        unary(
            "not_i32",
            Not,
            i32s(&[8], &ints),
            exact(i32s(&[8], &map_i32(&ints, |v| !v))),
        ),
        unary(
            "not_i1",
            Not,
            bools(&[2], &[true, false]),
            exact(bools(&[2], &[false, true])),
        ),
        unary(
            "popcnt_i32",
            Popcnt,
            i32s(&[8], &ints),
            exact(i32s(&[8], &map_i32(&ints, |v| v.count_ones() as i32))),
        ),
        unary(
            "popcnt_ui8",
            Popcnt,
            u8s(&[3], &[0, 0xFF, 0xA5]),
            exact(u8s(&[3], &[0, 8, 4])),
        ),
        unary(
            "round_nearest_afz_f32",
            RoundNearestAfz,
            halves.clone(),
            exact(map_f32(&halves, f64::round)),
        ),
        unary(
            "round_nearest_even_f32",
            RoundNearestEven,
            halves.clone(),
            exact(map_f32(&halves, f64::round_ties_even)),
        ),
        unary(
            "rsqrt_f32",
            Rsqrt,
            positive.clone(),
            close(map_f32(&positive, |v| 1.0 / v.sqrt()), TRANSCENDENTAL),
        ),
        unary(
            "sqrt_f32 (negative is NaN)",
            Sqrt,
            f32s(&[5], &[0.0, 2.0, 9.0, 1e-10, -1.0]),
            close(
                map_f32(&f32s(&[5], &[0.0, 2.0, 9.0, 1e-10, -1.0]), f64::sqrt),
                ROUNDED,
            ),
        ),
        unary(
            "sign_f32 (signed zeros and NaN kept)",
            Sign,
            f32s(&[5], &[-2.0, -0.0, 0.0, 3.0, f32::NAN]),
            exact(f32s(&[5], &[-1.0, -0.0, 0.0, 1.0, f32::NAN])),
        ),
        unary(
            "sign_i32",
            Sign,
            i32s(&[4], &[MIN, -5, 0, 7]),
            exact(i32s(&[4], &[-1, -1, 0, 1])),
        ),
    ]
}

pub fn binary_cases() -> Vec<Case> {
    use BinaryOp::*;
    let a = f32s(&[6], &[1.5, -2.0, 0.0, 7.25, -0.5, 1e30]);
    let b = f32s(&[6], &[0.25, 3.0, -0.0, -2.0, -0.5, 1e10]);
    let ia = [MAX, MIN, -7, 7, 0, 100];
    let ib = [1, -1, 2, -2, 3, 7];
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    let bits = [0b1100, -1, MIN, 0x0F0F];
    let other = [0b1010, 0, -1, 0x00FF];
    vec![
        binary(
            "add_f32",
            Add,
            a.clone(),
            b.clone(),
            exact(zip_f32(&a, &b, |x, y| x + y)),
        ),
        binary(
            "add_i32 (wraps)",
            Add,
            i32s(&[6], &ia),
            i32s(&[6], &ib),
            exact(i32s(&[6], &zip_i32(&ia, &ib, i32::wrapping_add))),
        ),
        binary(
            "add_bf16",
            Add,
            bf16s(&[3], &[1.0, 256.0, -0.5]),
            bf16s(&[3], &[0.0078125, 1.0, 0.25]),
            // 1 + 2^-7 is exact in bf16; 256 + 1 rounds to even (256).
            exact(bf16s(&[3], &[1.0078125, 256.0, -0.25])),
        ),
        binary(
            "subtract_f32",
            Subtract,
            a.clone(),
            b.clone(),
            exact(zip_f32(&a, &b, |x, y| x - y)),
        ),
        binary(
            "subtract_i32 (wraps)",
            Subtract,
            i32s(&[6], &ia),
            i32s(&[6], &ib),
            exact(i32s(&[6], &zip_i32(&ia, &ib, i32::wrapping_sub))),
        ),
        binary(
            "multiply_f32",
            Multiply,
            a.clone(),
            b.clone(),
            exact(zip_f32(&a, &b, |x, y| x * y)),
        ),
        binary(
            "multiply_i32 (wraps)",
            Multiply,
            i32s(&[6], &ia),
            i32s(&[6], &ib),
            exact(i32s(&[6], &zip_i32(&ia, &ib, i32::wrapping_mul))),
        ),
        binary(
            "divide_f32 (by zero: infinities and NaN)",
            Divide,
            f32s(&[5], &[7.0, 1.0, -1.0, 0.0, 1.0]),
            f32s(&[5], &[2.0, 0.0, 0.0, 0.0, 3.0]),
            close(f32s(&[5], &[3.5, inf, -inf, nan, 1.0 / 3.0]), ROUNDED),
        ),
        binary(
            "divide_i32 (truncates; x/0 = -1; INT_MIN/-1 = INT_MIN)",
            Divide,
            i32s(&[6], &[-7, 7, 7, -7, 5, MIN]),
            i32s(&[6], &[2, -2, 2, -2, 0, -1]),
            exact(i32s(&[6], &[-3, -3, 3, 3, -1, MIN])),
        ),
        binary(
            "divide_ui32 (x/0 = all ones)",
            Divide,
            u32s(&[2], &[7, 4_000_000_000]),
            u32s(&[2], &[0, 3]),
            exact(u32s(&[2], &[0xFFFF_FFFF, 1_333_333_333])),
        ),
        binary(
            "remainder_f32 (sign of the dividend; x%0 = NaN)",
            Remainder,
            f32s(&[5], &[-7.5, 7.5, 7.5, -7.5, 1.0]),
            f32s(&[5], &[2.0, -2.0, 2.0, -2.0, 0.0]),
            exact(f32s(&[5], &[-1.5, 1.5, 1.5, -1.5, nan])),
        ),
        binary(
            "remainder_i32 (sign of the dividend; x%0 = x; INT_MIN%-1 = 0)",
            Remainder,
            i32s(&[6], &[-7, 7, 7, -7, 5, MIN]),
            i32s(&[6], &[2, -2, 2, -2, 0, -1]),
            exact(i32s(&[6], &[-1, 1, 1, -1, 5, 0])),
        ),
        binary(
            "maximum_f32 (NaN from either side propagates, as the spec says)",
            Maximum,
            f32s(&[4], &[1.0, -2.0, nan, 3.0]),
            f32s(&[4], &[2.0, -3.0, 1.0, nan]),
            // XLA:CPU's fast min/max (its default) would drop a NaN rhs; tpuc compiles with it
            // off (`xla_cpu_enable_fast_min_max`), so the spec's semantics hold.
            exact(f32s(&[4], &[2.0, -2.0, nan, nan])),
        ),
        binary(
            "minimum_f32 (NaN from either side propagates, as the spec says)",
            Minimum,
            f32s(&[4], &[1.0, -2.0, nan, 3.0]),
            f32s(&[4], &[2.0, -3.0, 1.0, nan]),
            // As for `maximum`: NaN propagates from either side.
            exact(f32s(&[4], &[1.0, -3.0, nan, nan])),
        ),
        binary(
            "maximum_i32",
            Maximum,
            i32s(&[6], &ia),
            i32s(&[6], &ib),
            exact(i32s(&[6], &zip_i32(&ia, &ib, i32::max))),
        ),
        binary(
            "minimum_ui32",
            Minimum,
            u32s(&[3], &[0xFFFF_FFFF, 5, 0]),
            u32s(&[3], &[1, 9, 3]),
            exact(u32s(&[3], &[1, 5, 0])),
        ),
        binary(
            "power_f32 (negative base with a fractional exponent is NaN)",
            Power,
            f32s(&[5], &[2.0, -2.0, -2.0, 0.0, 9.0]),
            f32s(&[5], &[3.0, 3.0, 0.5, 0.0, 0.5]),
            close(f32s(&[5], &[8.0, -8.0, nan, 1.0, 3.0]), TRANSCENDENTAL),
        ),
        binary(
            "power_i32 (negative exponents give 0 except for bases ±1)",
            Power,
            i32s(&[6], &[2, -3, 2, 1, -1, 0]),
            i32s(&[6], &[10, 3, -1, -2, -3, 0]),
            exact(i32s(&[6], &[1024, -27, 0, 1, -1, 1])),
        ),
        binary(
            "atan2_f32 (all four quadrants)",
            Atan2,
            f32s(&[5], &[1.0, 1.0, -1.0, -1.0, 0.0]),
            f32s(&[5], &[1.0, -1.0, -1.0, 1.0, -1.0]),
            close(
                f32s(
                    &[5],
                    &[
                        1f32.atan2(1.0),
                        1f32.atan2(-1.0),
                        (-1f32).atan2(-1.0),
                        (-1f32).atan2(1.0),
                        0f32.atan2(-1.0),
                    ],
                ),
                TRANSCENDENTAL,
            ),
        ),
        binary(
            "add_i64 (wraps)",
            Add,
            i64s(&[2], &[i64::MAX, -5]),
            i64s(&[2], &[1, 3]),
            exact(i64s(&[2], &[i64::MIN, -2])),
        ),
        binary(
            "add_f16",
            Add,
            f16s(&[3], &[1.0, 2048.0, 65504.0]),
            f16s(&[3], &[0.5, 1.0, 65504.0]),
            // 2048 + 1 ties to even (2048); 65504 + 65504 overflows to infinity.
            exact(f16s(&[3], &[1.5, 2048.0, f64::INFINITY])),
        ),
        binary(
            "divide_f64",
            Divide,
            f64s(&[2], &[1.0, -2.0]),
            f64s(&[2], &[3.0, 0.0]),
            exact(f64s(&[2], &[1.0 / 3.0, f64::NEG_INFINITY])),
        ),
        binary(
            "add_i1 (logical or, as the spec says; tpuc legalizes XLA's xor away)",
            Add,
            bools(&[4], &[false, false, true, true]),
            bools(&[4], &[false, true, false, true]),
            exact(bools(&[4], &[false, true, true, true])),
        ),
        binary(
            "maximum_complex (lexicographic on (real, imaginary), legalized for XLA)",
            Maximum,
            c64s(
                &[5],
                &[(1.5, 2.5), (1.5, 7.5), (0.0, 1.5), (0.0, 1.5), (-1.0, 9.0)],
            ),
            c64s(
                &[5],
                &[
                    (7.5, 1.5),
                    (1.5, 2.5),
                    (-0.0, 2.5),
                    (0.0, 1.5),
                    (-2.0, -9.0),
                ],
            ),
            // Equal real parts (0 and -0 included) leave it to the imaginary parts.
            exact(c64s(
                &[5],
                &[(7.5, 1.5), (1.5, 7.5), (-0.0, 2.5), (0.0, 1.5), (-1.0, 9.0)],
            )),
        ),
        binary(
            "minimum_complex (lexicographic on (real, imaginary), legalized for XLA)",
            Minimum,
            c64s(
                &[5],
                &[(1.5, 2.5), (1.5, 7.5), (0.0, 1.5), (0.0, 1.5), (-1.0, 9.0)],
            ),
            c64s(
                &[5],
                &[
                    (7.5, 1.5),
                    (1.5, 2.5),
                    (-0.0, 2.5),
                    (0.0, 1.5),
                    (-2.0, -9.0),
                ],
            ),
            exact(c64s(
                &[5],
                &[(1.5, 2.5), (1.5, 2.5), (0.0, 1.5), (0.0, 1.5), (-2.0, -9.0)],
            )),
        ),
        binary(
            "multiply_complex",
            Multiply,
            c64s(&[2], &[(1.0, 2.0), (0.0, 1.0)]),
            c64s(&[2], &[(3.0, -1.0), (0.0, 1.0)]),
            // (1 + 2i)(3 - i) = 5 + 5i; i * i = -1.
            exact(c64s(&[2], &[(5.0, 5.0), (-1.0, 0.0)])),
        ),
        binary(
            "remainder_ui32",
            Remainder,
            u32s(&[2], &[0xFFFF_FFFF, 7]),
            u32s(&[2], &[10, 0]),
            exact(u32s(&[2], &[5, 7])),
        ),
        binary(
            "shift_right_logical_ui8",
            ShiftRightLogical,
            u8s(&[3], &[0x80, 0xFF, 0x10]),
            u8s(&[3], &[7, 4, 9]),
            exact(u8s(&[3], &[1, 0x0F, 0])),
        ),
        binary(
            "complex_f32",
            Complex,
            f32s(&[2], &[1.5, -0.0]),
            f32s(&[2], &[-2.0, 3.0]),
            exact(c64s(&[2], &[(1.5, -2.0), (-0.0, 3.0)])),
        ),
        binary(
            "and_i32",
            And,
            i32s(&[4], &bits),
            i32s(&[4], &other),
            exact(i32s(&[4], &zip_i32(&bits, &other, |x, y| x & y))),
        ),
        binary(
            "or_i32",
            Or,
            i32s(&[4], &bits),
            i32s(&[4], &other),
            exact(i32s(&[4], &zip_i32(&bits, &other, |x, y| x | y))),
        ),
        binary(
            "xor_i32",
            Xor,
            i32s(&[4], &bits),
            i32s(&[4], &other),
            exact(i32s(&[4], &zip_i32(&bits, &other, |x, y| x ^ y))),
        ),
        binary(
            "and_i1",
            And,
            bools(&[4], &[true, true, false, false]),
            bools(&[4], &[true, false, true, false]),
            exact(bools(&[4], &[true, false, false, false])),
        ),
        binary(
            "or_i1",
            Or,
            bools(&[4], &[true, true, false, false]),
            bools(&[4], &[true, false, true, false]),
            exact(bools(&[4], &[true, true, true, false])),
        ),
        binary(
            "xor_ui8",
            Xor,
            u8s(&[2], &[0xF0, 0xAA]),
            u8s(&[2], &[0xFF, 0x0F]),
            exact(u8s(&[2], &[0x0F, 0xA5])),
        ),
        binary(
            "shift_left_i32 (amounts >= 32 or negative give 0)",
            ShiftLeft,
            i32s(&[5], &[1, 1, 3, 1, -1]),
            i32s(&[5], &[4, 31, 32, -1, 1]),
            exact(i32s(&[5], &[16, MIN, 0, 0, -2])),
        ),
        binary(
            "shift_right_arithmetic_i32 (large amounts fill with the sign)",
            ShiftRightArithmetic,
            i32s(&[5], &[-8, 8, -8, 8, MIN]),
            i32s(&[5], &[1, 1, 40, 40, 31]),
            exact(i32s(&[5], &[-4, 4, -1, 0, -1])),
        ),
        binary(
            "shift_right_logical_i32 (large amounts give 0)",
            ShiftRightLogical,
            i32s(&[4], &[-8, 8, -8, MIN]),
            i32s(&[4], &[1, 1, 32, 31]),
            exact(i32s(&[4], &[0x7FFF_FFFC, 4, 0, 1])),
        ),
    ]
}

/// Every direction of one comparison type in one module: six `tensor<i1>` outputs.
fn compare_all(
    name: &str,
    compare_type: ComparisonType,
    lhs: Host,
    rhs: Host,
    reference: impl Fn(Scalar, Scalar, ComparisonDirection) -> bool,
) -> Case {
    let (ls, rs) = (lhs.scalars(), rhs.scalars());
    let shape: Vec<u64> = lhs.ty.static_shape().unwrap();
    let expected = ComparisonDirection::ALL
        .iter()
        .map(|&direction| {
            let values: Vec<bool> = ls
                .iter()
                .zip(&rs)
                .map(|(&l, &r)| reference(l, r, direction))
                .collect();
            exact(bools(&shape, &values))
        })
        .collect();
    case(name, vec![lhs, rhs], expected, move |b, a| {
        ComparisonDirection::ALL
            .iter()
            .map(|&direction| b.compare_with_type(direction, Some(compare_type), a[0], a[1]))
            .collect()
    })
}

fn ordering_holds(ordering: Option<std::cmp::Ordering>, direction: ComparisonDirection) -> bool {
    use ComparisonDirection::*;
    use std::cmp::Ordering::*;
    match (ordering, direction) {
        (None, Ne) => true,
        (None, _) => false,
        (Some(o), Eq) => o == Equal,
        (Some(o), Ne) => o != Equal,
        (Some(o), Ge) => o != Less,
        (Some(o), Gt) => o == Greater,
        (Some(o), Le) => o != Greater,
        (Some(o), Lt) => o == Less,
    }
}

pub fn other_cases() -> Vec<Case> {
    let fl = f32s(&[6], &[1.0, 2.0, f32::NAN, -0.0, 3.0, f32::NAN]);
    let fr = f32s(&[6], &[2.0, 2.0, 1.0, 0.0, f32::NAN, f32::NAN]);
    let f32_of = |s: Scalar| s.as_f64() as f32;
    let int = |s: Scalar| match s {
        Scalar::Int(v) => v,
        other => panic!("{other:?}"),
    };
    let mut cases = vec![
        compare_all(
            "compare FLOAT (NaN is unordered, -0 == 0)",
            ComparisonType::Float,
            fl.clone(),
            fr.clone(),
            move |l, r, d| ordering_holds(f32_of(l).partial_cmp(&f32_of(r)), d),
        ),
        compare_all(
            "compare TOTALORDER (-0 < 0, NaN above everything)",
            ComparisonType::TotalOrder,
            fl,
            fr,
            move |l, r, d| ordering_holds(Some(f32_of(l).total_cmp(&f32_of(r))), d),
        ),
        case(
            "compare without a comparison type",
            vec![i32s(&[3], &[1, 2, 3]), i32s(&[3], &[3, 2, 1])],
            vec![exact(bools(&[3], &[true, true, false]))],
            |b, a| {
                Ok(vec![b.compare_with_type(
                    ComparisonDirection::Le,
                    None,
                    a[0],
                    a[1],
                )?])
            },
        ),
        compare_all(
            "compare SIGNED",
            ComparisonType::Signed,
            i32s(&[4], &[-1, 0, 5, MIN]),
            i32s(&[4], &[1, 0, 3, MAX]),
            move |l, r, d| ordering_holds(int(l).partial_cmp(&int(r)), d),
        ),
        compare_all(
            "compare UNSIGNED",
            ComparisonType::Unsigned,
            u32s(&[4], &[0xFFFF_FFFF, 0, 5, 7]),
            u32s(&[4], &[1, 0, 3, 0x8000_0000]),
            move |l, r, d| ordering_holds(int(l).partial_cmp(&int(r)), d),
        ),
        case(
            "select (tensor predicate)",
            vec![
                bools(&[4], &[true, false, true, false]),
                f32s(&[4], &[1.0, 2.0, 3.0, 4.0]),
                f32s(&[4], &[-1.0, -2.0, -3.0, -4.0]),
            ],
            vec![exact(f32s(&[4], &[1.0, -2.0, 3.0, -4.0]))],
            |b, a| Ok(vec![b.select(a[0], a[1], a[2])?]),
        ),
        case(
            "select (scalar predicate)",
            vec![
                bools(&[], &[false]),
                i32s(&[2, 2], &[1, 2, 3, 4]),
                i32s(&[2, 2], &[5, 6, 7, 8]),
            ],
            vec![exact(i32s(&[2, 2], &[5, 6, 7, 8]))],
            |b, a| Ok(vec![b.select(a[0], a[1], a[2])?]),
        ),
        case(
            "clamp (scalar bounds)",
            vec![
                f32s(&[], &[-1.0]),
                f32s(&[5], &[-3.0, -1.0, 0.5, 1.0, 9.0]),
                f32s(&[], &[1.0]),
            ],
            vec![exact(f32s(&[5], &[-1.0, -1.0, 0.5, 1.0, 1.0]))],
            |b, a| Ok(vec![b.clamp(a[0], a[1], a[2])?]),
        ),
        case(
            "clamp (tensor bounds, i32)",
            vec![
                i32s(&[3], &[0, 0, 5]),
                i32s(&[3], &[-4, 4, 4]),
                i32s(&[3], &[2, 3, 10]),
            ],
            vec![exact(i32s(&[3], &[0, 3, 5]))],
            |b, a| Ok(vec![b.clamp(a[0], a[1], a[2])?]),
        ),
    ];
    cases.extend(convert_cases());
    cases.extend(constant_cases());
    cases
}

fn convert(name: &str, input: Host, to: ElementType, expected: Host) -> Case {
    case(name, vec![input], vec![exact(expected)], move |b, a| {
        Ok(vec![b.convert(a[0], to)?])
    })
}

fn convert_cases() -> Vec<Case> {
    vec![
        convert(
            "convert f32 -> i32 (truncates toward zero)",
            f32s(&[5], &[-2.7, -0.5, 0.0, 2.7, 1e6]),
            ElementType::I32,
            i32s(&[5], &[-2, 0, 0, 2, 1_000_000]),
        ),
        convert(
            "convert i32 -> f32 (rounds to nearest even)",
            i32s(&[3], &[16_777_217, -3, 16_777_219]),
            ElementType::F32,
            f32s(&[3], &[16_777_216.0, -3.0, 16_777_220.0]),
        ),
        convert(
            "convert f32 -> bf16 (rounds to nearest even)",
            // 1 + 2^-8 is halfway between two bf16 values (ties to even: 1); 1 + 3 * 2^-8 rounds up.
            f32s(&[4], &[1.0 + 1.0 / 256.0, 1.0 + 3.0 / 256.0, -3.0, 65504.0]),
            ElementType::BF16,
            bf16s(&[4], &[1.0, 1.015625, -3.0, 65536.0]),
        ),
        convert(
            "convert bf16 -> f32 (exact)",
            bf16s(&[3], &[1.015625, -0.0, 3.389_531_4e38]),
            ElementType::F32,
            f32s(&[3], &[1.015625, -0.0, f32::from_bits(0x7F7F_0000)]),
        ),
        convert(
            "convert f32 -> i1 (nonzero is true)",
            f32s(&[3], &[0.0, -0.5, 2.0]),
            ElementType::I1,
            bools(&[3], &[false, true, true]),
        ),
        convert(
            "convert i1 -> f32",
            bools(&[2], &[true, false]),
            ElementType::F32,
            f32s(&[2], &[1.0, 0.0]),
        ),
        convert(
            "convert i64 -> i8 (wraps)",
            i64s(&[3], &[300, -129, 5]),
            ElementType::I8,
            i8s(&[3], &[44, 127, 5]),
        ),
        convert(
            "convert f64 -> f32",
            f64s(&[2], &[0.1, -1e300]),
            ElementType::F32,
            f32s(&[2], &[0.1, f32::NEG_INFINITY]),
        ),
        convert(
            "convert f32 -> f16",
            f32s(&[3], &[0.1, 65520.0, -2.0]),
            ElementType::F16,
            f16s(&[3], &[0.1, f64::INFINITY, -2.0]),
        ),
        convert(
            "convert f32 -> complex<f32> (zero imaginary part)",
            f32s(&[2], &[1.5, -0.0]),
            ElementType::ComplexF32,
            c64s(&[2], &[(1.5, 0.0), (-0.0, 0.0)]),
        ),
        convert(
            "convert complex<f32> -> f32 (the imaginary part is dropped)",
            c64s(&[3], &[(1.5, 2.0), (-0.0, 1.0), (-3.25, -7.0)]),
            ElementType::F32,
            f32s(&[3], &[1.5, -0.0, -3.25]),
        ),
        convert(
            "convert complex<f32> -> i32 (the real part, truncated)",
            c64s(&[3], &[(2.7, 9.0), (-2.7, 0.0), (0.0, 1.0)]),
            ElementType::I32,
            i32s(&[3], &[2, -2, 0]),
        ),
        convert(
            "convert complex<f32> -> i1 (the real part is nonzero)",
            c64s(&[3], &[(0.0, 1.0), (-1.0, 0.0), (0.5, 0.0)]),
            ElementType::I1,
            bools(&[3], &[false, true, true]),
        ),
        convert(
            "convert ui32 -> f32",
            u32s(&[2], &[0xFFFF_FFFF, 1]),
            ElementType::F32,
            f32s(&[2], &[4_294_967_296.0, 1.0]),
        ),
        case(
            "bitcast_convert f32 -> ui32",
            vec![f32s(&[3], &[1.0, -0.0, f32::INFINITY])],
            vec![exact(u32s(&[3], &[0x3F80_0000, 0x8000_0000, 0x7F80_0000]))],
            |b, a| {
                Ok(vec![b.bitcast_convert(
                    a[0],
                    TensorType::of(&[3], ElementType::UI32),
                )?])
            },
        ),
        case(
            "bitcast_convert ui32 -> ui8 (adds a minor dimension, little-endian)",
            vec![u32s(&[2], &[0x0403_0201, 0xDDCC_BBAA])],
            vec![exact(u8s(
                &[2, 4],
                &[0x01, 0x02, 0x03, 0x04, 0xAA, 0xBB, 0xCC, 0xDD],
            ))],
            |b, a| {
                Ok(vec![b.bitcast_convert(
                    a[0],
                    TensorType::of(&[2, 4], ElementType::UI8),
                )?])
            },
        ),
        case(
            "bitcast_convert f64 -> i64",
            vec![f64s(&[2], &[1.0, -2.0])],
            vec![exact(i64s(
                &[2],
                &[0x3FF0_0000_0000_0000, 0xC000_0000_0000_0000_u64 as i64],
            ))],
            |b, a| {
                Ok(vec![b.bitcast_convert(
                    a[0],
                    TensorType::of(&[2], ElementType::I64),
                )?])
            },
        ),
        case(
            "bitcast_convert i16 x 2 -> f32 (removes the minor dimension)",
            vec![i16s(&[1, 2], &[0, 0x3F80])],
            vec![exact(f32s(&[1], &[1.0]))],
            |b, a| {
                Ok(vec![b.bitcast_convert(
                    a[0],
                    TensorType::of(&[1], ElementType::F32),
                )?])
            },
        ),
        case(
            "reduce_precision f32 to e5m10 (f16's range and precision, kept in f32)",
            vec![f32s(&[5], &[0.1, 65520.0, 1e-8, -2.5, f32::NAN])],
            vec![exact(f32s(
                &[5],
                &[0.099_975_586, f32::INFINITY, 0.0, -2.5, f32::NAN],
            ))],
            |b, a| Ok(vec![b.reduce_precision(a[0], 5, 10)?]),
        ),
        case(
            "reduce_precision f64 to e8m7 (bf16, ties to even)",
            vec![f64s(&[3], &[1.0 + 1.0 / 256.0, 1.0 + 3.0 / 256.0, 1e39])],
            // 1e39 is beyond e8m7's largest value (about 3.39e38): infinity.
            vec![exact(f64s(&[3], &[1.0, 1.015_625, f64::INFINITY]))],
            |b, a| Ok(vec![b.reduce_precision(a[0], 8, 7)?]),
        )
        // TPUs have no f64; libtpu rewrites f64 ops, but not this one.
        .tpu(Tpu::Rejects(
            "XLA encountered an HLO for which this rewriting is not implemented",
        )),
        case(
            "bitcast_convert ui8 -> 8 x i1 (one bit each, least significant first; legalized)",
            vec![u8s(&[2], &[0b1000_0101, 0xF0])],
            vec![exact(bools(
                &[2, 8],
                &[
                    true, false, true, false, false, false, false, true, //
                    false, false, false, false, true, true, true, true,
                ],
            ))],
            |b, a| {
                Ok(vec![b.bitcast_convert(
                    a[0],
                    TensorType::of(&[2, 8], ElementType::I1),
                )?])
            },
        ),
        case(
            "bitcast_convert 32 x i1 -> f32 (legalized)",
            vec![bools(
                &[32],
                &(0..32)
                    .map(|i| (0x3F80_0001u32 >> i) & 1 == 1)
                    .collect::<Vec<_>>(),
            )],
            vec![exact(f32s(&[], &[f32::from_bits(0x3F80_0001)]))],
            |b, a| {
                Ok(vec![b.bitcast_convert(
                    a[0],
                    TensorType::of(&[], ElementType::F32),
                )?])
            },
        ),
    ]
}

/// Constants of several element types, dense and splat, and iota.
fn constant_cases() -> Vec<Case> {
    let table: Vec<(&str, Host)> = vec![
        (
            "f32 dense",
            f32s(&[2, 2], &[1.0, -2.5, 3.0e-8, f32::INFINITY]),
        ),
        ("f32 splat", f32s(&[3], &[0.1, 0.1, 0.1])),
        ("f32 NaN splat", f32s(&[2], &[f32::NAN, f32::NAN])),
        ("f64 dense", f64s(&[3], &[0.1, 1.0 / 3.0, -1e300])),
        ("bf16 dense", bf16s(&[3], &[0.1, 1.0 / 3.0, -2.0])),
        ("f16 dense", f16s(&[3], &[0.1, 65504.0, 6.0e-8])),
        ("i1 dense", bools(&[4], &[true, false, false, true])),
        ("i1 splat", bools(&[2], &[true, true])),
        ("i8 dense", i8s(&[4], &[-128, 127, 0, -1])),
        ("i32 splat", i32s(&[2, 3], &[7; 6])),
        ("i64 dense", i64s(&[3], &[i64::MIN, 0, i64::MAX])),
        ("ui64 dense", u64s(&[2], &[u64::MAX, 42])),
        ("ui32 scalar", u32s(&[], &[0xFFFF_FFFF])),
        (
            "complex<f32> dense",
            c64s(&[2], &[(1.5, -0.25), (0.0, 2.0)]),
        ),
        ("f32 negative zero splat", f32s(&[2], &[-0.0, -0.0])),
        (
            "f64 specials",
            f64s(&[4], &[f64::NAN, -0.0, f64::NEG_INFINITY, 5e-324]),
        ),
        ("i16 dense", i16s(&[3], &[-32768, 32767, -1])),
        ("i32 without elements", i32s(&[2, 0], &[])),
        ("i2 dense", host_int(&[4], ElementType::I2, &[1, 0, -1, -2])),
        ("ui2 dense", host_int(&[4], ElementType::UI2, &[0, 1, 2, 3])),
        (
            "f4E2M1FN dense (6 is its largest value)",
            host_of(&[4], ElementType::F4E2M1FN, &[0.5, 6.0, -1.5, 0.0]),
        ),
        (
            "f8E3M4 dense",
            host_of(&[3], ElementType::F8E3M4, &[0.1, 15.5, f64::NEG_INFINITY]),
        ),
        (
            "f8E4M3 dense",
            host_of(&[3], ElementType::F8E4M3, &[0.1, 240.0, f64::NAN]),
        ),
        (
            "f8E8M0FNU dense (powers of two)",
            host_of(&[3], ElementType::F8E8M0FNU, &[1.0, 0.125, 2f64.powi(127)]),
        ),
        ("f32 without elements", f32s(&[2, 0, 3], &[])),
        (
            "f8E4M3FN dense (448 is its largest value)",
            host_of(&[4], ElementType::F8E4M3FN, &[0.1, 448.0, -2.0, f64::NAN]),
        ),
        (
            "f8E5M2 dense",
            host_of(
                &[3],
                ElementType::F8E5M2,
                &[0.1, 57344.0, f64::NEG_INFINITY],
            ),
        ),
        (
            "bf16 large dense (printed as hex)",
            bf16s(
                &[150],
                &(0..150)
                    .map(|i| f64::from(i) * 0.5 - 30.0)
                    .collect::<Vec<_>>(),
            ),
        ),
        (
            "i32 large dense (printed as hex)",
            i32s(
                &[150],
                &(0..150).map(|i| i * 1000 - 70_000).collect::<Vec<_>>(),
            ),
        ),
        (
            "f32 large dense",
            f32s(
                &[40],
                &(0..40).map(|i| i as f32 * 0.25 - 3.0).collect::<Vec<_>>(),
            ),
        ),
    ];
    let mut cases: Vec<Case> = table
        .into_iter()
        .map(|(name, value)| {
            let ty = value.ty.clone();
            let data = DenseElements::from_bytes(&ty, value.bytes.clone());
            // libtpu aborts the process on a dense 2-bit integer constant.
            let two_bits = ty.element.bit_width() == 2;
            let case = case(
                format!("constant {name}"),
                Vec::new(),
                vec![exact(value)],
                move |b, _| Ok(vec![b.constant(ty, data?)?]),
            );
            if two_bits {
                case.tpu(Tpu::Aborts)
            } else {
                case
            }
        })
        .collect();
    cases.push(case(
        "iota i32 along dimension 1",
        Vec::new(),
        vec![exact(i32s(&[2, 3], &[0, 1, 2, 0, 1, 2]))],
        |b, _| Ok(vec![b.iota(TensorType::of(&[2, 3], ElementType::I32), 1)?]),
    ));
    cases.push(case(
        "iota f32 along dimension 0",
        Vec::new(),
        vec![exact(f32s(&[3, 2], &[0.0, 0.0, 1.0, 1.0, 2.0, 2.0]))],
        |b, _| Ok(vec![b.iota(TensorType::of(&[3, 2], ElementType::F32), 0)?]),
    ));
    cases
}
