//! `dot_general` and `convolution`: each operand's cotangent is a contraction of the result's
//! cotangent with the other operand (for convolutions, JAX's transposition of
//! `conv_general_dilated`).

use tpuc_ir::{ConvAttrs, DotDims, OpBuilder, Value};

use super::{Cotangents, Refusal, ir, shape_of, tensor_type};

pub(super) fn dot_general(
    b: &mut OpBuilder<'_>,
    x: &[Value],
    g: Value,
    dims: &DotDims,
    active: &[bool],
) -> Result<Cotangents, Refusal> {
    let (lhs, rhs) = (x[0], x[1]);
    let lhs_rank = tensor_type(b, lhs)?.rank() as i64;
    let rhs_rank = tensor_type(b, rhs)?.rank() as i64;
    let free = |rank: i64, batch: &[i64], contracting: &[i64]| -> Vec<i64> {
        (0..rank)
            .filter(|d| !batch.contains(d) && !contracting.contains(d))
            .collect()
    };
    let lhs_free = free(lhs_rank, &dims.lhs_batching, &dims.lhs_contracting);
    let rhs_free = free(rhs_rank, &dims.rhs_batching, &dims.rhs_contracting);
    let batch = dims.lhs_batching.len() as i64;
    let g_batch: Vec<i64> = (0..batch).collect();
    let g_lhs_free: Vec<i64> = (batch..batch + lhs_free.len() as i64).collect();
    let g_rhs_free: Vec<i64> =
        (batch + lhs_free.len() as i64..batch + (lhs_free.len() + rhs_free.len()) as i64).collect();
    let lhs_cotangent = if active[0] {
        // g (batch, lhs free, rhs free) . rhs over rhs's free dimensions:
        // (batch, lhs free, rhs contracting in rhs order) -> lhs's order
        let product = contract(
            b,
            g,
            rhs,
            &g_batch,
            &dims.rhs_batching,
            &g_rhs_free,
            &rhs_free,
            lhs,
        )?;
        let mut sources = dims.lhs_batching.clone();
        sources.extend(&lhs_free);
        sources.extend(matching_in_order(
            &dims.rhs_contracting,
            &dims.lhs_contracting,
        ));
        Some(to_order(b, product, &sources)?)
    } else {
        None
    };
    let rhs_cotangent = if active[1] {
        let product = contract(
            b,
            g,
            lhs,
            &g_batch,
            &dims.lhs_batching,
            &g_lhs_free,
            &lhs_free,
            rhs,
        )?;
        let mut sources = dims.rhs_batching.clone();
        sources.extend(&rhs_free);
        sources.extend(matching_in_order(
            &dims.lhs_contracting,
            &dims.rhs_contracting,
        ));
        Some(to_order(b, product, &sources)?)
    } else {
        None
    };
    Ok(vec![lhs_cotangent, rhs_cotangent])
}

/// `dot_general(g, other)` with the given batching and contracting dimensions, in the element
/// type of `like` (the operand whose cotangent this is).
#[allow(clippy::too_many_arguments)]
fn contract(
    b: &mut OpBuilder<'_>,
    g: Value,
    other: Value,
    g_batch: &[i64],
    other_batch: &[i64],
    g_contracting: &[i64],
    other_contracting: &[i64],
    like: Value,
) -> Result<Value, Refusal> {
    let element = tensor_type(b, like)?.element;
    let g = same_element(b, g, element)?;
    let other = same_element(b, other, element)?;
    let dims = DotDims {
        lhs_batching: g_batch.to_vec(),
        rhs_batching: other_batch.to_vec(),
        lhs_contracting: g_contracting.to_vec(),
        rhs_contracting: other_contracting.to_vec(),
    };
    b.dot_general(g, other, dims, Vec::new()).map_err(ir)
}

fn same_element(
    b: &mut OpBuilder<'_>,
    value: Value,
    element: tpuc_ir::ElementType,
) -> Result<Value, Refusal> {
    if tensor_type(b, value)?.element == element {
        Ok(value)
    } else {
        b.convert(value, element).map_err(ir)
    }
}

/// The dimensions of `ours` paired with `theirs`, ordered as `theirs` is sorted: a
/// contraction's leftover dimensions come out in the other operand's order.
fn matching_in_order(theirs: &[i64], ours: &[i64]) -> Vec<i64> {
    let mut pairs: Vec<(i64, i64)> = theirs.iter().copied().zip(ours.iter().copied()).collect();
    pairs.sort_unstable();
    pairs.into_iter().map(|(_, our)| our).collect()
}

/// Transposes `value`, whose dimension `k` is dimension `sources[k]` of the operand, into the
/// operand's order.
fn to_order(b: &mut OpBuilder<'_>, value: Value, sources: &[i64]) -> Result<Value, Refusal> {
    let permutation: Vec<i64> = (0..sources.len() as i64)
        .map(|d| sources.iter().position(|&s| s == d).unwrap_or(0) as i64)
        .collect();
    if permutation.iter().enumerate().all(|(i, &p)| p == i as i64) {
        return Ok(value);
    }
    b.transpose(value, &permutation).map_err(ir)
}

pub(super) fn convolution(
    b: &mut OpBuilder<'_>,
    x: &[Value],
    g: Value,
    attrs: &ConvAttrs,
    active: &[bool],
) -> Result<Cotangents, Refusal> {
    if attrs.batch_group_count != 1 {
        return Err("a convolution with `batch_group_count` > 1 has no derivative rule".into());
    }
    if attrs.window_reversal.iter().any(|&r| r) {
        return Err("a convolution with window reversal has no derivative rule".into());
    }
    let (lhs, rhs) = (x[0], x[1]);
    let lhs_cotangent = if active[0] {
        let shape = shape_of(b, lhs)?;
        Some(
            b.convolution_input_cotangent(g, rhs, attrs, &shape)
                .map_err(ir)?,
        )
    } else {
        None
    };
    let rhs_cotangent = if active[1] {
        let shape = shape_of(b, rhs)?;
        Some(
            b.convolution_kernel_cotangent(lhs, g, attrs, &shape)
                .map_err(ir)?,
        )
    } else {
        None
    };
    Ok(vec![lhs_cotangent, rhs_cotangent])
}
