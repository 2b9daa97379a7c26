//! Reductions and windowed reductions of one input with `add`, `maximum` or `minimum`.

use tpuc_ir::{BinaryOp, ComparisonDirection, OpBuilder, OpId, Value, WindowAttrs};

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
    let combine = combiner(b, op, x.len() / 2)?;
    let g = results[0].ok_or("its result has no cotangent")?;
    let (input, reduced) = (x[0], y[0]);
    let shape = shape_of(b, input)?;
    let kept: Vec<i64> = (0..shape.len() as i64)
        .filter(|d| !dimensions.contains(d))
        .collect();
    let spread = |b: &mut OpBuilder<'_>, value: Value| {
        b.broadcast_in_dim(value, &kept, shape_u64(&shape))
            .map_err(ir)
    };
    let cotangent = match combine {
        BinaryOp::Add => spread(b, g)?,
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
            b.select(hit, share, zero).map_err(ir)?
        }
        other => {
            return Err(format!(
                "a reduction with `{}` has no derivative rule",
                other.name()
            ));
        }
    };
    Ok(vec![Some(cotangent), None])
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
