//! Conversion chains.

use tpuc_ir::{ElementType, OpId, OpKind};

use crate::rewrite::{Pattern, Rewriter};

/// `convert(convert(x))` converts `x` once when the first conversion loses nothing.
pub(crate) struct ConvertOfExactConvert;

impl Pattern for ConvertOfExactConvert {
    fn name(&self) -> &'static str {
        "convert-of-exact-convert"
    }

    fn rewrite(&self, rw: &mut Rewriter<'_>, op: OpId) -> bool {
        let f = rw.function();
        let operation = f.op(op);
        if operation.kind != OpKind::Convert {
            return false;
        }
        let mid = operation.operands[0];
        let Some((_, inner)) = rw.producer(mid) else {
            return false;
        };
        if inner.kind != OpKind::Convert {
            return false;
        }
        let source = inner.operands[0];
        let element = |v| f.value_type(v).as_tensor().map(|t| t.element);
        let (Some(from), Some(via)) = (element(source), element(mid)) else {
            return false;
        };
        if !is_exact(from, via) {
            return false;
        }
        rw.set_operand(op, 0, source);
        true
    }
}

/// Whether every value of `from` converts to `to` and back unchanged.
fn is_exact(from: ElementType, to: ElementType) -> bool {
    use ElementType as E;
    let float_bits = |e: ElementType| match e {
        E::F64 => Some(53),
        E::F32 => Some(24),
        E::BF16 => Some(8),
        E::F16 => Some(11),
        _ => None,
    };
    let float_range = |e: ElementType| match e {
        E::F64 => 11,
        E::F32 | E::BF16 => 8,
        E::F16 => 5,
        _ => 0,
    };
    if from == to || from == E::I1 {
        return true;
    }
    match (float_bits(from), float_bits(to)) {
        (Some(a), Some(b)) => a <= b && float_range(from) <= float_range(to),
        (None, Some(b)) if from.is_integer() => from.bit_width() <= b,
        (None, None) if from.is_integer() && to.is_integer() => {
            let same_sign = from.is_signed_integer() == to.is_signed_integer();
            (same_sign && from.bit_width() <= to.bit_width())
                || (from.is_unsigned_integer()
                    && to.is_signed_integer()
                    && from.bit_width() < to.bit_width())
        }
        _ => false,
    }
}
