//! Ops that move, copy or pick elements: their cotangents move the other way (a broadcast
//! sums, a slice pads, a gather scatter-adds, a sort scatters back through its permutation).

use std::collections::HashMap;

use tpuc_ir::{
    BinaryOp, ComparisonDirection, ElementType, GatherDims, OpBuilder, OpId, OpKind, ScatterDims,
    TensorType, Value,
};

use super::{Cotangents, Refusal, ir, scalar, shape_of, shape_u64, splat_like, tensor_type};

/// The cotangent of `broadcast_in_dim(x, dims)`: summed over the dimensions the broadcast
/// made, reshaped (and transposed) back to `x`'s shape.
pub(super) fn unbroadcast(
    b: &mut OpBuilder<'_>,
    x: Value,
    dims: &[i64],
    g: Value,
) -> Result<Value, Refusal> {
    let operand = shape_of(b, x)?;
    let result = shape_of(b, g)?;
    let kept: Vec<usize> = (0..operand.len())
        .filter(|&i| operand[i] == result[dims[i] as usize])
        .collect();
    let summed: Vec<i64> = (0..result.len() as i64)
        .filter(|d| !kept.iter().any(|&i| dims[i] == *d))
        .collect();
    let mut cotangent = g;
    if !summed.is_empty() {
        let element = tensor_type(b, g)?.element;
        let zero = scalar(b, element, 0.0)?;
        cotangent = b.reduce_with(BinaryOp::Add, g, zero, &summed).map_err(ir)?;
    }
    // What is left holds the kept operand dimensions in the order of their result dimension.
    let mut order = kept.clone();
    order.sort_by_key(|&i| dims[i]);
    if order != kept {
        let permutation: Vec<i64> = kept
            .iter()
            .map(|i| order.iter().position(|o| o == i).unwrap_or(0) as i64)
            .collect();
        cotangent = b.transpose(cotangent, &permutation).map_err(ir)?;
    }
    if shape_of(b, cotangent)? != operand {
        cotangent = b.reshape(cotangent, shape_u64(&operand)).map_err(ir)?;
    }
    Ok(cotangent)
}

pub(super) fn untranspose(
    b: &mut OpBuilder<'_>,
    g: Value,
    permutation: &[i64],
) -> Result<Value, Refusal> {
    let mut inverse = vec![0; permutation.len()];
    for (i, &p) in permutation.iter().enumerate() {
        inverse[p as usize] = i as i64;
    }
    b.transpose(g, &inverse).map_err(ir)
}

/// The cotangent of a strided slice: zeros around and between the slice's elements.
pub(super) fn unslice(
    b: &mut OpBuilder<'_>,
    x: Value,
    g: Value,
    start: &[i64],
    strides: &[i64],
) -> Result<Value, Refusal> {
    let operand = shape_of(b, x)?;
    let taken = shape_of(b, g)?;
    if taken.contains(&0) {
        return splat_like(b, x, 0.0);
    }
    let stride = |i: usize| strides.get(i).copied().unwrap_or(1);
    let high: Vec<i64> = (0..operand.len())
        .map(|i| operand[i] - (start[i] + (taken[i] - 1) * stride(i) + 1))
        .collect();
    let interior: Vec<i64> = (0..operand.len()).map(|i| stride(i) - 1).collect();
    let element = tensor_type(b, g)?.element;
    let zero = scalar(b, element, 0.0)?;
    b.pad(g, zero, start, &high, &interior).map_err(ir)
}

/// `pad(x, value)`: `x`'s cotangent is the cotangent where `x`'s elements landed; the padding
/// value's is the sum of the rest.
pub(super) fn unpad(
    b: &mut OpBuilder<'_>,
    g: Value,
    low: &[i64],
    high: &[i64],
    interior: &[i64],
    active: &[bool],
) -> Result<Cotangents, Refusal> {
    let element = tensor_type(b, g)?.element;
    let zero = scalar(b, element, 0.0)?;
    // Negative padding cut elements away: put zeros back first.
    let restore_low: Vec<i64> = low.iter().map(|&l| (-l).max(0)).collect();
    let restore_high: Vec<i64> = high.iter().map(|&h| (-h).max(0)).collect();
    let mut whole = g;
    if restore_low.iter().chain(&restore_high).any(|&p| p > 0) {
        let none = vec![0; low.len()];
        whole = b
            .pad(g, zero, &restore_low, &restore_high, &none)
            .map_err(ir)?;
    }
    let whole_shape = shape_of(b, whole)?;
    let start: Vec<i64> = low.iter().map(|&l| l.max(0)).collect();
    let limit: Vec<i64> = whole_shape
        .iter()
        .zip(high)
        .map(|(&size, &h)| size - h.max(0))
        .collect();
    let strides: Vec<i64> = interior.iter().map(|&i| i + 1).collect();
    let operand = b.slice(whole, &start, &limit, &strides).map_err(ir)?;
    let value = if active[1] {
        let dims: Vec<i64> = (0..whole_shape.len() as i64).collect();
        let total = b.reduce_with(BinaryOp::Add, g, zero, &dims).map_err(ir)?;
        let inner = b
            .reduce_with(BinaryOp::Add, operand, zero, &dims)
            .map_err(ir)?;
        Some(b.subtract(total, inner).map_err(ir)?)
    } else {
        None
    };
    Ok(vec![Some(operand), value])
}

pub(super) fn unconcatenate(
    b: &mut OpBuilder<'_>,
    x: &[Value],
    g: Value,
    dimension: i64,
) -> Result<Cotangents, Refusal> {
    let whole = shape_of(b, g)?;
    let mut offset = 0;
    let mut cotangents = Vec::with_capacity(x.len());
    for &operand in x {
        let size = shape_of(b, operand)?[dimension as usize];
        let mut start = vec![0; whole.len()];
        let mut limit = whole.clone();
        start[dimension as usize] = offset;
        limit[dimension as usize] = offset + size;
        let ones = vec![1; whole.len()];
        cotangents.push(Some(b.slice(g, &start, &limit, &ones).map_err(ir)?));
        offset += size;
    }
    Ok(cotangents)
}

/// `dynamic_slice(x, starts...)`: the cotangent written into zeros at the same place.
pub(super) fn dynamic_slice(
    b: &mut OpBuilder<'_>,
    x: &[Value],
    g: Value,
) -> Result<Cotangents, Refusal> {
    let zeros = splat_like(b, x[0], 0.0)?;
    let placed = b.dynamic_update_slice(zeros, g, &x[1..]).map_err(ir)?;
    let mut cotangents = vec![Some(placed)];
    cotangents.extend(x[1..].iter().map(|_| None));
    Ok(cotangents)
}

/// `dynamic_update_slice(x, update, starts...)`: `x` gets the cotangent outside the update,
/// the update the cotangent inside it.
pub(super) fn dynamic_update_slice(
    b: &mut OpBuilder<'_>,
    x: &[Value],
    g: Value,
    active: &[bool],
) -> Result<Cotangents, Refusal> {
    let starts = &x[2..];
    let operand = if active[0] {
        let zeros = splat_like(b, x[1], 0.0)?;
        Some(b.dynamic_update_slice(g, zeros, starts).map_err(ir)?)
    } else {
        None
    };
    let update = if active[1] {
        let sizes = shape_of(b, x[1])?;
        Some(b.dynamic_slice(g, starts, &sizes).map_err(ir)?)
    } else {
        None
    };
    let mut cotangents = vec![operand, update];
    cotangents.extend(starts.iter().map(|_| None));
    Ok(cotangents)
}

/// `gather`: the cotangent scatter-added into zeros where the slices came from.
pub(super) fn gather(
    b: &mut OpBuilder<'_>,
    x: &[Value],
    g: Value,
    dims: &GatherDims,
) -> Result<Cotangents, Refusal> {
    let zeros = splat_like(b, x[0], 0.0)?;
    let scatter_dims = ScatterDims {
        update_window_dims: dims.offset_dims.clone(),
        inserted_window_dims: dims.collapsed_slice_dims.clone(),
        input_batching_dims: dims.operand_batching_dims.clone(),
        scatter_indices_batching_dims: dims.start_indices_batching_dims.clone(),
        scatter_dims_to_operand_dims: dims.start_index_map.clone(),
        index_vector_dim: dims.index_vector_dim,
    };
    let summed = scatter_add(b, zeros, x[1], g, scatter_dims)?;
    Ok(vec![Some(summed), None])
}

fn scatter_add(
    b: &mut OpBuilder<'_>,
    into: Value,
    indices: Value,
    updates: Value,
    dims: ScatterDims,
) -> Result<Value, Refusal> {
    let results = b
        .scatter(
            &[into],
            indices,
            &[updates],
            dims,
            false,
            false,
            |b, args| Ok(vec![b.add(args[0], args[1])?]),
        )
        .map_err(ir)?;
    Ok(results[0])
}

/// A single-input `scatter` that writes (its body returns the update), adds, or keeps the
/// maximum or minimum.
pub(super) fn scatter(
    b: &mut OpBuilder<'_>,
    op: OpId,
    x: &[Value],
    results: &[Option<Value>],
    dims: &ScatterDims,
    active: &[bool],
) -> Result<Cotangents, Refusal> {
    let [input, indices, updates] = x[..] else {
        return Err("only a scatter of one input has a derivative rule".into());
    };
    let g = results[0].ok_or("its result has no cotangent")?;
    let overwrites = body_returns_update(b, op);
    let combine = b.function().single_binary_body(op);
    let adds = combine == Some(BinaryOp::Add);
    let extremum = matches!(combine, Some(BinaryOp::Maximum | BinaryOp::Minimum));
    if !overwrites && !adds && !extremum {
        return Err(
            "only a scatter that writes, adds or takes the maximum or minimum of its updates \
             has a derivative rule"
                .into(),
        );
    }
    let gather_dims = GatherDims {
        offset_dims: dims.update_window_dims.clone(),
        collapsed_slice_dims: dims.inserted_window_dims.clone(),
        operand_batching_dims: dims.input_batching_dims.clone(),
        start_indices_batching_dims: dims.scatter_indices_batching_dims.clone(),
        start_index_map: dims.scatter_dims_to_operand_dims.clone(),
        index_vector_dim: dims.index_vector_dim,
    };
    let input_shape = shape_of(b, input)?;
    let update_shape = shape_of(b, updates)?;
    let mut window = dims
        .update_window_dims
        .iter()
        .map(|&d| update_shape[d as usize]);
    let slice_sizes: Vec<i64> = (0..input_shape.len() as i64)
        .map(|d| {
            if dims.inserted_window_dims.contains(&d) || dims.input_batching_dims.contains(&d) {
                1
            } else {
                window.next().unwrap_or(1)
            }
        })
        .collect();
    if extremum {
        // PyTorch's scatter_reduce amax/amin rule: each result's cotangent shared evenly among
        // the operand element and the updates equal to it.
        let result = b.function().op(op).results[0];
        let zero = splat_like(b, input, 0.0)?;
        let one = splat_like(b, input, 1.0)?;
        let input_hit = b
            .compare(ComparisonDirection::Eq, input, result)
            .map_err(ir)?;
        let chosen = b
            .gather(result, indices, gather_dims.clone(), &slice_sizes, false)
            .map_err(ir)?;
        let update_hit = b
            .compare(ComparisonDirection::Eq, updates, chosen)
            .map_err(ir)?;
        let update_zero = splat_like(b, updates, 0.0)?;
        let update_one = splat_like(b, updates, 1.0)?;
        let update_hits = b.select(update_hit, update_one, update_zero).map_err(ir)?;
        let input_hits = b.select(input_hit, one, zero).map_err(ir)?;
        let count = scatter_add(b, input_hits, indices, update_hits, dims.clone())?;
        let share = b.divide(g, count).map_err(ir)?;
        let input_cotangent = active[0]
            .then(|| b.select(input_hit, share, zero))
            .transpose()
            .map_err(ir)?;
        let update_cotangent = if active[2] {
            let shares = b
                .gather(share, indices, gather_dims, &slice_sizes, false)
                .map_err(ir)?;
            Some(b.select(update_hit, shares, update_zero).map_err(ir)?)
        } else {
            None
        };
        return Ok(vec![input_cotangent, None, update_cotangent]);
    }
    let update_cotangent = if active[2] {
        Some(
            b.gather(g, indices, gather_dims, &slice_sizes, false)
                .map_err(ir)?,
        )
    } else {
        None
    };
    let input_cotangent = if !active[0] {
        None
    } else if adds {
        Some(g)
    } else {
        let zeros = splat_like(b, updates, 0.0)?;
        let written = b
            .scatter(
                &[g],
                indices,
                &[zeros],
                dims.clone(),
                false,
                false,
                |_, args| Ok(vec![args[1]]),
            )
            .map_err(ir)?;
        Some(written[0])
    };
    Ok(vec![input_cotangent, None, update_cotangent])
}

/// Whether `op`'s body returns its second block argument (the update) unchanged.
fn body_returns_update(b: &OpBuilder<'_>, op: OpId) -> bool {
    let f = b.function();
    let [region] = f.op(op).regions.as_slice() else {
        return false;
    };
    let [block] = f.region(*region).blocks.as_slice() else {
        return false;
    };
    let block = f.block(*block);
    let [ret] = block.ops.as_slice() else {
        return false;
    };
    block.args.len() == 2 && f.op(*ret).operands == [block.args[1]]
}

/// `sort`: the cotangent of each sorted float operand scattered back to where its elements
/// came from. The permutation is the sorted `iota` along the sort dimension when one of the
/// operands is that (torch.sort's indices), else it comes from a stable copy of the sort with
/// such an `iota` appended (its comparator ignores it, so the order is the same).
pub(super) fn sort(
    b: &mut OpBuilder<'_>,
    op: OpId,
    x: &[Value],
    y: &[Value],
    results: &[Option<Value>],
    dimension: i64,
) -> Result<Cotangents, Refusal> {
    let shape = shape_of(b, x[0])?;
    let rank = shape.len();
    let carried = x.iter().position(|&v| {
        let f = b.function();
        let is_integer = f
            .value_type(v)
            .as_tensor()
            .is_some_and(|t| t.element.is_integer());
        is_integer
            && f.defining_op(v).is_some_and(
                |def| matches!(f.op(def).kind, OpKind::Iota { dimension: d } if d == dimension),
            )
    });
    let permutation = match carried {
        Some(k) => y[k],
        None => {
            let iota = b
                .iota(
                    TensorType::of(&shape_u64(&shape), ElementType::I64),
                    dimension,
                )
                .map_err(ir)?;
            let region = *b
                .function()
                .op(op)
                .regions
                .first()
                .ok_or("a sort without a comparator")?;
            let block = *b
                .function()
                .region(region)
                .blocks
                .first()
                .ok_or("a sort without a comparator")?;
            let comparator_args = b.function().block(block).args.clone();
            let comparator_ops = b.function().block(block).ops.clone();
            let inputs: Vec<Value> = x.iter().copied().chain([iota]).collect();
            let sorted = b
                .sort(&inputs, dimension, true, |b, args| {
                    // The original comparator, on the arguments of the original operands.
                    let mut map: HashMap<Value, Value> = comparator_args
                        .iter()
                        .copied()
                        .zip(args.iter().copied())
                        .collect();
                    let Some((&ret, body)) = comparator_ops.split_last() else {
                        return Ok(Vec::new());
                    };
                    for &inner in body {
                        let at = b.insertion_point();
                        b.function_mut().clone_op(inner, at, &mut map);
                    }
                    Ok(b.function()
                        .op(ret)
                        .operands
                        .iter()
                        .map(|v| *map.get(v).unwrap_or(v))
                        .collect())
                })
                .map_err(ir)?;
            sorted[x.len()]
        }
    };
    let element = tensor_type(b, permutation)?.element;
    let mut column_shape = shape_u64(&shape);
    column_shape.push(1);
    let mut columns = Vec::with_capacity(rank);
    for d in 0..rank as i64 {
        columns.push(if d == dimension {
            b.reshape(permutation, column_shape.clone()).map_err(ir)?
        } else {
            b.iota(TensorType::of(&column_shape, element), d)
                .map_err(ir)?
        });
    }
    let indices = b.concatenate(&columns, rank as i64).map_err(ir)?;
    let all: Vec<i64> = (0..rank as i64).collect();
    let dims = ScatterDims {
        update_window_dims: Vec::new(),
        inserted_window_dims: all.clone(),
        input_batching_dims: Vec::new(),
        scatter_indices_batching_dims: Vec::new(),
        scatter_dims_to_operand_dims: all,
        index_vector_dim: rank as i64,
    };
    let mut cotangents = Vec::with_capacity(x.len());
    for (k, &operand) in x.iter().enumerate() {
        let float = tensor_type(b, operand)?.element.is_float();
        cotangents.push(match results[k] {
            Some(g) if float => {
                let zeros = splat_like(b, operand, 0.0)?;
                Some(scatter_add(b, zeros, indices, g, dims.clone())?)
            }
            _ => None,
        });
    }
    Ok(cotangents)
}
