//! The transposes of `convolution` with respect to its input and its kernel, as JAX builds them
//! (`_conv_general_dilated_transpose_lhs/rhs`): what differentiation and torch's
//! `convolution_backward` both need.

use std::borrow::BorrowMut;

use super::Builder;
use crate::attr::{ConvAttrs, ConvDims};
use crate::error::{IrError, Result};
use crate::function::{Function, Value};

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

/// The window of `attrs` with defaults filled in, and the spatial sizes of an input, kernel
/// and output.
struct Window {
    strides: Vec<i64>,
    lhs_dilation: Vec<i64>,
    rhs_dilation: Vec<i64>,
    padding: Vec<(i64, i64)>,
    input: Vec<i64>,
    kernel: Vec<i64>,
    output: Vec<i64>,
}

fn window(
    attrs: &ConvAttrs,
    specs: &Specs,
    input: &[i64],
    kernel: &[i64],
    output: &[i64],
) -> Result<Window> {
    if attrs.batch_group_count != 1 || attrs.window_reversal.iter().any(|&r| r) {
        return Err(IrError::builder(
            "the transpose of a convolution with `batch_group_count` > 1 or window reversal",
        ));
    }
    let spatial = attrs.dims.input_spatial.len();
    let take = |shape: &[i64], spec: &[i64]| -> Vec<i64> {
        spec[2..].iter().map(|&d| shape[d as usize]).collect()
    };
    Ok(Window {
        strides: or_ones(&attrs.window_strides, spatial),
        lhs_dilation: or_ones(&attrs.lhs_dilation, spatial),
        rhs_dilation: or_ones(&attrs.rhs_dilation, spatial),
        padding: if attrs.padding.is_empty() {
            vec![(0, 0); spatial]
        } else {
            attrs.padding.clone()
        },
        input: take(input, &specs.lhs),
        kernel: take(kernel, &specs.rhs),
        output: take(output, &specs.out),
    })
}

impl<F: BorrowMut<Function>> Builder<F> {
    fn static_dims(&self, value: Value) -> Result<Vec<i64>> {
        self.tensor_type(value)?
            .static_shape()
            .map(|shape| shape.into_iter().map(|d| d as i64).collect())
            .ok_or_else(|| IrError::builder("the transpose of a convolution needs static shapes"))
    }

    /// The cotangent of a convolution's input (of shape `input_shape`) given the cotangent `g`
    /// of its result and its `kernel`.
    pub fn convolution_input_cotangent(
        &mut self,
        g: Value,
        kernel: Value,
        attrs: &ConvAttrs,
        input_shape: &[i64],
    ) -> Result<Value> {
        let specs = Specs::of(&attrs.dims);
        let kernel_shape = self.static_dims(kernel)?;
        let g_shape = self.static_dims(g)?;
        let w = window(attrs, &specs, input_shape, &kernel_shape, &g_shape)?;
        let groups = attrs.feature_group_count as i64;
        let kernel = if groups > 1 {
            self.move_groups_to_input_feature(kernel, &specs.rhs, groups)?
        } else {
            kernel
        };
        let padding = (0..w.input.len())
            .map(|i| {
                let before = dilate(w.kernel[i], w.rhs_dilation[i]) - w.padding[i].0 - 1;
                let after = dilate(w.input[i], w.lhs_dilation[i])
                    + dilate(w.kernel[i], w.rhs_dilation[i])
                    - 1
                    - dilate(w.output[i], w.strides[i])
                    - before;
                (before, after)
            })
            .collect();
        let reversed = self.reverse(kernel, &specs.rhs[2..])?;
        let transposed = ConvAttrs {
            window_strides: w.lhs_dilation,
            padding,
            lhs_dilation: w.strides,
            rhs_dilation: w.rhs_dilation,
            feature_group_count: groups as u64,
            ..ConvAttrs::new(conv_dims(&specs.out, &swapped(&specs.rhs), &specs.lhs))
        };
        self.convolution(g, reversed, transposed)
    }

    /// The cotangent of a convolution's kernel (of shape `kernel_shape`) given its `input` and
    /// the cotangent `g` of its result.
    pub fn convolution_kernel_cotangent(
        &mut self,
        input: Value,
        g: Value,
        attrs: &ConvAttrs,
        kernel_shape: &[i64],
    ) -> Result<Value> {
        let specs = Specs::of(&attrs.dims);
        let input_shape = self.static_dims(input)?;
        let g_shape = self.static_dims(g)?;
        let w = window(attrs, &specs, &input_shape, kernel_shape, &g_shape)?;
        let padding = (0..w.input.len())
            .map(|i| {
                let low = w.padding[i].0;
                let from_input =
                    dilate(w.output[i], w.strides[i]) - dilate(w.input[i], w.lhs_dilation[i]);
                let from_kernel = dilate(w.kernel[i], w.rhs_dilation[i]) - low - 1;
                (low, from_input + from_kernel)
            })
            .collect();
        let transposed = ConvAttrs {
            window_strides: w.rhs_dilation,
            padding,
            lhs_dilation: w.lhs_dilation,
            rhs_dilation: w.strides,
            batch_group_count: attrs.feature_group_count,
            ..ConvAttrs::new(conv_dims(
                &swapped(&specs.lhs),
                &swapped(&specs.out),
                &swapped(&specs.rhs),
            ))
        };
        self.convolution(input, g, transposed)
    }

    /// A grouped kernel for the input's cotangent: the group axis, split out of the output
    /// features, joins the input features (major).
    fn move_groups_to_input_feature(
        &mut self,
        kernel: Value,
        spec: &[i64],
        groups: i64,
    ) -> Result<Value> {
        let shape = self.static_dims(kernel)?;
        let (out_dim, in_dim) = (spec[0] as usize, spec[1] as usize);
        // [.., O, ..] -> [.., G, O/G, ..]
        let mut split = shape.clone();
        split[out_dim] = shape[out_dim] / groups;
        split.insert(out_dim, groups);
        let to_u64 = |dims: &[i64]| dims.iter().map(|&d| d as u64).collect::<Vec<u64>>();
        let split_value = self.reshape(kernel, to_u64(&split))?;
        // The G axis goes right before the input-feature axis, then the two merge.
        let in_dim_split = if in_dim > out_dim { in_dim + 1 } else { in_dim };
        let mut order: Vec<usize> = (0..split.len()).filter(|&d| d != out_dim).collect();
        let at = order.iter().position(|&d| d == in_dim_split).unwrap_or(0);
        order.insert(at, out_dim);
        let permutation: Vec<i64> = order.iter().map(|&d| d as i64).collect();
        let moved = self.transpose(split_value, &permutation)?;
        let mut merged: Vec<i64> = order.iter().map(|&d| split[d]).collect();
        merged[at] *= merged[at + 1];
        merged.remove(at + 1);
        self.reshape(moved, to_u64(&merged))
    }
}
