//! Elementwise ops: operands and results share one shape, so cotangents do too.

use tpuc_ir::{BinaryOp, ChloUnaryOp, ComparisonDirection, OpBuilder, UnaryOp, Value};

use super::{Cotangents, Refusal, ir, splat_like, tensor_type};

pub(super) fn unary(
    b: &mut OpBuilder<'_>,
    op: UnaryOp,
    x: Value,
    y: Value,
    g: Value,
) -> Result<Option<Value>, Refusal> {
    let product = |b: &mut OpBuilder<'_>, factor: Value| b.multiply(g, factor).map_err(ir);
    let cotangent = match op {
        UnaryOp::Negate => b.negate(g).map_err(ir)?,
        UnaryOp::Exponential => product(b, y)?,
        UnaryOp::ExponentialMinusOne => {
            let one = splat_like(b, y, 1.0)?;
            let e = b.add(y, one).map_err(ir)?;
            product(b, e)?
        }
        UnaryOp::Log => b.divide(g, x).map_err(ir)?,
        UnaryOp::LogPlusOne => {
            let one = splat_like(b, x, 1.0)?;
            let shifted = b.add(x, one).map_err(ir)?;
            b.divide(g, shifted).map_err(ir)?
        }
        UnaryOp::Logistic => {
            let one = splat_like(b, y, 1.0)?;
            let complement = b.subtract(one, y).map_err(ir)?;
            let slope = b.multiply(y, complement).map_err(ir)?;
            product(b, slope)?
        }
        UnaryOp::Tanh => {
            let one = splat_like(b, y, 1.0)?;
            let square = b.multiply(y, y).map_err(ir)?;
            let slope = b.subtract(one, square).map_err(ir)?;
            product(b, slope)?
        }
        UnaryOp::Sqrt => {
            let two = splat_like(b, y, 2.0)?;
            let twice = b.multiply(two, y).map_err(ir)?;
            b.divide(g, twice).map_err(ir)?
        }
        UnaryOp::Rsqrt => {
            // d/dx x^(-1/2) = -1/2 y^3
            let half = splat_like(b, y, -0.5)?;
            let square = b.multiply(y, y).map_err(ir)?;
            let cube = b.multiply(square, y).map_err(ir)?;
            let slope = b.multiply(half, cube).map_err(ir)?;
            product(b, slope)?
        }
        UnaryOp::Cbrt => {
            let three = splat_like(b, x, 3.0)?;
            let thrice = b.multiply(three, x).map_err(ir)?;
            let slope = b.divide(y, thrice).map_err(ir)?;
            product(b, slope)?
        }
        UnaryOp::Sine => {
            let cos = b.cosine(x).map_err(ir)?;
            product(b, cos)?
        }
        UnaryOp::Cosine => {
            let sin = b.sine(x).map_err(ir)?;
            let minus = b.negate(sin).map_err(ir)?;
            product(b, minus)?
        }
        UnaryOp::Tan => {
            let one = splat_like(b, y, 1.0)?;
            let square = b.multiply(y, y).map_err(ir)?;
            let slope = b.add(one, square).map_err(ir)?;
            product(b, slope)?
        }
        UnaryOp::Abs => {
            let sign = b.sign(x).map_err(ir)?;
            product(b, sign)?
        }
        UnaryOp::Sign
        | UnaryOp::Floor
        | UnaryOp::Ceil
        | UnaryOp::RoundNearestAfz
        | UnaryOp::RoundNearestEven => return Ok(None),
        other => return Err(format!("`{}` has no derivative rule", other.name())),
    };
    Ok(Some(cotangent))
}

pub(super) fn chlo_unary(
    b: &mut OpBuilder<'_>,
    op: ChloUnaryOp,
    x: Value,
    g: Value,
) -> Result<Option<Value>, Refusal> {
    match op {
        ChloUnaryOp::Erf => {
            // d/dx erf(x) = 2/sqrt(pi) exp(-x^2)
            let square = b.multiply(x, x).map_err(ir)?;
            let minus = b.negate(square).map_err(ir)?;
            let exp = b.exponential(minus).map_err(ir)?;
            let scale = splat_like(b, x, std::f64::consts::FRAC_2_SQRT_PI)?;
            let slope = b.multiply(scale, exp).map_err(ir)?;
            Ok(Some(b.multiply(g, slope).map_err(ir)?))
        }
        other => Err(format!("`{}` has no derivative rule", other.name())),
    }
}

pub(super) fn binary(
    b: &mut OpBuilder<'_>,
    op: BinaryOp,
    x: &[Value],
    y: Value,
    g: Value,
    active: &[bool],
) -> Result<Cotangents, Refusal> {
    let (lhs, rhs) = (x[0], x[1]);
    let (lhs_cotangent, rhs_cotangent) = match op {
        BinaryOp::Add => (Some(g), Some(g)),
        BinaryOp::Subtract => (Some(g), Some(b.negate(g).map_err(ir)?)),
        BinaryOp::Multiply => (
            active[0]
                .then(|| b.multiply(g, rhs))
                .transpose()
                .map_err(ir)?,
            active[1]
                .then(|| b.multiply(lhs, g))
                .transpose()
                .map_err(ir)?,
        ),
        BinaryOp::Divide => {
            let lhs_cotangent = b.divide(g, rhs).map_err(ir)?;
            let rhs_cotangent = if active[1] {
                let quotient = b.multiply(g, y).map_err(ir)?;
                let over = b.divide(quotient, rhs).map_err(ir)?;
                Some(b.negate(over).map_err(ir)?)
            } else {
                None
            };
            (Some(lhs_cotangent), rhs_cotangent)
        }
        BinaryOp::Maximum => extremum(b, lhs, rhs, g, ComparisonDirection::Gt)?,
        BinaryOp::Minimum => extremum(b, lhs, rhs, g, ComparisonDirection::Lt)?,
        BinaryOp::Power => {
            let lhs_cotangent = if active[0] {
                // d/dx x^p = p x^(p-1)
                let one = splat_like(b, rhs, 1.0)?;
                let lowered = b.subtract(rhs, one).map_err(ir)?;
                let power = b.power(lhs, lowered).map_err(ir)?;
                let slope = b.multiply(rhs, power).map_err(ir)?;
                Some(b.multiply(g, slope).map_err(ir)?)
            } else {
                None
            };
            let rhs_cotangent = if active[1] {
                // d/dp x^p = x^p log x (zero where x is zero, as JAX and torch take it)
                let zero = splat_like(b, lhs, 0.0)?;
                let positive = b.compare(ComparisonDirection::Gt, lhs, zero).map_err(ir)?;
                let one = splat_like(b, lhs, 1.0)?;
                let safe = b.select(positive, lhs, one).map_err(ir)?;
                let log = b.log(safe).map_err(ir)?;
                let slope = b.multiply(y, log).map_err(ir)?;
                Some(b.multiply(g, slope).map_err(ir)?)
            } else {
                None
            };
            (lhs_cotangent, rhs_cotangent)
        }
        BinaryOp::Atan2 => {
            let lhs_square = b.multiply(lhs, lhs).map_err(ir)?;
            let rhs_square = b.multiply(rhs, rhs).map_err(ir)?;
            let norm = b.add(lhs_square, rhs_square).map_err(ir)?;
            let over = b.divide(g, norm).map_err(ir)?;
            let lhs_cotangent = b.multiply(over, rhs).map_err(ir)?;
            let rhs_cotangent = b.multiply(over, lhs).map_err(ir)?;
            (
                Some(lhs_cotangent),
                Some(b.negate(rhs_cotangent).map_err(ir)?),
            )
        }
        BinaryOp::Remainder => {
            // x - trunc(x / y) y (C's fmod): d/dy = -trunc(x / y), the quotient rounded toward
            // zero as PyTorch's fmod backward takes it. torch.remainder's floor adjustment
            // (adding y where the signs differ) is an `add` and a `select` around this op.
            let rhs_cotangent = if active[1] {
                let quotient = b.divide(lhs, rhs).map_err(ir)?;
                let magnitude = b.abs(quotient).map_err(ir)?;
                let whole = b.floor(magnitude).map_err(ir)?;
                let sign = b.sign(quotient).map_err(ir)?;
                let truncated = b.multiply(sign, whole).map_err(ir)?;
                let product = b.multiply(g, truncated).map_err(ir)?;
                Some(b.negate(product).map_err(ir)?)
            } else {
                None
            };
            (Some(g), rhs_cotangent)
        }
        other => return Err(format!("`{}` has no derivative rule", other.name())),
    };
    Ok(vec![lhs_cotangent, rhs_cotangent])
}

/// `maximum`/`minimum` as PyTorch differentiates them: the cotangent goes to the operand
/// that wins, half to each on a tie.
fn extremum(
    b: &mut OpBuilder<'_>,
    lhs: Value,
    rhs: Value,
    g: Value,
    wins: ComparisonDirection,
) -> Result<(Option<Value>, Option<Value>), Refusal> {
    let zero = splat_like(b, g, 0.0)?;
    let half = splat_like(b, g, 0.5)?;
    let halved = b.multiply(g, half).map_err(ir)?;
    let tie = b.compare(ComparisonDirection::Eq, lhs, rhs).map_err(ir)?;
    let on_tie = b.select(tie, halved, zero).map_err(ir)?;
    let lhs_wins = b.compare(wins, lhs, rhs).map_err(ir)?;
    let rhs_wins = b.compare(wins, rhs, lhs).map_err(ir)?;
    let lhs_cotangent = b.select(lhs_wins, g, on_tie).map_err(ir)?;
    let rhs_cotangent = b.select(rhs_wins, g, on_tie).map_err(ir)?;
    Ok((Some(lhs_cotangent), Some(rhs_cotangent)))
}

pub(super) fn select(b: &mut OpBuilder<'_>, x: &[Value], g: Value) -> Result<Cotangents, Refusal> {
    let zero = splat_like(b, g, 0.0)?;
    let on_true = b.select(x[0], g, zero).map_err(ir)?;
    let on_false = b.select(x[0], zero, g).map_err(ir)?;
    Ok(vec![None, Some(on_true), Some(on_false)])
}

/// `clamp(min, x, max)`: the cotangent passes where `min <= x <= max` (PyTorch's rule), else
/// goes to the bound that clamped.
pub(super) fn clamp(
    b: &mut OpBuilder<'_>,
    x: &[Value],
    g: Value,
    active: &[bool],
) -> Result<Cotangents, Refusal> {
    let (min, operand, max) = (x[0], x[1], x[2]);
    let scalar_bound = |b: &OpBuilder<'_>, bound: Value| -> Result<bool, Refusal> {
        Ok(tensor_type(b, bound)?.rank() == 0 && tensor_type(b, operand)?.rank() != 0)
    };
    if (active[0] && scalar_bound(b, min)?) || (active[2] && scalar_bound(b, max)?) {
        return Err("a scalar bound of `clamp` that depends on a parameter".into());
    }
    let zero = splat_like(b, g, 0.0)?;
    let min = broadcast_bound(b, min, operand)?;
    let max = broadcast_bound(b, max, operand)?;
    let above = b
        .compare(ComparisonDirection::Ge, operand, min)
        .map_err(ir)?;
    let below = b
        .compare(ComparisonDirection::Le, operand, max)
        .map_err(ir)?;
    let inside = b.and(above, below).map_err(ir)?;
    let passed = b.select(inside, g, zero).map_err(ir)?;
    let low = b
        .compare(ComparisonDirection::Lt, operand, min)
        .map_err(ir)?;
    let high = b
        .compare(ComparisonDirection::Gt, operand, max)
        .map_err(ir)?;
    let to_min = active[0]
        .then(|| b.select(low, g, zero))
        .transpose()
        .map_err(ir)?;
    let to_max = active[2]
        .then(|| b.select(high, g, zero))
        .transpose()
        .map_err(ir)?;
    Ok(vec![to_min, Some(passed), to_max])
}

fn broadcast_bound(b: &mut OpBuilder<'_>, bound: Value, like: Value) -> Result<Value, Refusal> {
    let bound_type = tensor_type(b, bound)?;
    let like_type = tensor_type(b, like)?;
    if bound_type.rank() == like_type.rank() {
        return Ok(bound);
    }
    b.broadcast_in_dim(bound, &[], like_type.shape.clone())
        .map_err(ir)
}

/// A float conversion: the cotangent converted back; none for integer operands.
pub(super) fn convert(b: &mut OpBuilder<'_>, x: Value, g: Value) -> Result<Option<Value>, Refusal> {
    let element = tensor_type(b, x)?.element;
    if !element.is_float() {
        return Ok(None);
    }
    Ok(Some(b.convert(g, element).map_err(ir)?))
}
