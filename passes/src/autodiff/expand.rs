//! `batch_norm_training` and `batch_norm_inference` as the reductions and elementwise ops they
//! stand for, so that differentiation needs rules for those ops only.

use tpuc_ir::{BinaryOp, Function, InsertPoint, OpBuilder, OpId, OpKind, Result, Value};

/// Rewrites every batch normalization in `main`'s body; `Err` says why one cannot be.
pub(super) fn batch_norms(main: &mut Function) -> std::result::Result<(), String> {
    let ops: Vec<OpId> = main.block(main.entry_block()).ops.clone();
    for op in ops {
        let operation = main.op(op).clone();
        let values = match operation.kind {
            OpKind::BatchNormTraining {
                epsilon,
                feature_index,
            } => {
                let [x, scale, offset] = operation.operands[..] else {
                    continue;
                };
                let ty = main.value_type(x).clone();
                let Some(shape) = ty.as_tensor().and_then(|t| t.static_shape()) else {
                    return Err(format!(
                        "differentiation needs static shapes; a batch normalization's operand \
                         is {ty}"
                    ));
                };
                let mut b = OpBuilder::at(main, InsertPoint::Before(op), operation.location);
                training(&mut b, x, scale, offset, epsilon, feature_index, &shape)
                    .map_err(|e| e.to_string())?
            }
            OpKind::BatchNormInference {
                epsilon,
                feature_index,
            } => {
                let mut b = OpBuilder::at(main, InsertPoint::Before(op), operation.location);
                let [x, scale, offset, mean, variance] = operation.operands[..] else {
                    continue;
                };
                let expanded = normalize(&mut b, x, mean, variance, epsilon, feature_index)
                    .and_then(|normalized| {
                        affine(&mut b, normalized, scale, offset, feature_index)
                    });
                vec![expanded.map_err(|e| e.to_string())?]
            }
            _ => continue,
        };
        main.replace_op(op, &values);
    }
    Ok(())
}

/// (output, batch mean, biased batch variance), as `batch_norm_training` defines them.
fn training(
    b: &mut OpBuilder<'_>,
    x: Value,
    scale: Value,
    offset: Value,
    epsilon: f32,
    feature: i64,
    shape: &[u64],
) -> Result<Vec<Value>> {
    let reduced: Vec<i64> = (0..shape.len() as i64).filter(|&d| d != feature).collect();
    let count: u64 = reduced.iter().map(|&d| shape[d as usize]).product();
    let mean = mean_over(b, x, &reduced, count)?;
    let broadcast_mean = per_feature(b, mean, x, feature)?;
    let centered = b.subtract(x, broadcast_mean)?;
    let squares = b.multiply(centered, centered)?;
    let variance = mean_over(b, squares, &reduced, count)?;
    let normalized = normalize(b, x, mean, variance, epsilon, feature)?;
    let output = affine(b, normalized, scale, offset, feature)?;
    Ok(vec![output, mean, variance])
}

fn mean_over(b: &mut OpBuilder<'_>, x: Value, dims: &[i64], count: u64) -> Result<Value> {
    let element = b.tensor_type(x)?.element;
    let zero = b.splat(element, [], 0.0)?;
    let sum = b.reduce_with(BinaryOp::Add, x, zero, dims)?;
    let shape = b.tensor_type(sum)?.shape.clone();
    let count = b.splat(element, shape, count as f64)?;
    b.divide(sum, count)
}

/// `(x - mean) * rsqrt(variance + epsilon)`, the statistics per feature.
fn normalize(
    b: &mut OpBuilder<'_>,
    x: Value,
    mean: Value,
    variance: Value,
    epsilon: f32,
    feature: i64,
) -> Result<Value> {
    let ty = b.tensor_type(variance)?.clone();
    let epsilon = b.splat(ty.element, ty.shape, f64::from(epsilon))?;
    let shifted = b.add(variance, epsilon)?;
    let inverse = b.rsqrt(shifted)?;
    let mean = per_feature(b, mean, x, feature)?;
    let inverse = per_feature(b, inverse, x, feature)?;
    let centered = b.subtract(x, mean)?;
    b.multiply(centered, inverse)
}

fn affine(
    b: &mut OpBuilder<'_>,
    normalized: Value,
    scale: Value,
    offset: Value,
    feature: i64,
) -> Result<Value> {
    let scale = per_feature(b, scale, normalized, feature)?;
    let offset = per_feature(b, offset, normalized, feature)?;
    let scaled = b.multiply(normalized, scale)?;
    b.add(scaled, offset)
}

/// A per-feature vector broadcast to `like`'s shape along `feature`.
fn per_feature(b: &mut OpBuilder<'_>, vector: Value, like: Value, feature: i64) -> Result<Value> {
    let shape = b.tensor_type(like)?.shape.clone();
    b.broadcast_in_dim(vector, &[feature], shape)
}
