//! Contractions: `dot_general` and `convolution`.

use tpuc_ir::{ConvAttrs, DotDims};

use super::Shapes;
use crate::sharding::rule::{FactorKind, OpRule};

/// Batch factors shared by both operands and the result, contracting factors (reductions)
/// shared by the operands, and each operand's free dimensions carried into the result in
/// order: `([b, i, k], [b, k, j]) -> ([b, i, j])`.
pub fn dot_general(shapes: &Shapes, dims: &DotDims) -> OpRule {
    let mut rule = shapes.empty_rule();
    let (lhs, rhs) = (&shapes.operands[0], &shapes.operands[1]);
    let mut result_dim = 0;
    for (&l, &r) in dims.lhs_batching.iter().zip(&dims.rhs_batching) {
        let factor = rule.factor(lhs[l as usize], FactorKind::PassThrough);
        rule.on_operand(0, l as usize, factor);
        rule.on_operand(1, r as usize, factor);
        rule.on_result(0, result_dim, factor);
        result_dim += 1;
    }
    for (&l, &r) in dims.lhs_contracting.iter().zip(&dims.rhs_contracting) {
        let factor = rule.factor(lhs[l as usize], FactorKind::Reduction);
        rule.on_operand(0, l as usize, factor);
        rule.on_operand(1, r as usize, factor);
    }
    for (operand, shape, batching, contracting) in [
        (0, lhs, &dims.lhs_batching, &dims.lhs_contracting),
        (1, rhs, &dims.rhs_batching, &dims.rhs_contracting),
    ] {
        for (dim, &size) in shape.iter().enumerate() {
            let dim_i = dim as i64;
            if batching.contains(&dim_i) || contracting.contains(&dim_i) {
                continue;
            }
            let factor = rule.factor(size, FactorKind::PassThrough);
            rule.on_operand(operand, dim, factor);
            rule.on_result(0, result_dim, factor);
            result_dim += 1;
        }
    }
    rule
}

/// Batch and output-feature factors pass through; the input feature is a reduction shared
/// with the kernel; spatial (windowed) dimensions need replication. Grouped convolutions
/// (depthwise, batch groups) keep only the batch factor.
pub fn convolution(shapes: &Shapes, attrs: &ConvAttrs) -> OpRule {
    let mut rule = shapes.empty_rule();
    let (input, kernel, output) = (&shapes.operands[0], &shapes.operands[1], &shapes.results[0]);
    let d = &attrs.dims;
    let grouped = attrs.feature_group_count != 1 || attrs.batch_group_count != 1;
    let batch_kind = if attrs.batch_group_count == 1 {
        FactorKind::PassThrough
    } else {
        FactorKind::NeedReplication
    };
    let batch = rule.factor(output[d.output_batch as usize], batch_kind);
    rule.on_operand(0, d.input_batch as usize, batch);
    rule.on_result(0, d.output_batch as usize, batch);
    let (feature_kind, reduction_kind) = if grouped {
        (FactorKind::NeedReplication, FactorKind::NeedReplication)
    } else {
        (FactorKind::PassThrough, FactorKind::Reduction)
    };
    let out_feature = rule.factor(output[d.output_feature as usize], feature_kind);
    rule.on_operand(1, d.kernel_output_feature as usize, out_feature);
    rule.on_result(0, d.output_feature as usize, out_feature);
    let in_feature = rule.factor(kernel[d.kernel_input_feature as usize], reduction_kind);
    rule.on_operand(1, d.kernel_input_feature as usize, in_feature);
    if input[d.input_feature as usize] == kernel[d.kernel_input_feature as usize] {
        rule.on_operand(0, d.input_feature as usize, in_feature);
    }
    for ((&i, &k), &o) in d
        .input_spatial
        .iter()
        .zip(&d.kernel_spatial)
        .zip(&d.output_spatial)
    {
        let spatial = rule.factor(input[i as usize], FactorKind::NeedReplication);
        rule.on_operand(0, i as usize, spatial);
        let window = rule.factor(kernel[k as usize], FactorKind::NeedReplication);
        rule.on_operand(1, k as usize, window);
        let out = rule.factor(output[o as usize], FactorKind::NeedReplication);
        rule.on_result(0, o as usize, out);
    }
    rule
}
