//! Helpers every op family shares. Each returns its operand unchanged when the op would be the
//! identity; folding constants and merging chains of ops is the passes' job (`tpuc-passes`).

mod contract;
mod elementwise;
mod reduce;

pub(crate) use contract::{dot, dot_into};
pub(crate) use elementwise::{broadcast_operands, common_shape, materialize, result_type};
pub(crate) use reduce::{
    arg_extremum, broadcast_back, reduce, reduce_extremum, reduce_init, reduce_mean,
};

use tpuc_ir::{
    BinaryOp, DenseElements, Dim, ElementType, ElementValue, FunctionBuilder, OpKind, TensorType,
    Value,
};
use tpuc_pt2::DType;

use crate::dtype::{dtype_of, element_type};
use crate::error::{OpResult, bail};
use crate::promote::Scalar;

pub(crate) fn tensor_type(element: ElementType, shape: &[i64]) -> TensorType {
    TensorType::new(ir_shape(shape), element)
}

pub(crate) fn ir_shape(shape: &[i64]) -> Vec<Dim> {
    shape
        .iter()
        .map(|&d| Dim::Static(d.max(0) as u64))
        .collect()
}

/// The sizes of a tensor type (`-1` for a dynamic dimension).
pub(crate) fn dims_of(ty: &TensorType) -> Vec<i64> {
    ty.shape
        .iter()
        .map(|d| d.as_static().map_or(-1, |s| s as i64))
        .collect()
}

pub(crate) fn shape(b: &FunctionBuilder, v: Value) -> OpResult<Vec<i64>> {
    Ok(dims_of(b.tensor_type(v)?))
}

pub(crate) fn rank(b: &FunctionBuilder, v: Value) -> OpResult<usize> {
    Ok(b.tensor_type(v)?.rank())
}

pub(crate) fn element(b: &FunctionBuilder, v: Value) -> OpResult<ElementType> {
    Ok(b.tensor_type(v)?.element)
}

pub(crate) fn dtype(b: &FunctionBuilder, v: Value) -> OpResult<DType> {
    dtype_of(element(b, v)?)
}

pub(crate) fn numel(shape: &[i64]) -> i64 {
    shape.iter().product()
}

/// A dimension index in `[-rank, rank)` made non-negative (a scalar accepts 0 and -1).
pub(crate) fn norm_dim(dim: i64, rank: usize) -> OpResult<usize> {
    let r = rank.max(1) as i64;
    if dim < -r || dim >= r {
        bail!("dimension {dim} is out of range for a tensor of rank {rank}");
    }
    Ok(if dim < 0 { dim + r } else { dim } as usize)
}

pub(crate) fn norm_dims(dims: &[i64], rank: usize) -> OpResult<Vec<usize>> {
    dims.iter().map(|&d| norm_dim(d, rank)).collect()
}

fn splat_data(element: ElementType, value: Scalar) -> DenseElements {
    match (value, element.complex_part()) {
        (Scalar::Int(i), None) if !element.is_float() => DenseElements::splat_i64(element, i),
        (Scalar::Complex(re, im), Some(part)) => {
            let bytes = [re, im].map(|v| DenseElements::splat_f64(part, v).bytes().to_vec());
            DenseElements::splat_bytes(element, bytes.concat())
                .expect("two parts make one complex element")
        }
        (other, _) => DenseElements::splat_f64(element, other.as_f64()),
    }
}

/// A constant of `shape` with every element `value`.
pub(crate) fn splat(
    b: &mut FunctionBuilder,
    dtype: DType,
    shape: &[i64],
    value: Scalar,
) -> OpResult<Value> {
    let element = element_type(dtype)?;
    Ok(b.constant(tensor_type(element, shape), splat_data(element, value))?)
}

pub(crate) fn zeros(b: &mut FunctionBuilder, dtype: DType, shape: &[i64]) -> OpResult<Value> {
    splat(b, dtype, shape, Scalar::Int(0))
}

/// The value of a splat constant, if `v` is one.
pub(crate) fn splat_value(b: &FunctionBuilder, v: Value) -> Option<Scalar> {
    let op = b.defining_op(v)?;
    let OpKind::Constant(data) = &b.function().op(op).kind else {
        return None;
    };
    if !data.is_splat() {
        return None;
    }
    let element = b.tensor_type(v).ok()?.element;
    Some(match data.value(element, 0) {
        ElementValue::Bool(x) => Scalar::Bool(x),
        ElementValue::Signed(x) => Scalar::Int(x),
        ElementValue::Unsigned(x) => Scalar::Int(x as i64),
        ElementValue::Float(bits) => Scalar::Float(match bits.value {
            Some(x) => x,
            None => float_special(element, bits.bits),
        }),
        ElementValue::Complex(..) => return None,
    })
}

/// NaN or an infinity from its bits.
fn float_special(element: ElementType, bits: u64) -> f64 {
    let sign = bits >> (element.bit_width() - 1) & 1 == 1;
    let mantissa_nonzero = match element {
        ElementType::F32 => bits & 0x7f_ffff != 0,
        ElementType::F64 => bits & 0xf_ffff_ffff_ffff != 0,
        ElementType::BF16 => bits & 0x7f != 0,
        ElementType::F16 => bits & 0x3ff != 0,
        _ => true,
    };
    match (mantissa_nonzero, sign) {
        (true, _) => f64::NAN,
        (false, true) => f64::NEG_INFINITY,
        (false, false) => f64::INFINITY,
    }
}

/// Converts to `dtype`.
pub(crate) fn convert(b: &mut FunctionBuilder, v: Value, dtype: DType) -> OpResult<Value> {
    let target = element_type(dtype)?;
    if element(b, v)? == target {
        return Ok(v);
    }
    Ok(b.convert(v, target)?)
}

pub(crate) fn reshape(b: &mut FunctionBuilder, v: Value, to: &[i64]) -> OpResult<Value> {
    let from = shape(b, v)?;
    if from == to {
        return Ok(v);
    }
    if numel(&from) != numel(to) {
        bail!("cannot reshape {from:?} to {to:?}");
    }
    Ok(b.reshape(v, ir_shape(to))?)
}

pub(crate) fn transpose(b: &mut FunctionBuilder, v: Value, permutation: &[i64]) -> OpResult<Value> {
    if permutation.iter().enumerate().all(|(i, &p)| p == i as i64) {
        return Ok(v);
    }
    Ok(b.transpose(v, permutation)?)
}

/// `broadcast_in_dim`: operand dimension `i` becomes result dimension `dims[i]`.
pub(crate) fn broadcast_in_dim(
    b: &mut FunctionBuilder,
    v: Value,
    dims: &[i64],
    to: &[i64],
) -> OpResult<Value> {
    let from = shape(b, v)?;
    let identity = from == to && dims.iter().enumerate().all(|(i, &d)| d == i as i64);
    if identity {
        return Ok(v);
    }
    Ok(b.broadcast_in_dim(v, dims, ir_shape(to))?)
}

/// numpy-style broadcast to `to` (trailing dimensions aligned).
pub(crate) fn broadcast_to(b: &mut FunctionBuilder, v: Value, to: &[i64]) -> OpResult<Value> {
    let from = shape(b, v)?;
    if from.len() > to.len() {
        bail!("cannot broadcast {from:?} to {to:?}");
    }
    let offset = to.len() - from.len();
    for (i, &size) in from.iter().enumerate() {
        if size != 1 && size != to[offset + i] {
            bail!("cannot broadcast {from:?} to {to:?}");
        }
    }
    // Size-1 dimensions that stay size 1 are kept; the rest map in place.
    let dims: Vec<i64> = (offset as i64..to.len() as i64).collect();
    broadcast_in_dim(b, v, &dims, to)
}

/// The numpy broadcast of two shapes.
pub(crate) fn broadcast_shapes(a: &[i64], c: &[i64]) -> OpResult<Vec<i64>> {
    let rank = a.len().max(c.len());
    let mut out = Vec::with_capacity(rank);
    for i in 0..rank {
        let x = if i + a.len() >= rank {
            a[i + a.len() - rank]
        } else {
            1
        };
        let y = if i + c.len() >= rank {
            c[i + c.len() - rank]
        } else {
            1
        };
        out.push(match (x, y) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => bail!("shapes {a:?} and {c:?} do not broadcast"),
        });
    }
    Ok(out)
}

/// A scalar constant of `v`'s element type and shape.
pub(crate) fn like(b: &mut FunctionBuilder, v: Value, value: Scalar) -> OpResult<Value> {
    let dtype = dtype(b, v)?;
    let shape = shape(b, v)?;
    splat(b, dtype, &shape, value)
}

/// `|v|²`: `v·v` of a real tensor, of a complex one the (real) square of its magnitude.
pub(crate) fn squared_magnitude(b: &mut FunctionBuilder, v: Value) -> OpResult<Value> {
    let v = if element(b, v)?.is_complex() {
        b.abs(v)?
    } else {
        v
    };
    Ok(b.multiply(v, v)?)
}

/// `lhs op rhs`; both operands must have the same type.
pub(crate) fn binary(
    b: &mut FunctionBuilder,
    op: BinaryOp,
    lhs: Value,
    rhs: Value,
) -> OpResult<Value> {
    Ok(b.binary(op, lhs, rhs)?)
}
