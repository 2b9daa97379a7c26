//! What patterns read the IR with: the op defining a value (recorded as part of the match),
//! splat constants, reductions and the broadcasts that undo them.

use tpuc_ir::{
    Attribute, BinaryOp, ElementType, Function, OpId, OpKind, Operation, UnaryOp, Value,
};

use crate::rewrite::constant_of;

/// A match under construction: the ops taken so far.
pub struct Taker<'f> {
    pub f: &'f Function,
    pub ops: Vec<OpId>,
}

impl<'f> Taker<'f> {
    pub fn new(f: &'f Function) -> Self {
        Self { f, ops: Vec::new() }
    }

    /// A copy to try an alternative on; adopt it with `*self = attempt` if it matches.
    pub fn fork(&self) -> Self {
        Self {
            f: self.f,
            ops: self.ops.clone(),
        }
    }

    /// The op defining `value` when `accept` takes its kind; it joins the match.
    pub fn take(
        &mut self,
        value: Value,
        accept: impl Fn(&OpKind) -> bool,
    ) -> Option<&'f Operation> {
        let op = self.f.defining_op(value)?;
        let operation = self.f.op(op);
        if !accept(&operation.kind) {
            return None;
        }
        if !self.ops.contains(&op) {
            self.ops.push(op);
        }
        Some(operation)
    }

    /// `value = op(a, b)`: its operands.
    pub fn binary(&mut self, value: Value, op: BinaryOp) -> Option<(Value, Value)> {
        let operation = self.take(value, |k| *k == OpKind::Binary(op))?;
        Some((operation.operands[0], operation.operands[1]))
    }

    /// `value = op(x)`: its operand.
    pub fn unary(&mut self, value: Value, op: UnaryOp) -> Option<Value> {
        Some(self.take(value, |k| *k == OpKind::Unary(op))?.operands[0])
    }

    /// `value = op(x, c)` or `op(c, x)` with `c` a splat constant expression: `x` and the
    /// splat's value (the constant is left to the outliner to copy).
    pub fn with_splat(&mut self, value: Value, op: BinaryOp) -> Option<(Value, f64)> {
        let (a, b) = self.peek_binary(value, op)?;
        let (x, c) = match (splat_value(self.f, a), splat_value(self.f, b)) {
            (None, Some(c)) => (a, c),
            (Some(c), None) => (b, c),
            _ => return None,
        };
        self.binary(value, op)?;
        Some((x, c))
    }

    /// `value = op(a, b)`: both operand orders, `(a, b)` and `(b, a)`, without taking it.
    pub fn both_orders(&self, value: Value, op: BinaryOp) -> Option<[(Value, Value); 2]> {
        let (a, b) = self.peek_binary(value, op)?;
        Some([(a, b), (b, a)])
    }

    /// `value = broadcast_in_dim(x)` keeping the dimensions in order and expanding `x`'s
    /// size-1 dimension `dim` (a `keepdims` reduction broadcast back): `x`.
    pub fn expand_size_one(&mut self, value: Value, dim: usize) -> Option<Value> {
        let f = self.f;
        let op = f.op(f.defining_op(value)?);
        let OpKind::BroadcastInDim { dims } = &op.kind else {
            return None;
        };
        let x = op.operands[0];
        let (from, to) = (shape(f, x)?, shape(f, value)?);
        let in_order = dims.iter().enumerate().all(|(i, &d)| d == i as i64);
        let only_dim = from.len() == to.len()
            && (0..to.len()).all(|d| {
                if d == dim {
                    from[d] == 1
                } else {
                    from[d] == to[d]
                }
            });
        if !in_order || !only_dim {
            return None;
        }
        self.take(value, |_| true)?;
        Some(x)
    }

    /// `value` = `x` with a trailing size-1 dimension appended (a reduction's `keepdims`), by a
    /// `reshape` or a `broadcast_in_dim` keeping the dimensions in order: `x`.
    pub fn keepdim(&mut self, value: Value) -> Option<Value> {
        let f = self.f;
        let op = f.op(f.defining_op(value)?);
        let x = *op.operands.first()?;
        let in_order = match &op.kind {
            OpKind::Reshape => true,
            OpKind::BroadcastInDim { dims } => dims.iter().enumerate().all(|(i, &d)| d == i as i64),
            _ => false,
        };
        let mut expected = shape(f, x)?;
        expected.push(1);
        if !in_order || shape(f, value)? != expected {
            return None;
        }
        self.take(value, |_| true)?;
        Some(x)
    }

    /// A unit-stride `slice(x)` keeping every dimension but `dim` whole: `x` and the start
    /// and limit along `dim`.
    pub fn slice_along(&mut self, value: Value, dim: usize) -> Option<(Value, i64, i64)> {
        let f = self.f;
        let op = f.op(f.defining_op(value)?);
        let OpKind::Slice {
            start,
            limit,
            strides,
        } = &op.kind
        else {
            return None;
        };
        let full = shape(f, op.operands[0])?;
        let whole =
            (0..full.len()).all(|d| d == dim || (start[d] == 0 && limit[d] as u64 == full[d]));
        if !whole || strides.iter().any(|&s| s != 1) {
            return None;
        }
        self.take(value, |_| true)?;
        Some((op.operands[0], start[dim], limit[dim]))
    }

    /// `value = op(a, b)` without taking it.
    pub fn peek_binary(&self, value: Value, op: BinaryOp) -> Option<(Value, Value)> {
        let operation = self.f.op(self.f.defining_op(value)?);
        (operation.kind == OpKind::Binary(op))
            .then(|| (operation.operands[0], operation.operands[1]))
    }

    /// `value = op(x, x)` for commutative `op` given `x` on one side: the other side.
    pub fn binary_with(&mut self, value: Value, op: BinaryOp, x: Value) -> Option<Value> {
        let (a, b) = self.peek_binary(value, op)?;
        let other = if a == x {
            b
        } else if b == x {
            a
        } else {
            return None;
        };
        self.binary(value, op)?;
        Some(other)
    }

    /// `value = convert(x)`: `x`.
    pub fn convert(&mut self, value: Value) -> Option<Value> {
        Some(self.take(value, |k| *k == OpKind::Convert)?.operands[0])
    }

    /// Skips a `convert` if one defines `value` (taking it).
    pub fn maybe_convert(&mut self, value: Value) -> (Value, bool) {
        match self.convert(value) {
            Some(x) => (x, true),
            None => (value, false),
        }
    }

    /// `value = reduce(x, init) dims` applying `op` with a splat `init` of `init_value`
    /// (`None`: the boolean `true`, for `and`): `x` and the dimensions.
    pub fn reduce(
        &mut self,
        value: Value,
        op: BinaryOp,
        init_value: Option<f64>,
    ) -> Option<(Value, Vec<i64>)> {
        let f = self.f;
        let producer = f.op(f.defining_op(value)?);
        let OpKind::Reduce { dimensions } = &producer.kind else {
            return None;
        };
        if producer.operands.len() != 2
            || producer.results.len() != 1
            || !reduces_with(f, producer, op)
        {
            return None;
        }
        let init = producer.operands[1];
        let init_ok = match init_value {
            Some(want) => splat_value(f, init) == Some(want),
            None => is_true(f, init),
        };
        if !init_ok {
            return None;
        }
        let dims = dimensions.clone();
        let x = self.take(value, |_| true)?.operands[0];
        Some((x, dims))
    }

    /// `value = broadcast_in_dim(x)` whose dimensions are every result dimension except `dims`
    /// (what re-expands a reduction over `dims`), or the same with `x` first reshaped to keep
    /// the reduced dimensions with size 1: `x`.
    pub fn broadcast_back(&mut self, value: Value, dims: &[i64]) -> Option<Value> {
        let f = self.f;
        let rank = rank(f, value)?;
        let kept: Vec<i64> = (0..rank as i64).filter(|d| !dims.contains(d)).collect();
        let all: Vec<i64> = (0..rank as i64).collect();
        let broadcast = f.op(f.defining_op(value)?);
        let OpKind::BroadcastInDim { dims: bdims } = &broadcast.kind else {
            return None;
        };
        if *bdims == kept {
            self.take(value, |_| true)?;
            return Some(broadcast.operands[0]);
        }
        let keepdim = broadcast.operands[0];
        let reshape = f.op(f.defining_op(keepdim)?);
        let kept_shape = shape(f, keepdim)?;
        let size_one = dims.iter().all(|&d| kept_shape.get(d as usize) == Some(&1));
        if *bdims != all || reshape.kind != OpKind::Reshape || !size_one {
            return None;
        }
        let x = reshape.operands[0];
        let expected: Vec<u64> = (0..rank)
            .filter(|d| !dims.contains(&(*d as i64)))
            .map(|d| kept_shape[d])
            .collect();
        if shape(f, x)? != expected {
            return None;
        }
        self.take(value, |_| true)?;
        self.take(keepdim, |_| true)?;
        Some(x)
    }
}

fn reduces_with(f: &Function, reduce: &Operation, op: BinaryOp) -> bool {
    let Some(&region) = reduce.regions.first() else {
        return false;
    };
    let Some(&block) = f.region(region).blocks.first() else {
        return false;
    };
    let ops = &f.block(block).ops;
    let args = &f.block(block).args;
    let [combine, ret] = ops[..] else {
        return false;
    };
    let combine = f.op(combine);
    let ret = f.op(ret);
    combine.kind == OpKind::Binary(op)
        && args.len() == 2
        && (combine.operands == [args[0], args[1]] || combine.operands == [args[1], args[0]])
        && ret.operands == combine.results
}

/// Whether `value` is the splat boolean constant `true`.
fn is_true(f: &Function, value: Value) -> bool {
    constant_of(f, value).is_some_and(|data| {
        data.is_splat() && data.value(ElementType::I1, 0) == tpuc_ir::ElementValue::Bool(true)
    }) && element(f, value) == Some(ElementType::I1)
}

/// The value of a splat constant expression: a splat constant, possibly broadcast, reshaped
/// or converted.
pub fn splat_value(f: &Function, value: Value) -> Option<f64> {
    if let Some(data) = constant_of(f, value) {
        if !data.is_splat() {
            return None;
        }
        return data.float_at(element(f, value)?, 0);
    }
    let producer = f.op(f.defining_op(value)?);
    match producer.kind {
        OpKind::BroadcastInDim { .. } | OpKind::Reshape | OpKind::Convert => {
            splat_value(f, producer.operands[0])
        }
        _ => None,
    }
}

pub fn element(f: &Function, value: Value) -> Option<ElementType> {
    Some(f.value_type(value).as_tensor()?.element)
}

pub fn rank(f: &Function, value: Value) -> Option<usize> {
    Some(f.value_type(value).as_tensor()?.shape.len())
}

pub fn shape(f: &Function, value: Value) -> Option<Vec<u64>> {
    crate::rewrite::static_shape_of(f, value)
}

/// Whether `value` is exactly `expected` rounded to the element type of `of` (how the lowering
/// and the exporters materialise a constant such as `1/sqrt(2)`). f16 is not recognised.
pub fn is_rounded(f: &Function, value: f64, expected: f64, of: Value) -> bool {
    match element(f, of) {
        Some(ElementType::F64) => value == expected,
        Some(ElementType::F32) => value == f64::from(expected as f32),
        Some(ElementType::BF16) => value == f64::from(to_bf16(expected as f32)),
        _ => false,
    }
}

/// `x` rounded to bfloat16 (to nearest, ties to even), as an f32.
fn to_bf16(x: f32) -> f32 {
    let bits = x.to_bits();
    let rounded = bits.wrapping_add(0x7FFF + ((bits >> 16) & 1)) & 0xFFFF_0000;
    f32::from_bits(rounded)
}

/// An `i64` composite attribute.
pub fn i64_attr(value: i64) -> Attribute {
    Attribute::Int {
        value,
        ty: ElementType::I64,
    }
}

/// An `f32` composite attribute (`value` is exactly representable as one where it matters).
pub fn f32_attr(value: f64) -> Attribute {
    Attribute::Float {
        value,
        ty: ElementType::F32,
    }
}
