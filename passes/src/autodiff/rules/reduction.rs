//! Reductions of one input with `add`, `maximum`, `minimum` or `multiply`; of several inputs
//! each reduced on its own, or of a value and its position (an argmax); windowed reductions of
//! one input with `add`, `maximum`, `minimum`, or `multiply` along one dimension (cumprod).

use tpuc_ir::{
    BinaryOp, ComparisonDirection, Function, OpBuilder, OpId, OpKind, Value, WindowAttrs,
};

use super::{Cotangents, Refusal, ir, scalar, shape_of, shape_u64, splat_like, tensor_type};

fn combiner(b: &OpBuilder<'_>, op: OpId, inputs: usize) -> Result<BinaryOp, Refusal> {
    if inputs != 1 {
        return Err("only a reduction of one input has a derivative rule".into());
    }
    b.function()
        .single_binary_body(op)
        .ok_or_else(|| "only a reduction whose body is one binary op has a derivative rule".into())
}

pub(super) fn reduce(
    b: &mut OpBuilder<'_>,
    op: OpId,
    x: &[Value],
    y: &[Value],
    results: &[Option<Value>],
    dimensions: &[i64],
) -> Result<Cotangents, Refusal> {
    let inputs = x.len() / 2;
    let mut cotangents = vec![None; x.len()];
    if inputs == 1 {
        let combine = combiner(b, op, inputs)?;
        let g = results[0].ok_or("its result has no cotangent")?;
        cotangents[0] = Some(reduce_one(b, combine, x[0], y[0], g, dimensions)?);
        return Ok(cotangents);
    }
    if let Some(combines) = separate_bodies(b.function(), op, inputs) {
        // Each input reduced on its own (a maximum and its NaN flag): one rule per input.
        for k in 0..inputs {
            if let Some(g) = results[k] {
                cotangents[k] = Some(reduce_one(b, combines[k], x[k], y[k], g, dimensions)?);
            }
        }
        return Ok(cotangents);
    }
    if let Some((value, index)) = selected_index(b.function(), op, x, dimensions) {
        // A value and its position chosen together (max/min with indices): the cotangent goes
        // to the element at the chosen position (PyTorch's `max.dim` rule).
        if let Some(g) = results[value] {
            let shape = shape_of(b, x[value])?;
            let kept = kept_dimensions(shape.len(), dimensions);
            let chosen = b
                .broadcast_in_dim(y[index], &kept, shape_u64(&shape))
                .map_err(ir)?;
            let hit = b
                .compare(ComparisonDirection::Eq, x[index], chosen)
                .map_err(ir)?;
            let spread = b
                .broadcast_in_dim(g, &kept, shape_u64(&shape))
                .map_err(ir)?;
            let zero = splat_like(b, x[value], 0.0)?;
            cotangents[value] = Some(b.select(hit, spread, zero).map_err(ir)?);
        }
        return Ok(cotangents);
    }
    Err(
        "only a reduction of one input, of inputs each reduced on its own, or of a value and \
         its `iota` position chosen together (an argmax) has a derivative rule"
            .into(),
    )
}

fn kept_dimensions(rank: usize, dimensions: &[i64]) -> Vec<i64> {
    (0..rank as i64)
        .filter(|d| !dimensions.contains(d))
        .collect()
}

/// The reduction of one input with `combine`.
fn reduce_one(
    b: &mut OpBuilder<'_>,
    combine: BinaryOp,
    input: Value,
    reduced: Value,
    g: Value,
    dimensions: &[i64],
) -> Result<Value, Refusal> {
    let shape = shape_of(b, input)?;
    let kept = kept_dimensions(shape.len(), dimensions);
    let spread = |b: &mut OpBuilder<'_>, value: Value| {
        b.broadcast_in_dim(value, &kept, shape_u64(&shape))
            .map_err(ir)
    };
    match combine {
        BinaryOp::Add => spread(b, g),
        BinaryOp::Maximum | BinaryOp::Minimum => {
            // PyTorch's `amax`/`amin` rule: shared evenly among the elements equal to the
            // extremum.
            let element = tensor_type(b, input)?.element;
            let extremum = spread(b, reduced)?;
            let hit = b
                .compare(ComparisonDirection::Eq, input, extremum)
                .map_err(ir)?;
            let one = splat_like(b, input, 1.0)?;
            let zero = splat_like(b, input, 0.0)?;
            let hits = b.select(hit, one, zero).map_err(ir)?;
            let zero_scalar = scalar(b, element, 0.0)?;
            let count = b
                .reduce_with(BinaryOp::Add, hits, zero_scalar, dimensions)
                .map_err(ir)?;
            let share = b.divide(g, count).map_err(ir)?;
            let share = spread(b, share)?;
            b.select(hit, share, zero).map_err(ir)
        }
        BinaryOp::Multiply => {
            // PyTorch's `prod` rule: the product of the others, `result / x` when no element
            // is zero; with one zero, the product of the others at the zero and zero elsewhere;
            // with more, zero.
            let element = tensor_type(b, input)?.element;
            let zero = splat_like(b, input, 0.0)?;
            let one = splat_like(b, input, 1.0)?;
            let is_zero = b
                .compare(ComparisonDirection::Eq, input, zero)
                .map_err(ir)?;
            let nonzero = b.select(is_zero, one, input).map_err(ir)?;
            let zeros = b.select(is_zero, one, zero).map_err(ir)?;
            let zero_scalar = scalar(b, element, 0.0)?;
            let one_scalar = scalar(b, element, 1.0)?;
            let count = b
                .reduce_with(BinaryOp::Add, zeros, zero_scalar, dimensions)
                .map_err(ir)?;
            let count = spread(b, count)?;
            let others = b
                .reduce_with(BinaryOp::Multiply, nonzero, one_scalar, dimensions)
                .map_err(ir)?;
            let others = spread(b, others)?;
            let result = spread(b, reduced)?;
            let no_zero = b.divide(result, nonzero).map_err(ir)?;
            let at_the_zero = b.select(is_zero, others, zero).map_err(ir)?;
            let none = b
                .compare(ComparisonDirection::Eq, count, zero)
                .map_err(ir)?;
            let single = b.compare(ComparisonDirection::Eq, count, one).map_err(ir)?;
            let one_zero = b.select(single, at_the_zero, zero).map_err(ir)?;
            let factor = b.select(none, no_zero, one_zero).map_err(ir)?;
            let g = spread(b, g)?;
            b.multiply(g, factor).map_err(ir)
        }
        other => Err(format!(
            "a reduction with `{}` has no derivative rule",
            other.name()
        )),
    }
}

/// The reducer's block: its arguments (the accumulators, then the elements, one per input) and
/// the values it returns.
fn reducer(f: &Function, op: OpId) -> Option<(Vec<Value>, Vec<Value>)> {
    let [region] = f.op(op).regions.as_slice() else {
        return None;
    };
    let [block] = f.region(*region).blocks.as_slice() else {
        return None;
    };
    let ret = f.terminator(*block)?;
    Some((f.block(*block).args.clone(), ret.operands.clone()))
}

/// The binary op combining each input, when every result is its own input's accumulator and
/// element combined by one binary op.
fn separate_bodies(f: &Function, op: OpId, inputs: usize) -> Option<Vec<BinaryOp>> {
    let (args, returned) = reducer(f, op)?;
    if args.len() != 2 * inputs || returned.len() != inputs {
        return None;
    }
    (0..inputs)
        .map(|k| {
            let combine = f.op(f.defining_op(returned[k])?);
            let OpKind::Binary(binary) = combine.kind else {
                return None;
            };
            let pair = [args[k], args[k + inputs]];
            (combine.operands == pair || combine.operands == [pair[1], pair[0]]).then_some(binary)
        })
        .collect()
}

/// `(value, index)`: the positions of a float input and of an `iota` along the one reduced
/// dimension, when the reducer returns one of its two (accumulator, element) pairs whole: both
/// results `select` the same side on one predicate.
fn selected_index(
    f: &Function,
    op: OpId,
    x: &[Value],
    dimensions: &[i64],
) -> Option<(usize, usize)> {
    let (args, returned) = reducer(f, op)?;
    if x.len() != 4 || args.len() != 4 || returned.len() != 2 {
        return None;
    }
    let is_float = |v: Value| {
        f.value_type(v)
            .as_tensor()
            .is_some_and(|t| t.element.is_float())
    };
    let (value, index) = match (is_float(x[0]), is_float(x[1])) {
        (true, false) => (0, 1),
        (false, true) => (1, 0),
        _ => return None,
    };
    let iota = f.op(f.defining_op(x[index])?);
    if !matches!(iota.kind, OpKind::Iota { dimension } if dimensions == [dimension]) {
        return None;
    }
    let select = |k: usize| {
        let select = f.op(f.defining_op(returned[k])?);
        matches!(select.kind, OpKind::Select).then(|| select.operands.clone())
    };
    let (first, second) = (select(0)?, select(1)?);
    let same_side = |(acc, elem): (usize, usize)| {
        first[1] == args[acc]
            && first[2] == args[elem]
            && second[1] == args[acc + 1]
            && second[2] == args[elem + 1]
    };
    (first[0] == second[0] && (same_side((0, 2)) || same_side((2, 0)))).then_some((value, index))
}

pub(super) fn reduce_window(
    b: &mut OpBuilder<'_>,
    op: OpId,
    x: &[Value],
    results: &[Option<Value>],
    window: &WindowAttrs,
    active: &[bool],
) -> Result<Cotangents, Refusal> {
    let combine = combiner(b, op, x.len() / 2)?;
    let g = results[0].ok_or("its result has no cotangent")?;
    if active[1] {
        return Err("a windowed reduction whose initial value depends on a parameter".into());
    }
    let input = x[0];
    let rank = shape_of(b, input)?.len();
    let ones = vec![1; rank];
    let or_ones = |values: &[i64]| {
        if values.is_empty() {
            ones.clone()
        } else {
            values.to_vec()
        }
    };
    let strides = or_ones(&window.window_strides);
    let base = or_ones(&window.base_dilations);
    let dilation = or_ones(&window.window_dilations);
    let padding = if window.padding.is_empty() {
        vec![(0, 0); rank]
    } else {
        window.padding.clone()
    };
    let element = tensor_type(b, input)?.element;
    let zero = scalar(b, element, 0.0)?;
    let cotangent = match combine {
        BinaryOp::Add => {
            let in_shape = shape_of(b, input)?;
            let out_shape = shape_of(b, g)?;
            let dilate = |size: i64, d: i64| if size == 0 { 0 } else { 1 + d * (size - 1) };
            let mut low = Vec::with_capacity(rank);
            let mut high = Vec::with_capacity(rank);
            for i in 0..rank {
                let windowed = dilate(window.window_dimensions[i], dilation[i]);
                let before = windowed - padding[i].0 - 1;
                let after = dilate(in_shape[i], base[i]) + windowed
                    - 1
                    - dilate(out_shape[i], strides[i])
                    - before;
                low.push(before);
                high.push(after);
            }
            let interior: Vec<i64> = strides.iter().map(|s| s - 1).collect();
            let padded = b.pad(g, zero, &low, &high, &interior).map_err(ir)?;
            let summed = WindowAttrs {
                window_dimensions: window.window_dimensions.clone(),
                window_strides: base,
                base_dilations: Vec::new(),
                window_dilations: dilation,
                padding: Vec::new(),
            };
            let results = b
                .reduce_window(&[padded], &[zero], summed, |b, args| {
                    Ok(vec![b.add(args[0], args[1])?])
                })
                .map_err(ir)?;
            results[0]
        }
        BinaryOp::Multiply => {
            let result = b.function().op(op).results[0];
            cumulative_product(b, x, result, g, window)?
        }
        BinaryOp::Maximum | BinaryOp::Minimum => {
            if base.iter().chain(&dilation).any(|&d| d != 1) {
                return Err("a dilated windowed maximum has no derivative rule".into());
            }
            let direction = if combine == BinaryOp::Maximum {
                ComparisonDirection::Ge
            } else {
                ComparisonDirection::Le
            };
            b.select_and_scatter(
                input,
                g,
                zero,
                &window.window_dimensions,
                &strides,
                &padding,
                |b, args| Ok(vec![b.compare(direction, args[0], args[1])?]),
                |b, args| Ok(vec![b.add(args[0], args[1])?]),
            )
            .map_err(ir)?
        }
        other => {
            return Err(format!(
                "a windowed reduction with `{}` has no derivative rule",
                other.name()
            ));
        }
    };
    Ok(vec![Some(cotangent), None])
}

/// The dimension a windowed reduction accumulates along when it is a cumulative one (torch's
/// `cumsum`/`cumprod` lowering): the window spans the whole dimension, padded by all but one
/// element in front, and every other dimension is left alone.
fn cumulative_dimension(window: &WindowAttrs, shape: &[i64]) -> Option<usize> {
    let ones = |values: &[i64]| values.iter().all(|&v| v == 1);
    if !ones(&window.window_strides)
        || !ones(&window.base_dilations)
        || !ones(&window.window_dilations)
    {
        return None;
    }
    let padding = |d: usize| window.padding.get(d).copied().unwrap_or((0, 0));
    let mut along = None;
    for (d, &size) in shape.iter().enumerate() {
        let extent = window.window_dimensions[d];
        if extent == 1 && padding(d) == (0, 0) {
            continue;
        }
        if along.is_some() || extent != size || padding(d) != (size - 1, 0) {
            return None;
        }
        along = Some(d);
    }
    along
}

/// Whether `value` is a constant splat of `expected`.
fn is_constant(b: &OpBuilder<'_>, value: Value, expected: f64) -> bool {
    let f = b.function();
    let Some(def) = f.defining_op(value) else {
        return false;
    };
    let OpKind::Constant(data) = &f.op(def).kind else {
        return false;
    };
    let Some(element) = f.value_type(value).as_tensor().map(|t| t.element) else {
        return false;
    };
    data.is_splat() && data.float_at(element, 0) == Some(expected)
}

/// The cotangent of a cumulative product along one dimension (PyTorch's `cumprod` rule):
/// `reversed_cumsum(y g) / x` before the first zero; at the first zero, the reversed cumulative
/// sum of `g` times the cumulative product with that zero taken as one; zero after it.
fn cumulative_product(
    b: &mut OpBuilder<'_>,
    x: &[Value],
    product: Value,
    g: Value,
    window: &WindowAttrs,
) -> Result<Value, Refusal> {
    let (input, init) = (x[0], x[1]);
    let shape = shape_of(b, input)?;
    let Some(along) = cumulative_dimension(window, &shape).filter(|_| is_constant(b, init, 1.0))
    else {
        return Err(
            "only a cumulative product (torch.cumprod) of the windowed reductions with \
                    `stablehlo.multiply` has a derivative rule"
                .into(),
        );
    };
    let element = tensor_type(b, input)?.element;
    let rank = shape.len();
    let size = shape[along];
    let window_along = |padding: (i64, i64)| {
        let mut dimensions = vec![1; rank];
        dimensions[along] = size;
        let mut paddings = vec![(0, 0); rank];
        paddings[along] = padding;
        WindowAttrs {
            window_dimensions: dimensions,
            padding: paddings,
            ..WindowAttrs::default()
        }
    };
    let scan = |b: &mut OpBuilder<'_>, value: Value, combine: BinaryOp, padding| {
        let init = scalar(b, element, if combine == BinaryOp::Add { 0.0 } else { 1.0 })?;
        let results = b
            .reduce_window(&[value], &[init], window_along(padding), |b, args| {
                Ok(vec![b.binary(combine, args[0], args[1])?])
            })
            .map_err(ir)?;
        Ok::<Value, Refusal>(results[0])
    };
    let forward = (size - 1, 0);
    let backward = (0, size - 1);
    let zero = splat_like(b, input, 0.0)?;
    let one = splat_like(b, input, 1.0)?;
    let is_zero = b
        .compare(ComparisonDirection::Eq, input, zero)
        .map_err(ir)?;
    let zeros = b.select(is_zero, one, zero).map_err(ir)?;
    let zeros_so_far = scan(b, zeros, BinaryOp::Add, forward)?;
    let none_yet = b
        .compare(ComparisonDirection::Eq, zeros_so_far, zero)
        .map_err(ir)?;
    let first_yet = b
        .compare(ComparisonDirection::Eq, zeros_so_far, one)
        .map_err(ir)?;
    let first_zero = b.and(is_zero, first_yet).map_err(ir)?;
    // Before the first zero: reversed_cumsum(y g) / x.
    let weighted = b.multiply(product, g).map_err(ir)?;
    let after = scan(b, weighted, BinaryOp::Add, backward)?;
    let nonzero = b.select(is_zero, one, input).map_err(ir)?;
    let before_zero = b.divide(after, nonzero).map_err(ir)?;
    // At the first zero: the products with that zero taken as one.
    let skipped = b.select(first_zero, one, input).map_err(ir)?;
    let without = scan(b, skipped, BinaryOp::Multiply, forward)?;
    let weighted = b.multiply(without, g).map_err(ir)?;
    let at_zero = scan(b, weighted, BinaryOp::Add, backward)?;
    let at_zero = b.select(first_zero, at_zero, zero).map_err(ir)?;
    b.select(none_yet, before_zero, at_zero).map_err(ir)
}
