//! The inherent attributes of each op, as `(name, MLIR text)` in the generic form: the MLIR
//! spelling of each attribute kind of the op table.

use super::syntax::{
    self, bool_array, dense, dict, float_value, i64_array, i64_list, i64_matrix, pairs_matrix,
    string, symbol,
};
use crate::attr::{
    Attribute, ChannelHandle, ConvDims, CustomCallApiVersion, DotDims, GatherDims, NamedAttrs,
    Precision, RaggedDotDims, ScatterDims, TensorSharding,
};
use crate::dense::DenseElements;
use crate::op::OpKind;
use crate::op::codec::{AttrWriter, EnumAttr};
use crate::types::{ElementType, Type};

type Entries = Vec<(String, String)>;

/// The op's inherent attributes; `results` gives the constant's type.
pub(super) fn inherent(kind: &OpKind, results: &[Type]) -> Entries {
    let mut writer = Inherent {
        results,
        entries: Entries::new(),
    };
    kind.write_attrs(&mut writer);
    writer.entries
}

struct Inherent<'a> {
    results: &'a [Type],
    entries: Entries,
}

impl Inherent<'_> {
    fn push(&mut self, name: &str, value: String) {
        self.entries.push((name.to_string(), value));
    }

    fn push_if(&mut self, present: bool, name: &str, value: impl FnOnce() -> String) {
        if present {
            self.push(name, value());
        }
    }
}

fn i64_attr(value: i64) -> String {
    format!("{value} : i64")
}

fn enum_attr<E: EnumAttr>(value: E) -> String {
    format!("#stablehlo<{} {}>", E::MNEMONIC, value.keyword())
}

fn chlo_enum_attr<E: EnumAttr>(value: E) -> String {
    format!("#chlo<{} {}>", E::MNEMONIC, value.keyword())
}

impl AttrWriter for Inherent<'_> {
    fn int(&mut self, name: &'static str, value: &i64) {
        self.push(name, i64_attr(*value));
    }

    fn int_or(&mut self, name: &'static str, value: &i64, _default: i64) {
        self.push(name, i64_attr(*value));
    }

    fn count(&mut self, name: &'static str, value: &u64) {
        self.push(name, i64_attr(*value as i64));
    }

    fn opt_i32(&mut self, name: &'static str, value: &i32) {
        self.push_if(*value != 0, name, || format!("{value} : i32"));
    }

    fn i32(&mut self, name: &'static str, value: &i32) {
        self.push(name, format!("{value} : i32"));
    }

    fn f32(&mut self, name: &'static str, value: &f32) {
        let text = float_value(ElementType::F32, f64::from(*value));
        self.push(name, format!("{text} : f32"));
    }

    fn i64_array(&mut self, name: &'static str, value: &[i64]) {
        self.push(name, i64_array(value));
    }

    fn opt_i64_array(&mut self, name: &'static str, value: &[i64]) {
        self.push_if(!value.is_empty(), name, || i64_array(value));
    }

    fn opt_bool_array(&mut self, name: &'static str, value: &[bool]) {
        self.push_if(!value.is_empty(), name, || bool_array(value));
    }

    fn flag(&mut self, name: &'static str, value: &bool) {
        self.push_if(*value, name, || "true".to_string());
    }

    fn unit_flag(&mut self, name: &'static str, value: &bool) {
        self.push_if(*value, name, || "unit".to_string());
    }

    fn bool(&mut self, name: &'static str, value: &bool) {
        self.push(name, value.to_string());
    }

    fn enumerant<E: EnumAttr>(&mut self, name: &'static str, value: &E) {
        self.push(name, enum_attr(*value));
    }

    fn opt_enumerant<E: EnumAttr>(&mut self, name: &'static str, value: &Option<E>) {
        if let Some(value) = value {
            self.push(name, enum_attr(*value));
        }
    }

    fn chlo_enumerant<E: EnumAttr>(&mut self, name: &'static str, value: &E) {
        self.push(name, chlo_enum_attr(*value));
    }

    fn opt_chlo_enumerant<E: EnumAttr>(&mut self, name: &'static str, value: &Option<E>) {
        if let Some(value) = value {
            self.push(name, chlo_enum_attr(*value));
        }
    }

    fn typed_value(&mut self, name: &'static str, value: &Attribute) {
        self.push(name, syntax::attribute(value));
    }

    fn ragged_dot_dims(&mut self, name: &'static str, value: &RaggedDotDims) {
        self.push(name, ragged_dot_dims(value));
    }

    fn chlo_precision(&mut self, name: &'static str, value: &[Precision]) {
        self.push_if(!value.is_empty(), name, || {
            let items: Vec<String> = value.iter().map(|&p| chlo_enum_attr(p)).collect();
            format!("[{}]", items.join(", "))
        });
    }

    fn api_version(&mut self, name: &'static str, value: &CustomCallApiVersion) {
        self.push_if(*value != CustomCallApiVersion::Original, name, || {
            format!("{} : i32", *value as i32)
        });
    }

    fn constant(&mut self, name: &'static str, value: &DenseElements) {
        if let Some(ty) = self.results.first().and_then(Type::as_tensor) {
            self.push(name, format!("{} : {ty}", dense(ty, value)));
        }
    }

    fn dot_dims(&mut self, name: &'static str, value: &DotDims) {
        self.push(name, dot_dims(value));
    }

    fn gather_dims(&mut self, name: &'static str, value: &GatherDims) {
        self.push(name, gather_dims(value));
    }

    fn scatter_dims(&mut self, name: &'static str, value: &ScatterDims) {
        self.push(name, scatter_dims(value));
    }

    fn conv_dims(&mut self, name: &'static str, value: &ConvDims) {
        self.push(name, conv_dims(value));
    }

    fn precision(&mut self, name: &'static str, value: &[Precision]) {
        self.push_if(!value.is_empty(), name, || precision(value));
    }

    fn pairs(&mut self, name: &'static str, value: &[(i64, i64)]) {
        self.push(name, pairs_matrix(value));
    }

    fn opt_pairs(&mut self, name: &'static str, value: &[(i64, i64)]) {
        self.push_if(!value.is_empty(), name, || pairs_matrix(value));
    }

    fn replica_groups(&mut self, name: &'static str, value: &[Vec<i64>]) {
        self.push(name, i64_matrix(value));
    }

    fn opt_channel(&mut self, name: &'static str, value: &Option<ChannelHandle>) {
        if let Some(handle) = value {
            self.push(name, channel(handle));
        }
    }

    fn string(&mut self, name: &'static str, value: &str) {
        self.push(name, string(value));
    }

    fn opt_string(&mut self, name: &'static str, value: &str) {
        self.push_if(!value.is_empty(), name, || string(value));
    }

    fn symbol(&mut self, name: &'static str, value: &str) {
        self.push(name, symbol(value));
    }

    fn opt_dict(&mut self, name: &'static str, value: &NamedAttrs) {
        self.push_if(!value.is_empty(), name, || {
            dict(
                value
                    .iter()
                    .map(|(n, v)| (syntax::attr_name(n), syntax::attribute(v))),
            )
        });
    }

    fn sharding(&mut self, name: &'static str, value: &TensorSharding) {
        self.push(name, syntax::sharding(value));
    }
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

fn ragged_dot_dims(d: &RaggedDotDims) -> String {
    format!(
        "#chlo.ragged_dot<{}>",
        fields(list_fields(&[
            ("lhs_batching_dimensions", &d.dot.lhs_batching),
            ("rhs_batching_dimensions", &d.dot.rhs_batching),
            ("lhs_contracting_dimensions", &d.dot.lhs_contracting),
            ("rhs_contracting_dimensions", &d.dot.rhs_contracting),
            ("lhs_ragged_dimensions", &d.lhs_ragged),
            ("rhs_group_dimensions", &d.rhs_group),
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

pub(super) fn channel(handle: &ChannelHandle) -> String {
    format!(
        "#stablehlo.channel_handle<handle = {}, type = {}>",
        handle.handle, handle.kind
    )
}
