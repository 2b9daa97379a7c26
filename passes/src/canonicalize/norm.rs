//! Normalisations that absorb a per-feature bias.

use tpuc_ir::{BinaryOp, OpId, OpKind, Value};

use crate::rewrite::{Pattern, Rewriter};

/// `batch_norm_inference(x + broadcast(b), s, o, mean, var)` along `b`'s feature dimension is
/// `batch_norm_inference(x, s, o, mean - b, var)`: a convolution's bias folded into the norm.
pub(crate) struct BatchNormOfBiasAdd;

impl Pattern for BatchNormOfBiasAdd {
    fn name(&self) -> &'static str {
        "batch-norm-of-bias-add"
    }

    fn rewrite(&self, rw: &mut Rewriter<'_>, op: OpId) -> bool {
        let f = rw.function();
        let OpKind::BatchNormInference { feature_index, .. } = f.op(op).kind else {
            return false;
        };
        let [input, _, _, mean, _] = f.op(op).operands[..] else {
            return false;
        };
        if f.uses(input).len() != 1 {
            return false;
        }
        let Some((_, add)) = rw.producer(input) else {
            return false;
        };
        if add.kind != OpKind::Binary(BinaryOp::Add) {
            return false;
        }
        let feature_bias = |v: Value| -> Option<Value> {
            let (_, producer) = rw.producer(v)?;
            let source = *producer.operands.first()?;
            let rank1 = f.value_type(source).as_tensor()?.rank() == 1;
            (producer.kind
                == OpKind::BroadcastInDim {
                    dims: vec![feature_index],
                }
                && rank1
                && f.value_type(source) == f.value_type(mean))
            .then_some(source)
        };
        let [a, b] = add.operands[..] else {
            return false;
        };
        let (x, bias) = match (feature_bias(a), feature_bias(b)) {
            (_, Some(bias)) => (a, bias),
            (Some(bias), None) => (b, bias),
            (None, None) => return false,
        };
        let Ok(shifted) = rw.builder_before(op).subtract(mean, bias) else {
            return false;
        };
        rw.set_operand(op, 0, x);
        rw.set_operand(op, 3, shifted);
        true
    }
}
