//! The inherent attributes of each op, as `(name, MLIR text)` in the generic form.

use super::syntax::{
    bool_array, dense, dict, float_value, i64_array, i64_list, i64_matrix, pairs_matrix, string,
    symbol,
};
use crate::attr::{
    ChannelHandle, CollectiveAttrs, ConvAttrs, ConvDims, DotDims, GatherDims, Precision,
    ScatterDims,
};
use crate::op::OpKind;
use crate::types::{ElementType, Type};

type Entries = Vec<(String, String)>;

fn push(entries: &mut Entries, name: &str, value: String) {
    entries.push((name.to_string(), value));
}

fn i64_attr(value: i64) -> String {
    format!("{value} : i64")
}

pub(super) fn precision(values: &[Precision]) -> String {
    let items: Vec<String> = values
        .iter()
        .map(|p| format!("#stablehlo<precision {}>", p.keyword()))
        .collect();
    format!("[{}]", items.join(", "))
}

fn fields(items: Vec<(&str, String)>) -> String {
    items
        .into_iter()
        .map(|(name, value)| format!("{name} = {value}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Non-empty lists only, as StableHLO prints its dimension-number structs.
fn list_fields<'a>(items: &[(&'a str, &[i64])]) -> Vec<(&'a str, String)> {
    items
        .iter()
        .filter(|(_, values)| !values.is_empty())
        .map(|&(name, values)| (name, i64_list(values)))
        .collect()
}

pub(super) fn dot_dims(d: &DotDims) -> String {
    format!(
        "#stablehlo.dot<{}>",
        fields(list_fields(&[
            ("lhs_batching_dimensions", &d.lhs_batching),
            ("rhs_batching_dimensions", &d.rhs_batching),
            ("lhs_contracting_dimensions", &d.lhs_contracting),
            ("rhs_contracting_dimensions", &d.rhs_contracting),
        ]))
    )
}

fn gather_dims(d: &GatherDims) -> String {
    let mut items = list_fields(&[
        ("offset_dims", &d.offset_dims),
        ("collapsed_slice_dims", &d.collapsed_slice_dims),
        ("operand_batching_dims", &d.operand_batching_dims),
        (
            "start_indices_batching_dims",
            &d.start_indices_batching_dims,
        ),
        ("start_index_map", &d.start_index_map),
    ]);
    items.push(("index_vector_dim", d.index_vector_dim.to_string()));
    format!("#stablehlo.gather<{}>", fields(items))
}

fn scatter_dims(d: &ScatterDims) -> String {
    let mut items = list_fields(&[
        ("update_window_dims", &d.update_window_dims),
        ("inserted_window_dims", &d.inserted_window_dims),
        ("input_batching_dims", &d.input_batching_dims),
        (
            "scatter_indices_batching_dims",
            &d.scatter_indices_batching_dims,
        ),
        (
            "scatter_dims_to_operand_dims",
            &d.scatter_dims_to_operand_dims,
        ),
    ]);
    items.push(("index_vector_dim", d.index_vector_dim.to_string()));
    format!("#stablehlo.scatter<{}>", fields(items))
}

/// `[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]`, or `None` when the numbers do not describe one
/// role per dimension (only invalid IR).
pub(super) fn conv_dims_compact(d: &ConvDims) -> Option<String> {
    fn side(rank: usize, a: (i64, &str), b: (i64, &str), spatial: &[i64]) -> Option<String> {
        let mut slots: Vec<Option<String>> = vec![None; rank];
        let mut place = |dim: i64, label: String| -> Option<()> {
            let slot = slots.get_mut(usize::try_from(dim).ok()?)?;
            if slot.is_some() {
                return None;
            }
            *slot = Some(label);
            Some(())
        };
        place(a.0, a.1.to_string())?;
        place(b.0, b.1.to_string())?;
        for (i, &dim) in spatial.iter().enumerate() {
            place(dim, i.to_string())?;
        }
        let labels: Option<Vec<String>> = slots.into_iter().collect();
        Some(format!("[{}]", labels?.join(", ")))
    }
    let rank = d.input_spatial.len() + 2;
    Some(format!(
        "{}x{}->{}",
        side(
            rank,
            (d.input_batch, "b"),
            (d.input_feature, "f"),
            &d.input_spatial
        )?,
        side(
            rank,
            (d.kernel_input_feature, "i"),
            (d.kernel_output_feature, "o"),
            &d.kernel_spatial
        )?,
        side(
            rank,
            (d.output_batch, "b"),
            (d.output_feature, "f"),
            &d.output_spatial
        )?,
    ))
}

fn conv_dims(d: &ConvDims) -> String {
    match conv_dims_compact(d) {
        Some(compact) => format!("#stablehlo.conv<{compact}>"),
        None => format!(
            "#stablehlo.conv<raw input_batch_dimension = {}, input_feature_dimension = {}, input_spatial_dimensions = {}, kernel_input_feature_dimension = {}, kernel_output_feature_dimension = {}, kernel_spatial_dimensions = {}, output_batch_dimension = {}, output_feature_dimension = {}, output_spatial_dimensions = {}>",
            d.input_batch,
            d.input_feature,
            i64_list(&d.input_spatial),
            d.kernel_input_feature,
            d.kernel_output_feature,
            i64_list(&d.kernel_spatial),
            d.output_batch,
            d.output_feature,
            i64_list(&d.output_spatial)
        ),
    }
}

pub(super) fn padding(pairs: &[(i64, i64)]) -> String {
    pairs_matrix(pairs)
}

fn conv(entries: &mut Entries, attrs: &ConvAttrs, with_padding: bool) {
    push(entries, "dimension_numbers", conv_dims(&attrs.dims));
    if !attrs.window_strides.is_empty() {
        push(entries, "window_strides", i64_array(&attrs.window_strides));
    }
    if with_padding && !attrs.padding.is_empty() {
        push(entries, "padding", padding(&attrs.padding));
    }
    if !attrs.lhs_dilation.is_empty() {
        push(entries, "lhs_dilation", i64_array(&attrs.lhs_dilation));
    }
    if !attrs.rhs_dilation.is_empty() {
        push(entries, "rhs_dilation", i64_array(&attrs.rhs_dilation));
    }
    if !attrs.window_reversal.is_empty() {
        push(
            entries,
            "window_reversal",
            bool_array(&attrs.window_reversal),
        );
    }
    push(
        entries,
        "feature_group_count",
        i64_attr(attrs.feature_group_count as i64),
    );
    push(
        entries,
        "batch_group_count",
        i64_attr(attrs.batch_group_count as i64),
    );
    if !attrs.precision.is_empty() {
        push(entries, "precision_config", precision(&attrs.precision));
    }
}

pub(super) fn channel(handle: &ChannelHandle) -> String {
    format!(
        "#stablehlo.channel_handle<handle = {}, type = {}>",
        handle.handle, handle.kind
    )
}

fn collective(entries: &mut Entries, c: &CollectiveAttrs) {
    push(entries, "replica_groups", i64_matrix(&c.replica_groups));
    if let Some(handle) = &c.channel {
        push(entries, "channel_handle", channel(handle));
    }
    if c.use_global_device_ids {
        push(entries, "use_global_device_ids", "unit".to_string());
    }
}

/// The op's inherent attributes; `results` gives the constant's type.
pub(super) fn inherent(kind: &OpKind, results: &[Type]) -> Entries {
    let mut e = Entries::new();
    match kind {
        OpKind::Compare {
            direction,
            compare_type,
        } => {
            push(
                &mut e,
                "comparison_direction",
                format!("#stablehlo<comparison_direction {}>", direction.keyword()),
            );
            if let Some(t) = compare_type {
                push(
                    &mut e,
                    "compare_type",
                    format!("#stablehlo<comparison_type {}>", t.keyword()),
                );
            }
        }
        OpKind::Constant(data) => {
            if let Some(ty) = results.first().and_then(Type::as_tensor) {
                push(&mut e, "value", format!("{} : {ty}", dense(ty, data)));
            }
        }
        OpKind::Iota { dimension } | OpKind::DynamicIota { dimension } => {
            push(&mut e, "iota_dimension", i64_attr(*dimension));
        }
        OpKind::BroadcastInDim { dims } => push(&mut e, "broadcast_dimensions", i64_array(dims)),
        OpKind::Transpose { permutation } => push(&mut e, "permutation", i64_array(permutation)),
        OpKind::Slice {
            start,
            limit,
            strides,
        } => {
            push(&mut e, "start_indices", i64_array(start));
            push(&mut e, "limit_indices", i64_array(limit));
            push(&mut e, "strides", i64_array(strides));
        }
        OpKind::DynamicSlice { sizes } => push(&mut e, "slice_sizes", i64_array(sizes)),
        OpKind::Concatenate { dimension } | OpKind::GetDimensionSize { dimension } => {
            push(&mut e, "dimension", i64_attr(*dimension));
        }
        OpKind::Pad {
            low,
            high,
            interior,
        } => {
            push(&mut e, "edge_padding_low", i64_array(low));
            push(&mut e, "edge_padding_high", i64_array(high));
            push(&mut e, "interior_padding", i64_array(interior));
        }
        OpKind::Reverse { dims } => push(&mut e, "dimensions", i64_array(dims)),
        OpKind::Gather {
            dims,
            slice_sizes,
            indices_are_sorted,
        } => {
            push(&mut e, "dimension_numbers", gather_dims(dims));
            push(&mut e, "slice_sizes", i64_array(slice_sizes));
            if *indices_are_sorted {
                push(&mut e, "indices_are_sorted", "true".into());
            }
        }
        OpKind::DynamicGather {
            dims,
            indices_are_sorted,
        } => {
            push(&mut e, "dimension_numbers", gather_dims(dims));
            if *indices_are_sorted {
                push(&mut e, "indices_are_sorted", "true".into());
            }
        }
        OpKind::Scatter {
            dims,
            indices_are_sorted,
            unique_indices,
        } => {
            push(&mut e, "scatter_dimension_numbers", scatter_dims(dims));
            if *indices_are_sorted {
                push(&mut e, "indices_are_sorted", "true".into());
            }
            if *unique_indices {
                push(&mut e, "unique_indices", "true".into());
            }
        }
        OpKind::DotGeneral { dims, precision: p } => {
            push(&mut e, "dot_dimension_numbers", dot_dims(dims));
            if !p.is_empty() {
                push(&mut e, "precision_config", precision(p));
            }
        }
        OpKind::Convolution(attrs) => conv(&mut e, attrs, true),
        OpKind::DynamicConv(attrs) => conv(&mut e, attrs, false),
        OpKind::Reduce { dimensions } => push(&mut e, "dimensions", i64_array(dimensions)),
        OpKind::ReduceWindow(w) => {
            push(&mut e, "window_dimensions", i64_array(&w.window_dimensions));
            if !w.window_strides.is_empty() {
                push(&mut e, "window_strides", i64_array(&w.window_strides));
            }
            if !w.base_dilations.is_empty() {
                push(&mut e, "base_dilations", i64_array(&w.base_dilations));
            }
            if !w.window_dilations.is_empty() {
                push(&mut e, "window_dilations", i64_array(&w.window_dilations));
            }
            if !w.padding.is_empty() {
                push(&mut e, "padding", padding(&w.padding));
            }
        }
        OpKind::SelectAndScatter {
            window_dimensions,
            window_strides,
            padding: pad,
        } => {
            push(&mut e, "window_dimensions", i64_array(window_dimensions));
            if !window_strides.is_empty() {
                push(&mut e, "window_strides", i64_array(window_strides));
            }
            if !pad.is_empty() {
                push(&mut e, "padding", padding(pad));
            }
        }
        OpKind::Sort {
            dimension,
            is_stable,
        } => {
            push(&mut e, "dimension", i64_attr(*dimension));
            push(&mut e, "is_stable", is_stable.to_string());
        }
        OpKind::Composite {
            name,
            attributes,
            decomposition,
            version,
        } => {
            push(&mut e, "name", string(name));
            if !attributes.is_empty() {
                let entries = attributes
                    .iter()
                    .map(|(n, v)| (super::syntax::attr_name(n), super::syntax::attribute(v)));
                push(&mut e, "composite_attributes", dict(entries));
            }
            push(&mut e, "decomposition", symbol(decomposition));
            if *version != 0 {
                push(&mut e, "version", format!("{version} : i32"));
            }
        }
        OpKind::CustomCall {
            target,
            backend_config,
            has_side_effect,
            api_version,
        } => {
            push(&mut e, "call_target_name", string(target));
            if !backend_config.is_empty() {
                push(&mut e, "backend_config", string(backend_config));
            }
            if *has_side_effect {
                push(&mut e, "has_side_effect", "true".into());
            }
            if *api_version != crate::attr::CustomCallApiVersion::Original {
                push(
                    &mut e,
                    "api_version",
                    format!("{} : i32", *api_version as i32),
                );
            }
        }
        OpKind::BatchNormInference {
            epsilon,
            feature_index,
        }
        | OpKind::BatchNormTraining {
            epsilon,
            feature_index,
        } => {
            let eps = float_value(ElementType::F32, f64::from(*epsilon));
            push(&mut e, "epsilon", format!("{eps} : f32"));
            push(&mut e, "feature_index", i64_attr(*feature_index));
        }
        OpKind::RngBitGenerator { algorithm } => push(
            &mut e,
            "rng_algorithm",
            format!("#stablehlo<rng_algorithm {}>", algorithm.keyword()),
        ),
        OpKind::AllReduce(c) => collective(&mut e, c),
        OpKind::AllGather {
            dimension,
            collective: c,
        } => {
            push(&mut e, "all_gather_dim", i64_attr(*dimension));
            collective(&mut e, c);
        }
        OpKind::ReduceScatter {
            dimension,
            collective: c,
        } => {
            push(&mut e, "scatter_dimension", i64_attr(*dimension));
            collective(&mut e, c);
        }
        OpKind::AllToAll {
            split_dimension,
            concat_dimension,
            split_count,
            replica_groups,
            channel: handle,
        } => {
            push(&mut e, "split_dimension", i64_attr(*split_dimension));
            push(&mut e, "concat_dimension", i64_attr(*concat_dimension));
            push(&mut e, "split_count", i64_attr(*split_count));
            push(&mut e, "replica_groups", i64_matrix(replica_groups));
            if let Some(handle) = handle {
                push(&mut e, "channel_handle", channel(handle));
            }
        }
        OpKind::CollectivePermute {
            source_target_pairs,
            channel: handle,
        } => {
            push(
                &mut e,
                "source_target_pairs",
                pairs_matrix(source_target_pairs),
            );
            if let Some(handle) = handle {
                push(&mut e, "channel_handle", channel(handle));
            }
        }
        OpKind::DynamicBroadcastInDim {
            dims,
            known_expanding,
            known_nonexpanding,
        } => {
            push(&mut e, "broadcast_dimensions", i64_array(dims));
            if !known_expanding.is_empty() {
                push(
                    &mut e,
                    "known_expanding_dimensions",
                    i64_array(known_expanding),
                );
            }
            if !known_nonexpanding.is_empty() {
                push(
                    &mut e,
                    "known_nonexpanding_dimensions",
                    i64_array(known_nonexpanding),
                );
            }
        }
        OpKind::Call { callee } => push(&mut e, "callee", symbol(callee)),
        OpKind::ShardingConstraint(s) => push(&mut e, "sharding", super::syntax::sharding(s)),
        OpKind::Unary(_)
        | OpKind::Binary(_)
        | OpKind::Select
        | OpKind::Clamp
        | OpKind::Convert
        | OpKind::BitcastConvert
        | OpKind::Reshape
        | OpKind::DynamicUpdateSlice
        | OpKind::While
        | OpKind::Case
        | OpKind::If
        | OpKind::OptimizationBarrier
        | OpKind::ReplicaId
        | OpKind::PartitionId
        | OpKind::DynamicReshape
        | OpKind::DynamicPad
        | OpKind::Return
        | OpKind::RegionReturn => {}
    }
    e
}
