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
    let lhs_free_in_g: Vec<i64> = (batch..batch + lhs_free.len() as i64).collect();
    let rhs_free_in_g: Vec<i64> =
        (batch + lhs_free.len() as i64..batch + (lhs_free.len() + rhs_free.len()) as i64).collect();
    let lhs_cotangent = active[0]
        .then(|| {
            // g (batch, lhs free, rhs free) contracted with rhs over rhs's free dimensions.
            let other = Side {
                value: rhs,
                batch: &dims.rhs_batching,
                free: &rhs_free,
                contracting: &dims.rhs_contracting,
            };
            cotangent(
                b,
                g,
                &rhs_free_in_g,
                other,
                lhs,
                &dims.lhs_batching,
                &lhs_free,
                &dims.lhs_contracting,
            )
        })
        .transpose()?;
    let rhs_cotangent = active[1]
        .then(|| {
            let other = Side {
                value: lhs,
                batch: &dims.lhs_batching,
                free: &lhs_free,
                contracting: &dims.lhs_contracting,
            };
            cotangent(
                b,
                g,
                &lhs_free_in_g,
                other,
                rhs,
                &dims.rhs_batching,
                &rhs_free,
                &dims.rhs_contracting,
            )
        })
        .transpose()?;
    Ok(vec![lhs_cotangent, rhs_cotangent])
}

/// The other operand of a `dot_general` and its dimensions.
struct Side<'a> {
    value: Value,
    batch: &'a [i64],
    free: &'a [i64],
    contracting: &'a [i64],
}

/// The cotangent of one operand (`ours`: its batch, free and contracting dimensions): `g`
/// contracted with the other operand over the other's free dimensions (`g_other_free` in `g`),
/// the two operands in whichever order leaves the result in `ours`'s dimension order, so no
/// transpose follows when one order does.
#[allow(clippy::too_many_arguments)]
fn cotangent(
    b: &mut OpBuilder<'_>,
    g: Value,
    g_other_free: &[i64],
    other: Side<'_>,
    ours: Value,
    our_batch: &[i64],
    our_free: &[i64],
    our_contracting: &[i64],
) -> Result<Value, Refusal> {
    let g_batch: Vec<i64> = (0..our_batch.len() as i64).collect();
    // The other operand's leftover (contracting) dimensions come out sorted, each standing for
    // the one of ours it was paired with.
    let paired = matching_in_order(other.contracting, our_contracting);
    let g_first: Vec<i64> = [our_batch, our_free, &paired].concat();
    let other_first: Vec<i64> = [our_batch, &paired, our_free].concat();
    let identity = |sources: &[i64]| sources.iter().enumerate().all(|(i, &s)| s == i as i64);
    if identity(&other_first) && !identity(&g_first) {
        let product = contract(
            b,
            other.value,
            g,
            other.batch,
            &g_batch,
            other.free,
            g_other_free,
            ours,
        )?;
        return to_order(b, product, &other_first);
    }
    let product = contract(
        b,
        g,
        other.value,
        &g_batch,
        other.batch,
        g_other_free,
        other.free,
        ours,
    )?;
    to_order(b, product, &g_first)
}

/// `dot_general(lhs, rhs)` with the given batching and contracting dimensions, in the element
/// type of `like` (the operand whose cotangent this is).
#[allow(clippy::too_many_arguments)]
fn contract(
    b: &mut OpBuilder<'_>,
    lhs: Value,
    rhs: Value,
    lhs_batch: &[i64],
    rhs_batch: &[i64],
    lhs_contracting: &[i64],
    rhs_contracting: &[i64],
    like: Value,
) -> Result<Value, Refusal> {
    let element = tensor_type(b, like)?.element;
    let lhs = same_element(b, lhs, element)?;
    let rhs = same_element(b, rhs, element)?;
    let dims = DotDims {
        lhs_batching: lhs_batch.to_vec(),
        rhs_batching: rhs_batch.to_vec(),
        lhs_contracting: lhs_contracting.to_vec(),
        rhs_contracting: rhs_contracting.to_vec(),
    };
    b.dot_general(lhs, rhs, dims, Vec::new()).map_err(ir)
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
