//! `dot_general` and `convolution`: each operand's cotangent is a contraction of the result's
//! cotangent with the other operand (for convolutions, JAX's transposition of
//! `conv_general_dilated`).

use tpuc_ir::{ConvAttrs, ConvDims, DotDims, OpBuilder, Value};

use super::{Cotangents, Refusal, ir, shape_of, shape_u64, tensor_type};

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

/// A convolution's specs as JAX writes them: (batch, feature, spatial...) for the input and the
/// output, (output feature, input feature, spatial...) for the kernel.
struct Specs {
    lhs: Vec<i64>,
    rhs: Vec<i64>,
    out: Vec<i64>,
}

impl Specs {
    fn of(dims: &ConvDims) -> Self {
        let spec = |a: i64, b: i64, spatial: &[i64]| [vec![a, b], spatial.to_vec()].concat();
        Specs {
            lhs: spec(dims.input_batch, dims.input_feature, &dims.input_spatial),
            rhs: spec(
                dims.kernel_output_feature,
                dims.kernel_input_feature,
                &dims.kernel_spatial,
            ),
            out: spec(dims.output_batch, dims.output_feature, &dims.output_spatial),
        }
    }
}

fn conv_dims(lhs: &[i64], rhs: &[i64], out: &[i64]) -> ConvDims {
    ConvDims {
        input_batch: lhs[0],
        input_feature: lhs[1],
        input_spatial: lhs[2..].to_vec(),
        kernel_output_feature: rhs[0],
        kernel_input_feature: rhs[1],
        kernel_spatial: rhs[2..].to_vec(),
        output_batch: out[0],
        output_feature: out[1],
        output_spatial: out[2..].to_vec(),
    }
}

fn swapped(spec: &[i64]) -> Vec<i64> {
    let mut spec = spec.to_vec();
    spec.swap(0, 1);
    spec
}

fn dilate(size: i64, dilation: i64) -> i64 {
    if size == 0 {
        0
    } else {
        1 + dilation * (size - 1)
    }
}

fn or_ones(values: &[i64], count: usize) -> Vec<i64> {
    if values.is_empty() {
        vec![1; count]
    } else {
        values.to_vec()
    }
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
    let specs = Specs::of(&attrs.dims);
    let spatial = attrs.dims.input_spatial.len();
    let strides = or_ones(&attrs.window_strides, spatial);
    let lhs_dilation = or_ones(&attrs.lhs_dilation, spatial);
    let rhs_dilation = or_ones(&attrs.rhs_dilation, spatial);
    let padding = if attrs.padding.is_empty() {
        vec![(0, 0); spatial]
    } else {
        attrs.padding.clone()
    };
    let lhs_shape = shape_of(b, lhs)?;
    let rhs_shape = shape_of(b, rhs)?;
    let g_shape = shape_of(b, g)?;
    let take = |shape: &[i64], spec: &[i64]| -> Vec<i64> {
        spec[2..].iter().map(|&d| shape[d as usize]).collect()
    };
    let in_sizes = take(&lhs_shape, &specs.lhs);
    let window = take(&rhs_shape, &specs.rhs);
    let out_sizes = take(&g_shape, &specs.out);
    let groups = attrs.feature_group_count as i64;

    let lhs_cotangent = if active[0] {
        let mut kernel = rhs;
        if groups > 1 {
            kernel = move_groups_to_input_feature(b, rhs, &specs.rhs, groups)?;
        }
        let mut pads = Vec::with_capacity(spatial);
        for i in 0..spatial {
            let before = dilate(window[i], rhs_dilation[i]) - padding[i].0 - 1;
            let after = dilate(in_sizes[i], lhs_dilation[i]) + dilate(window[i], rhs_dilation[i])
                - 1
                - dilate(out_sizes[i], strides[i])
                - before;
            pads.push((before, after));
        }
        let reversed = b.reverse(kernel, &specs.rhs[2..]).map_err(ir)?;
        let transposed = ConvAttrs {
            window_strides: lhs_dilation.clone(),
            padding: pads,
            lhs_dilation: strides.clone(),
            rhs_dilation: rhs_dilation.clone(),
            feature_group_count: groups as u64,
            ..ConvAttrs::new(conv_dims(&specs.out, &swapped(&specs.rhs), &specs.lhs))
        };
        Some(b.convolution(g, reversed, transposed).map_err(ir)?)
    } else {
        None
    };
    let rhs_cotangent = if active[1] {
        let pads: Vec<(i64, i64)> = (0..spatial)
            .map(|i| {
                let low = padding[i].0;
                let from_lhs =
                    dilate(out_sizes[i], strides[i]) - dilate(in_sizes[i], lhs_dilation[i]);
                let from_rhs = dilate(window[i], rhs_dilation[i]) - low - 1;
                (low, from_lhs + from_rhs)
            })
            .collect();
        let transposed = ConvAttrs {
            window_strides: rhs_dilation.clone(),
            padding: pads,
            lhs_dilation: lhs_dilation.clone(),
            rhs_dilation: strides.clone(),
            batch_group_count: groups as u64,
            ..ConvAttrs::new(conv_dims(
                &swapped(&specs.lhs),
                &swapped(&specs.out),
                &swapped(&specs.rhs),
            ))
        };
        Some(b.convolution(lhs, g, transposed).map_err(ir)?)
    } else {
        None
    };
    Ok(vec![lhs_cotangent, rhs_cotangent])
}

/// A grouped kernel for the input's cotangent: the group axis, split out of the output
/// features, joins the input features (major).
fn move_groups_to_input_feature(
    b: &mut OpBuilder<'_>,
    kernel: Value,
    spec: &[i64],
    groups: i64,
) -> Result<Value, Refusal> {
    let shape = shape_of(b, kernel)?;
    let (out_dim, in_dim) = (spec[0] as usize, spec[1] as usize);
    // [.., O, ..] -> [.., G, O/G, ..]
    let mut split = shape.clone();
    split[out_dim] = shape[out_dim] / groups;
    split.insert(out_dim, groups);
    let split_value = b.reshape(kernel, shape_u64(&split)).map_err(ir)?;
    // Move the G axis right before the input-feature axis, then merge them.
    let in_dim_split = if in_dim > out_dim { in_dim + 1 } else { in_dim };
    let mut order: Vec<usize> = (0..split.len()).filter(|&d| d != out_dim).collect();
    let at = order.iter().position(|&d| d == in_dim_split).unwrap_or(0);
    order.insert(at, out_dim);
    let permutation: Vec<i64> = order.iter().map(|&d| d as i64).collect();
    let moved = b.transpose(split_value, &permutation).map_err(ir)?;
    let mut merged: Vec<i64> = order.iter().map(|&d| split[d]).collect();
    merged[at] *= merged[at + 1];
    merged.remove(at + 1);
    b.reshape(moved, shape_u64(&merged)).map_err(ir)
}
