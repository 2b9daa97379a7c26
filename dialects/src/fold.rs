//! The fold hook: what an op computes when its result is one of its operands or a constant
//! that can be worked out at compile time.

use crate::attr::{ComparisonDirection, ComparisonType};
use crate::dense::{DenseElements, ElementValue};
use crate::op::{BinaryOp, FoldKind, OpKind, UnaryOp};
use crate::types::{ElementType, TensorType, Type};

/// The most elements a fold materialises in a non-splat constant.
pub const FOLD_ELEMENT_LIMIT: u64 = 65_536;

/// What the folder knows of one operand.
#[derive(Clone, Copy, Debug)]
pub struct FoldOperand<'a> {
    pub ty: &'a Type,
    /// The data, when the operand is a `stablehlo.constant`.
    pub constant: Option<&'a DenseElements>,
}

/// The value an op folds to.
#[derive(Clone, Debug, PartialEq)]
pub enum Folded {
    /// Its operand at this index.
    Operand(usize),
    Constant(DenseElements),
}

/// Operands that are all constants, and a result small enough to materialise.
struct ConstantInputs {
    all_splat: bool,
    /// The result's element count.
    count: u64,
}

impl ConstantInputs {
    fn of(operands: &[FoldOperand<'_>], result: &TensorType) -> Option<Self> {
        if operands.is_empty() || operands.iter().any(|o| o.constant.is_none()) {
            return None;
        }
        let count = result.num_elements()?;
        let all_splat = operands
            .iter()
            .all(|o| o.constant.is_some_and(|c| c.is_splat()));
        // A dense result never holds more elements than a dense operand: folding moves or
        // computes data, it does not grow it (a broadcast stays cheaper than the array it makes).
        let largest = operands
            .iter()
            .filter_map(|o| Some((o.constant?, o.ty.as_tensor()?.element)))
            .filter(|(c, _)| !c.is_splat())
            .map(|(c, element)| c.stored_len(element) as u64)
            .max();
        if !all_splat && (count > FOLD_ELEMENT_LIMIT || largest.is_some_and(|n| count > n)) {
            return None;
        }
        Some(Self { all_splat, count })
    }
}

/// An element as the folder computes with it.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
enum Num {
    Bool(bool),
    Int(i128),
    Float(f64),
}

impl OpKind {
    /// Folds a single-result op, if it can be.
    pub fn fold(&self, operands: &[FoldOperand<'_>], result: &Type) -> Option<Folded> {
        let result = result.as_tensor()?;
        let to_operand = || Some(Folded::Operand(self.fold_to_operand(operands, result)?));
        let constant = |data: Option<DenseElements>| Some(Folded::Constant(data?));
        match self.opcode().fold_kind() {
            FoldKind::None => None,
            FoldKind::Identity => to_operand(),
            FoldKind::Elementwise => to_operand().or_else(|| {
                let inputs = ConstantInputs::of(operands, result)?;
                let count = if inputs.all_splat { 1 } else { inputs.count };
                constant(self.fold_elementwise(operands, result, count))
            }),
            FoldKind::Layout => to_operand().or_else(|| {
                let inputs = ConstantInputs::of(operands, result)?;
                constant(self.fold_layout(operands, result, inputs.all_splat))
            }),
        }
    }

    /// Identities: `x * 1`, an identity reshape, a select on a constant predicate, ...
    fn fold_to_operand(&self, operands: &[FoldOperand<'_>], result: &TensorType) -> Option<usize> {
        let same_type = |i: usize| operands.get(i).and_then(|o| o.ty.as_tensor()) == Some(result);
        match self {
            Self::Reshape | Self::Convert | Self::BitcastConvert if same_type(0) => Some(0),
            Self::Transpose { permutation } if is_identity(permutation) && same_type(0) => Some(0),
            Self::BroadcastInDim { dims } if is_identity(dims) && same_type(0) => Some(0),
            Self::Select => {
                let pred = splat_num(&operands[0])?;
                let pick = if pred == Num::Bool(true) { 1 } else { 2 };
                same_type(pick).then_some(pick)
            }
            Self::Binary(op) => {
                let is = |i: usize, v: f64| splat_num(&operands[i]).is_some_and(|n| n.equals(v));
                let float = result.element.is_float();
                let negative_zero = |i: usize| matches!(splat_num(&operands[i]), Some(Num::Float(f)) if f == 0.0 && f.is_sign_negative());
                let keep = match op {
                    BinaryOp::Multiply | BinaryOp::And if is(1, 1.0) => 0,
                    BinaryOp::Multiply | BinaryOp::And if is(0, 1.0) => 1,
                    BinaryOp::Divide if is(1, 1.0) => 0,
                    BinaryOp::Or | BinaryOp::Xor if is(1, 0.0) => 0,
                    BinaryOp::Or | BinaryOp::Xor if is(0, 0.0) => 1,
                    // `-0.0 + 0.0` is `+0.0`: floats keep `x` only for `x + -0.0` and `x - +0.0`.
                    BinaryOp::Add if !float && is(1, 0.0) || negative_zero(1) => 0,
                    BinaryOp::Add if !float && is(0, 0.0) || negative_zero(0) => 1,
                    BinaryOp::Subtract if is(1, 0.0) && !negative_zero(1) => 0,
                    _ => return None,
                };
                same_type(keep).then_some(keep)
            }
            _ => None,
        }
    }

    fn fold_elementwise(
        &self,
        operands: &[FoldOperand<'_>],
        result: &TensorType,
        count: u64,
    ) -> Option<DenseElements> {
        let inputs: Vec<(ElementType, &DenseElements)> = operands
            .iter()
            .map(|o| Some((o.ty.as_tensor()?.element, o.constant?)))
            .collect::<Option<_>>()?;
        let mut values = Vec::with_capacity(count as usize);
        for index in 0..count as usize {
            let args: Vec<Num> = inputs
                .iter()
                .map(|&(element, data)| {
                    let at = if data.is_splat() { 0 } else { index };
                    Num::of(data, element, at)
                })
                .collect::<Option<_>>()?;
            values.push(self.evaluate(&args, result.element)?);
        }
        encode(result, values, count == 1)
    }

    /// One element of an elementwise op.
    fn evaluate(&self, args: &[Num], output: ElementType) -> Option<Num> {
        match (self, args) {
            (Self::Unary(op), &[x]) => unary(*op, x),
            (Self::Binary(op), &[x, y]) => binary(*op, x, y),
            (
                Self::Compare {
                    direction,
                    compare_type,
                },
                &[x, y],
            ) => {
                if *compare_type == Some(ComparisonType::TotalOrder) {
                    return None;
                }
                Some(Num::Bool(compare(*direction, x, y)?))
            }
            (Self::Select, &[Num::Bool(p), t, f]) => Some(if p { t } else { f }),
            (Self::Convert, &[x]) => convert(x, output),
            _ => None,
        }
    }

    /// Reshape, transpose and broadcast of a constant: the elements move, none is computed.
    fn fold_layout(
        &self,
        operands: &[FoldOperand<'_>],
        result: &TensorType,
        all_splat: bool,
    ) -> Option<DenseElements> {
        let data = operands[0].constant?;
        if all_splat {
            return match self {
                Self::Reshape | Self::Transpose { .. } | Self::BroadcastInDim { .. } => {
                    Some(data.clone())
                }
                _ => None,
            };
        }
        let source = operands[0].ty.as_tensor()?;
        let width = source.element.storage_bytes();
        let from = source.static_shape()?;
        let to = result.static_shape()?;
        let strides = row_major_strides(&from);
        let source_index = |out: &[u64]| -> u64 {
            match self {
                Self::Transpose { permutation } => permutation
                    .iter()
                    .enumerate()
                    .map(|(i, &p)| out[i] * strides[p as usize])
                    .sum(),
                Self::BroadcastInDim { dims } => dims
                    .iter()
                    .enumerate()
                    .map(|(i, &d)| {
                        if from[i] == 1 {
                            0
                        } else {
                            out[d as usize] * strides[i]
                        }
                    })
                    .sum(),
                _ => unreachable!("only layout ops reach here"),
            }
        };
        let bytes = match self {
            Self::Reshape => data.bytes().to_vec(),
            Self::Transpose { .. } | Self::BroadcastInDim { .. } => {
                let mut bytes = Vec::with_capacity(to.iter().product::<u64>() as usize * width);
                let mut index = vec![0u64; to.len()];
                for _ in 0..to.iter().product::<u64>() {
                    let at = source_index(&index) as usize * width;
                    bytes.extend_from_slice(&data.bytes()[at..at + width]);
                    increment(&mut index, &to);
                }
                bytes
            }
            _ => return None,
        };
        DenseElements::from_bytes(result, bytes).ok()
    }
}

impl Num {
    fn of(data: &DenseElements, element: ElementType, index: usize) -> Option<Self> {
        Some(match data.value(element, index) {
            ElementValue::Bool(b) => Num::Bool(b),
            ElementValue::Signed(i) => Num::Int(i128::from(i)),
            ElementValue::Unsigned(u) => Num::Int(i128::from(u)),
            ElementValue::Float(_) => Num::Float(data.float_at(element, index)?),
            ElementValue::Complex(..) => return None,
        })
    }

    fn equals(self, value: f64) -> bool {
        match self {
            Num::Bool(b) => f64::from(u8::from(b)) == value,
            Num::Int(i) => i as f64 == value,
            Num::Float(f) => f == value,
        }
    }
}

fn splat_num(operand: &FoldOperand<'_>) -> Option<Num> {
    let data = operand.constant.filter(|c| c.is_splat())?;
    Num::of(data, operand.ty.as_tensor()?.element, 0)
}

fn unary(op: UnaryOp, x: Num) -> Option<Num> {
    use UnaryOp as U;
    Some(match x {
        Num::Float(x) => Num::Float(match op {
            U::Negate => -x,
            U::Abs => x.abs(),
            U::Sqrt => x.sqrt(),
            U::Rsqrt => 1.0 / x.sqrt(),
            U::Exponential => x.exp(),
            U::Log => x.ln(),
            U::Tanh => x.tanh(),
            U::Logistic => 1.0 / (1.0 + (-x).exp()),
            U::Floor => x.floor(),
            U::Ceil => x.ceil(),
            U::Sine => x.sin(),
            U::Cosine => x.cos(),
            U::RoundNearestEven => x.round_ties_even(),
            U::RoundNearestAfz => x.round(),
            U::Sign if x.is_nan() || x == 0.0 => x,
            U::Sign => x.signum(),
            _ => return None,
        }),
        Num::Int(x) => Num::Int(match op {
            U::Negate => x.checked_neg()?,
            U::Abs => x.abs(),
            U::Sign => x.signum(),
            U::Not => !x,
            _ => return None,
        }),
        Num::Bool(b) => match op {
            U::Not => Num::Bool(!b),
            _ => return None,
        },
    })
}

fn binary(op: BinaryOp, x: Num, y: Num) -> Option<Num> {
    use BinaryOp as B;
    Some(match (x, y) {
        (Num::Float(x), Num::Float(y)) => Num::Float(match op {
            B::Add => x + y,
            B::Subtract => x - y,
            B::Multiply => x * y,
            B::Divide => x / y,
            // StableHLO's maximum and minimum propagate NaN.
            B::Maximum if x.is_nan() || y.is_nan() => f64::NAN,
            B::Minimum if x.is_nan() || y.is_nan() => f64::NAN,
            B::Maximum => x.max(y),
            B::Minimum => x.min(y),
            B::Power => x.powf(y),
            B::Remainder => x % y,
            B::Atan2 => x.atan2(y),
            _ => return None,
        }),
        (Num::Int(x), Num::Int(y)) => Num::Int(match op {
            B::Add => x + y,
            B::Subtract => x - y,
            B::Multiply => x.checked_mul(y)?,
            B::Divide => x.checked_div(y)?,
            B::Remainder => x.checked_rem(y)?,
            B::Maximum => x.max(y),
            B::Minimum => x.min(y),
            B::And => x & y,
            B::Or => x | y,
            B::Xor => x ^ y,
            _ => return None,
        }),
        (Num::Bool(x), Num::Bool(y)) => Num::Bool(match op {
            B::And | B::Minimum | B::Multiply => x && y,
            B::Or | B::Maximum | B::Add => x || y,
            B::Xor => x != y,
            _ => return None,
        }),
        _ => return None,
    })
}

fn compare(direction: ComparisonDirection, x: Num, y: Num) -> Option<bool> {
    use ComparisonDirection as D;
    let ordering = x.partial_cmp(&y);
    Some(match direction {
        D::Eq => x == y,
        D::Ne => x != y,
        D::Lt => ordering == Some(std::cmp::Ordering::Less),
        D::Le => matches!(ordering, Some(o) if o.is_le()),
        D::Gt => ordering == Some(std::cmp::Ordering::Greater),
        D::Ge => matches!(ordering, Some(o) if o.is_ge()),
    })
}

/// `convert` of one element; `None` where the result is implementation-defined.
fn convert(x: Num, to: ElementType) -> Option<Num> {
    const EXACT_IN_F64: i128 = 1 << 53;
    if to == ElementType::I1 {
        return Some(Num::Bool(match x {
            Num::Bool(b) => b,
            Num::Int(i) => i != 0,
            Num::Float(f) => f != 0.0,
        }));
    }
    Some(match (x, to.is_float()) {
        (Num::Bool(b), true) => Num::Float(f64::from(u8::from(b))),
        (Num::Bool(b), false) => Num::Int(i128::from(b)),
        (Num::Int(i), true) if i.abs() <= EXACT_IN_F64 => Num::Float(i as f64),
        (Num::Int(_), true) => return None,
        (Num::Int(i), false) => Num::Int(i),
        (Num::Float(f), true) => Num::Float(f),
        (Num::Float(f), false) => {
            let truncated = f.trunc();
            let bits = to.bit_width();
            let (low, high) = if to.is_unsigned_integer() {
                (0.0, 2f64.powi(bits as i32))
            } else {
                (-(2f64.powi(bits as i32 - 1)), 2f64.powi(bits as i32 - 1))
            };
            if !(low..high).contains(&truncated) {
                return None;
            }
            Num::Int(truncated as i128)
        }
    })
}

fn encode(ty: &TensorType, values: Vec<Num>, splat: bool) -> Option<DenseElements> {
    let element = ty.element;
    if element.is_float() {
        let floats: Option<Vec<f64>> = values
            .iter()
            .map(|v| match v {
                Num::Float(f) => Some(*f),
                _ => None,
            })
            .collect();
        let floats = floats?;
        return if splat {
            Some(DenseElements::splat_f64(element, floats[0]))
        } else {
            DenseElements::from_f64s(ty, &floats).ok()
        };
    }
    if element.is_complex() {
        return None;
    }
    let ints: Option<Vec<i64>> = values
        .iter()
        .map(|v| match v {
            Num::Bool(b) => Some(i64::from(*b)),
            Num::Int(i) => Some(*i as i64),
            Num::Float(_) => None,
        })
        .collect();
    let ints = ints?;
    if splat {
        Some(DenseElements::splat_i64(element, ints[0]))
    } else {
        DenseElements::from_i64s(ty, &ints).ok()
    }
}

fn is_identity(dims: &[i64]) -> bool {
    dims.iter().enumerate().all(|(i, &d)| d == i as i64)
}

fn row_major_strides(dims: &[u64]) -> Vec<u64> {
    let mut strides = vec![1u64; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * dims[i + 1];
    }
    strides
}

fn increment(index: &mut [u64], dims: &[u64]) {
    for d in (0..dims.len()).rev() {
        index[d] += 1;
        if index[d] < dims[d] {
            return;
        }
        index[d] = 0;
    }
}
