//! From an op name and its attributes (generic names, whichever form they were written in) to a
//! typed [`OpKind`]. Attributes an op does not own are left in the bag and become discardable.

use super::attr::{Attr, AttrValue, dict_to_named};
use super::cursor::PResult;
use super::error::ParseError;
use crate::attr::{
    ChannelHandle, CollectiveAttrs, ComparisonDirection, ComparisonType, ConvAttrs,
    CustomCallApiVersion, DotDims, Precision, RngAlgorithm, TensorSharding, WindowAttrs,
};
use crate::dense::{DenseElements, ElementValue};
use crate::op::{BinaryOp, OpKind, UnaryOp};
use crate::types::{TensorType, Type};

/// What the dialect check says about an op name.
pub(crate) enum Known {
    Yes,
    No(String, Option<&'static str>),
}

/// Whether tpuc models the op `name`; if not, the message and help to show.
pub(crate) fn known(name: &str) -> Known {
    if UnaryOp::from_name(name).is_some()
        || BinaryOp::from_name(name).is_some()
        || name == "stablehlo.dot"
        || OpKind::OTHER_NAMES.contains(&name)
    {
        return Known::Yes;
    }
    if name.starts_with("chlo.") {
        return Known::No(
            format!(
                "unknown op `{name}`: CHLO ops are not StableHLO; lower them to StableHLO first (e.g. with stablehlo-opt --chlo-legalize-to-stablehlo)"
            ),
            Some(
                "JAX emits CHLO for some ops (lax.top_k, erfc, ...); legalize the module to StableHLO before handing it to tpuc",
            ),
        );
    }
    if name.starts_with("stablehlo.") {
        return Known::No(
            format!("unsupported StableHLO op `{name}`: tpuc's IR does not model it"),
            None,
        );
    }
    Known::No(
        format!("unknown op `{name}`: tpuc reads StableHLO, func and sdy ops only"),
        Some("lower other dialects (mhlo, arith, tensor, shape, ...) to StableHLO first"),
    )
}

/// An op's attributes by name, taken out one by one as the op kind reads them.
pub(crate) struct AttrBag {
    pub entries: Vec<(String, Attr)>,
}

/// Context for reading attributes: the source (for messages) and the op being built.
pub(crate) struct KindCx<'a> {
    pub src: &'a str,
    pub op: &'a str,
    pub op_start: usize,
    pub op_end: usize,
    pub bag: AttrBag,
}

impl KindCx<'_> {
    fn take(&mut self, name: &str) -> Option<Attr> {
        let index = self.bag.entries.iter().position(|(n, _)| n == name)?;
        Some(self.bag.entries.remove(index).1)
    }

    fn missing(&self, name: &str) -> ParseError {
        ParseError::at(
            self.src,
            self.op_start,
            self.op_end,
            format!("`{}` needs the attribute `{name}`", self.op),
        )
    }

    fn wrong(&self, name: &str, attr: &Attr, expected: &str) -> ParseError {
        ParseError::at(
            self.src,
            attr.start,
            attr.end,
            format!(
                "attribute `{name}` of `{}` must be {expected}, found `{}`",
                self.op,
                attr.text(self.src)
            ),
        )
    }

    fn required(&mut self, name: &str) -> PResult<Attr> {
        self.take(name).ok_or_else(|| self.missing(name))
    }

    fn i64_list(&mut self, name: &str) -> PResult<Vec<i64>> {
        let attr = self.required(name)?;
        self.as_i64_list(name, &attr)
    }

    fn opt_i64_list(&mut self, name: &str) -> PResult<Vec<i64>> {
        match self.take(name) {
            Some(attr) => self.as_i64_list(name, &attr),
            None => Ok(Vec::new()),
        }
    }

    fn as_i64_list(&self, name: &str, attr: &Attr) -> PResult<Vec<i64>> {
        let values = match &attr.value {
            AttrValue::I64Array(values) => Some(values.clone()),
            AttrValue::Array(items) => items
                .iter()
                .map(|item| match item.value {
                    AttrValue::Int { value, .. } => i64::try_from(value).ok(),
                    _ => None,
                })
                .collect(),
            AttrValue::Dense { ty, data } if ty.rank() == 1 => dense_ints(ty, data),
            _ => None,
        };
        values.ok_or_else(|| self.wrong(name, attr, "a list of integers (`array<i64: ...>`)"))
    }

    fn int(&mut self, name: &str) -> PResult<i64> {
        let attr = self.required(name)?;
        self.as_int(name, &attr)
    }

    fn opt_int(&mut self, name: &str, default: i64) -> PResult<i64> {
        match self.take(name) {
            Some(attr) => self.as_int(name, &attr),
            None => Ok(default),
        }
    }

    fn as_int(&self, name: &str, attr: &Attr) -> PResult<i64> {
        match attr.value {
            AttrValue::Int { value, .. } => i64::try_from(value).ok(),
            _ => None,
        }
        .ok_or_else(|| self.wrong(name, attr, "an integer"))
    }

    fn opt_bool(&mut self, name: &str) -> PResult<bool> {
        match self.take(name) {
            None => Ok(false),
            Some(attr) => match attr.value {
                AttrValue::Bool(b) => Ok(b),
                AttrValue::Unit => Ok(true),
                _ => Err(self.wrong(name, &attr, "`true` or `false`")),
            },
        }
    }

    fn string(&mut self, name: &str) -> PResult<String> {
        let attr = self.required(name)?;
        match &attr.value {
            AttrValue::Str(s) => Ok(s.clone()),
            _ => Err(self.wrong(name, &attr, "a string")),
        }
    }

    fn symbol(&mut self, name: &str) -> PResult<String> {
        let attr = self.required(name)?;
        match &attr.value {
            AttrValue::Symbol(s) => Ok(s.clone()),
            _ => Err(self.wrong(name, &attr, "a symbol like `@name`")),
        }
    }

    fn enum_value(&self, name: &str, attr: &Attr, kind: &str) -> PResult<String> {
        match &attr.value {
            AttrValue::Enum { kind: k, value } if k == kind => Ok(value.clone()),
            _ => Err(self.wrong(name, attr, &format!("`#stablehlo<{kind} ...>`"))),
        }
    }

    fn keyword<T>(
        &self,
        name: &str,
        attr: &Attr,
        kind: &str,
        parse: fn(&str) -> Option<T>,
    ) -> PResult<T> {
        let value = self.enum_value(name, attr, kind)?;
        parse(&value).ok_or_else(|| {
            ParseError::at(
                self.src,
                attr.start,
                attr.end,
                format!("unknown {kind} `{value}`"),
            )
        })
    }

    fn precision(&mut self) -> PResult<Vec<Precision>> {
        let Some(attr) = self.take("precision_config") else {
            return Ok(Vec::new());
        };
        let AttrValue::Array(items) = &attr.value else {
            return Err(self.wrong(
                "precision_config",
                &attr,
                "a list of `#stablehlo<precision ...>`",
            ));
        };
        items
            .iter()
            .map(|item| {
                self.keyword(
                    "precision_config",
                    item,
                    "precision",
                    Precision::from_keyword,
                )
            })
            .collect()
    }

    /// Rows of a 2-D integer attribute (`dense<[[0, 1]]> : tensor<1x2xi64>` or nested lists).
    fn matrix(&mut self, name: &str) -> PResult<Option<Vec<Vec<i64>>>> {
        let Some(attr) = self.take(name) else {
            return Ok(None);
        };
        let rows = match &attr.value {
            AttrValue::Dense { ty, data } if ty.rank() == 2 => {
                let cols = ty.static_shape().map_or(0, |s| s[1] as usize);
                dense_ints(ty, data).map(|values| {
                    if cols == 0 {
                        vec![Vec::new(); ty.static_shape().map_or(0, |s| s[0] as usize)]
                    } else {
                        values.chunks(cols).map(<[i64]>::to_vec).collect()
                    }
                })
            }
            AttrValue::Array(rows) => rows
                .iter()
                .map(|row| self.as_i64_list(name, row).ok())
                .collect(),
            _ => None,
        };
        rows.map(Some).ok_or_else(|| {
            self.wrong(
                name,
                &attr,
                "a 2-D integer tensor (`dense<[[...]]> : tensor<NxMxi64>`)",
            )
        })
    }

    fn pairs(&mut self, name: &str) -> PResult<Vec<(i64, i64)>> {
        let Some(rows) = self.matrix(name)? else {
            return Ok(Vec::new());
        };
        rows.into_iter()
            .map(|row| match row.as_slice() {
                [a, b] => Ok((*a, *b)),
                _ => Err(ParseError::at(
                    self.src,
                    self.op_start,
                    self.op_end,
                    format!("`{name}` of `{}` must hold pairs", self.op),
                )),
            })
            .collect()
    }

    fn bool_list(&mut self, name: &str) -> PResult<Vec<bool>> {
        let Some(attr) = self.take(name) else {
            return Ok(Vec::new());
        };
        let values = match &attr.value {
            AttrValue::BoolArray(values) => Some(values.clone()),
            AttrValue::Array(items) => items
                .iter()
                .map(|item| match item.value {
                    AttrValue::Bool(b) => Some(b),
                    AttrValue::Int { value, .. } => Some(value != 0),
                    _ => None,
                })
                .collect(),
            AttrValue::Dense { ty, data } if ty.rank() == 1 => {
                dense_ints(ty, data).map(|v| v.into_iter().map(|x| x != 0).collect())
            }
            _ => None,
        };
        values.ok_or_else(|| self.wrong(name, &attr, "a list of booleans (`array<i1: ...>`)"))
    }

    fn channel(&mut self) -> PResult<Option<ChannelHandle>> {
        let Some(attr) = self.take("channel_handle") else {
            return Ok(None);
        };
        match attr.value {
            AttrValue::Channel(handle) => Ok(Some(handle)),
            _ => Err(self.wrong("channel_handle", &attr, "`#stablehlo.channel_handle<...>`")),
        }
    }

    fn replica_groups(&mut self) -> PResult<Vec<Vec<i64>>> {
        let rows = self
            .matrix("replica_groups")?
            .ok_or_else(|| self.missing("replica_groups"))?;
        Ok(rows
            .into_iter()
            .map(|row| row.into_iter().filter(|&id| id != -1).collect())
            .collect())
    }

    fn collective(&mut self) -> PResult<CollectiveAttrs> {
        Ok(CollectiveAttrs {
            replica_groups: self.replica_groups()?,
            channel: self.channel()?,
            use_global_device_ids: self.opt_bool("use_global_device_ids")?,
        })
    }

    fn conv(&mut self, with_padding: bool) -> PResult<ConvAttrs> {
        let attr = self.required("dimension_numbers")?;
        let AttrValue::Conv(dims) = attr.value.clone() else {
            return Err(self.wrong("dimension_numbers", &attr, "`#stablehlo.conv<...>`"));
        };
        let mut conv = ConvAttrs::new(dims);
        conv.window_strides = self.opt_i64_list("window_strides")?;
        if with_padding {
            conv.padding = self.pairs("padding")?;
        }
        conv.lhs_dilation = self.opt_i64_list("lhs_dilation")?;
        conv.rhs_dilation = self.opt_i64_list("rhs_dilation")?;
        conv.window_reversal = self.bool_list("window_reversal")?;
        conv.feature_group_count = self.count("feature_group_count")?;
        conv.batch_group_count = self.count("batch_group_count")?;
        conv.precision = self.precision()?;
        Ok(conv)
    }

    fn count(&mut self, name: &str) -> PResult<u64> {
        let value = self.opt_int(name, 1)?;
        u64::try_from(value).map_err(|_| {
            ParseError::at(
                self.src,
                self.op_start,
                self.op_end,
                format!("`{name}` must be positive"),
            )
        })
    }

    fn sharding(&mut self) -> PResult<TensorSharding> {
        let attr = self.required("sharding")?;
        match attr.value {
            AttrValue::Sharding(s) => Ok(s),
            _ => Err(self.wrong("sharding", &attr, "`#sdy.sharding<...>`")),
        }
    }

    /// The op kind of `self.op` with `results` as its result types.
    pub(crate) fn build(&mut self, operands: &[Type], results: &[Type]) -> PResult<OpKind> {
        let op = self.op;
        if let Some(unary) = UnaryOp::from_name(op) {
            return Ok(OpKind::Unary(unary));
        }
        if let Some(binary) = BinaryOp::from_name(op) {
            return Ok(OpKind::Binary(binary));
        }
        Ok(match op {
            "stablehlo.compare" => {
                let attr = self.required("comparison_direction")?;
                let direction = self.keyword(
                    "comparison_direction",
                    &attr,
                    "comparison_direction",
                    ComparisonDirection::from_keyword,
                )?;
                let compare_type = match self.take("compare_type") {
                    Some(attr) => Some(self.keyword(
                        "compare_type",
                        &attr,
                        "comparison_type",
                        ComparisonType::from_keyword,
                    )?),
                    None => None,
                };
                OpKind::Compare {
                    direction,
                    compare_type,
                }
            }
            "stablehlo.select" => OpKind::Select,
            "stablehlo.clamp" => OpKind::Clamp,
            "stablehlo.convert" => OpKind::Convert,
            "stablehlo.bitcast_convert" => OpKind::BitcastConvert,
            "stablehlo.constant" => {
                let attr = self.required("value")?;
                let AttrValue::Dense { ty, data } = &attr.value else {
                    return Err(self.wrong(
                        "value",
                        &attr,
                        "a dense elements attribute (`dense<...> : tensor<...>`)",
                    ));
                };
                if results.len() != 1 || results[0] != Type::Tensor(ty.clone()) {
                    return Err(ParseError::at(
                        self.src,
                        attr.start,
                        attr.end,
                        format!(
                            "type mismatch: the constant's value has type {ty} but the op's result type is {}",
                            types_text(results)
                        ),
                    ));
                }
                OpKind::Constant(data.clone())
            }
            "stablehlo.iota" => OpKind::Iota {
                dimension: self.int("iota_dimension")?,
            },
            "stablehlo.broadcast_in_dim" => OpKind::BroadcastInDim {
                dims: self.i64_list("broadcast_dimensions")?,
            },
            "stablehlo.reshape" => OpKind::Reshape,
            "stablehlo.transpose" => OpKind::Transpose {
                permutation: self.i64_list("permutation")?,
            },
            "stablehlo.slice" => OpKind::Slice {
                start: self.i64_list("start_indices")?,
                limit: self.i64_list("limit_indices")?,
                strides: self.i64_list("strides")?,
            },
            "stablehlo.dynamic_slice" => OpKind::DynamicSlice {
                sizes: self.i64_list("slice_sizes")?,
            },
            "stablehlo.dynamic_update_slice" => OpKind::DynamicUpdateSlice,
            "stablehlo.concatenate" => OpKind::Concatenate {
                dimension: self.int("dimension")?,
            },
            "stablehlo.pad" => OpKind::Pad {
                low: self.i64_list("edge_padding_low")?,
                high: self.i64_list("edge_padding_high")?,
                interior: self.i64_list("interior_padding")?,
            },
            "stablehlo.reverse" => OpKind::Reverse {
                dims: self.i64_list("dimensions")?,
            },
            "stablehlo.gather" | "stablehlo.dynamic_gather" => {
                let attr = self.required("dimension_numbers")?;
                let AttrValue::Gather(dims) = attr.value.clone() else {
                    return Err(self.wrong("dimension_numbers", &attr, "`#stablehlo.gather<...>`"));
                };
                if op == "stablehlo.gather" {
                    OpKind::Gather {
                        dims,
                        slice_sizes: self.i64_list("slice_sizes")?,
                        indices_are_sorted: self.opt_bool("indices_are_sorted")?,
                    }
                } else {
                    OpKind::DynamicGather {
                        dims,
                        indices_are_sorted: self.opt_bool("indices_are_sorted")?,
                    }
                }
            }
            "stablehlo.scatter" => {
                let attr = self.required("scatter_dimension_numbers")?;
                let AttrValue::Scatter(dims) = attr.value.clone() else {
                    return Err(self.wrong(
                        "scatter_dimension_numbers",
                        &attr,
                        "`#stablehlo.scatter<...>`",
                    ));
                };
                OpKind::Scatter {
                    dims,
                    indices_are_sorted: self.opt_bool("indices_are_sorted")?,
                    unique_indices: self.opt_bool("unique_indices")?,
                }
            }
            "stablehlo.dot_general" => {
                let attr = self.required("dot_dimension_numbers")?;
                let AttrValue::Dot(dims) = attr.value.clone() else {
                    return Err(self.wrong(
                        "dot_dimension_numbers",
                        &attr,
                        "`#stablehlo.dot<...>`",
                    ));
                };
                OpKind::DotGeneral {
                    dims,
                    precision: self.precision()?,
                }
            }
            "stablehlo.dot" => {
                let lhs_rank = operands
                    .first()
                    .and_then(Type::as_tensor)
                    .map_or(1, TensorType::rank);
                OpKind::DotGeneral {
                    dims: DotDims::contracting(lhs_rank as i64 - 1, 0),
                    precision: self.precision()?,
                }
            }
            "stablehlo.convolution" => OpKind::Convolution(Box::new(self.conv(true)?)),
            "stablehlo.dynamic_conv" => OpKind::DynamicConv(Box::new(self.conv(false)?)),
            "stablehlo.reduce" => OpKind::Reduce {
                dimensions: self.i64_list("dimensions")?,
            },
            "stablehlo.reduce_window" => OpKind::ReduceWindow(Box::new(WindowAttrs {
                window_dimensions: self.i64_list("window_dimensions")?,
                window_strides: self.opt_i64_list("window_strides")?,
                base_dilations: self.opt_i64_list("base_dilations")?,
                window_dilations: self.opt_i64_list("window_dilations")?,
                padding: self.pairs("padding")?,
            })),
            "stablehlo.select_and_scatter" => OpKind::SelectAndScatter {
                window_dimensions: self.i64_list("window_dimensions")?,
                window_strides: self.opt_i64_list("window_strides")?,
                padding: self.pairs("padding")?,
            },
            "stablehlo.sort" => OpKind::Sort {
                dimension: self.opt_int("dimension", -1)?,
                is_stable: self.opt_bool("is_stable")?,
            },
            "stablehlo.while" => OpKind::While,
            "stablehlo.case" => OpKind::Case,
            "stablehlo.if" => OpKind::If,
            "stablehlo.composite" => {
                let name = self.string("name")?;
                let attributes = match self.take("composite_attributes") {
                    Some(Attr {
                        value: AttrValue::Dict(entries),
                        ..
                    }) => dict_to_named(&entries, self.src),
                    Some(attr) => {
                        return Err(self.wrong("composite_attributes", &attr, "a dictionary"));
                    }
                    None => Default::default(),
                };
                let decomposition = self.symbol("decomposition")?;
                let version = self.opt_int("version", 0)?;
                let version = i32::try_from(version).map_err(|_| {
                    ParseError::at(
                        self.src,
                        self.op_start,
                        self.op_end,
                        "composite `version` is out of range",
                    )
                })?;
                OpKind::Composite {
                    name,
                    attributes,
                    decomposition,
                    version,
                }
            }
            "stablehlo.custom_call" => {
                let target = self.string("call_target_name")?;
                let backend_config = match self.take("backend_config") {
                    Some(Attr {
                        value: AttrValue::Str(text),
                        ..
                    }) => text,
                    Some(other) => {
                        // A dictionary config (typed FFI) stays a discardable attribute.
                        self.bag.entries.push(("backend_config".to_string(), other));
                        String::new()
                    }
                    None => String::new(),
                };
                let has_side_effect = self.opt_bool("has_side_effect")?;
                let version = self.opt_int("api_version", 1)?;
                let api_version = CustomCallApiVersion::from_i64(version).ok_or_else(|| {
                    ParseError::at(
                        self.src,
                        self.op_start,
                        self.op_end,
                        format!("unknown custom_call api_version {version}"),
                    )
                })?;
                OpKind::CustomCall {
                    target,
                    backend_config,
                    has_side_effect,
                    api_version,
                }
            }
            "stablehlo.optimization_barrier" => OpKind::OptimizationBarrier,
            "stablehlo.batch_norm_inference" | "stablehlo.batch_norm_training" => {
                let attr = self.required("epsilon")?;
                let epsilon = match attr.value {
                    AttrValue::Float { value, .. } => value as f32,
                    _ => return Err(self.wrong("epsilon", &attr, "a float")),
                };
                let feature_index = self.int("feature_index")?;
                if op == "stablehlo.batch_norm_inference" {
                    OpKind::BatchNormInference {
                        epsilon,
                        feature_index,
                    }
                } else {
                    OpKind::BatchNormTraining {
                        epsilon,
                        feature_index,
                    }
                }
            }
            "stablehlo.rng_bit_generator" => {
                let attr = self.required("rng_algorithm")?;
                OpKind::RngBitGenerator {
                    algorithm: self.keyword(
                        "rng_algorithm",
                        &attr,
                        "rng_algorithm",
                        RngAlgorithm::from_keyword,
                    )?,
                }
            }
            "stablehlo.all_reduce" => OpKind::AllReduce(self.collective()?),
            "stablehlo.all_gather" => OpKind::AllGather {
                dimension: self.int("all_gather_dim")?,
                collective: self.collective()?,
            },
            "stablehlo.reduce_scatter" => OpKind::ReduceScatter {
                dimension: self.int("scatter_dimension")?,
                collective: self.collective()?,
            },
            "stablehlo.all_to_all" => OpKind::AllToAll {
                split_dimension: self.int("split_dimension")?,
                concat_dimension: self.int("concat_dimension")?,
                split_count: self.int("split_count")?,
                replica_groups: self.replica_groups()?,
                channel: self.channel()?,
            },
            "stablehlo.collective_permute" => OpKind::CollectivePermute {
                source_target_pairs: self.pairs("source_target_pairs")?,
                channel: self.channel()?,
            },
            "stablehlo.replica_id" => OpKind::ReplicaId,
            "stablehlo.partition_id" => OpKind::PartitionId,
            "stablehlo.dynamic_broadcast_in_dim" => OpKind::DynamicBroadcastInDim {
                dims: self.i64_list("broadcast_dimensions")?,
                known_expanding: self.opt_i64_list("known_expanding_dimensions")?,
                known_nonexpanding: self.opt_i64_list("known_nonexpanding_dimensions")?,
            },
            "stablehlo.dynamic_reshape" => OpKind::DynamicReshape,
            "stablehlo.dynamic_iota" => OpKind::DynamicIota {
                dimension: self.int("iota_dimension")?,
            },
            "stablehlo.get_dimension_size" => OpKind::GetDimensionSize {
                dimension: self.int("dimension")?,
            },
            "stablehlo.dynamic_pad" => OpKind::DynamicPad,
            "stablehlo.return" => OpKind::RegionReturn,
            "func.return" => OpKind::Return,
            "func.call" => OpKind::Call {
                callee: self.symbol("callee")?,
            },
            "sdy.sharding_constraint" => OpKind::ShardingConstraint(self.sharding()?),
            _ => {
                return Err(ParseError::at(
                    self.src,
                    self.op_start,
                    self.op_end,
                    format!("unknown op `{op}`"),
                ));
            }
        })
    }
}

/// All elements of an integer dense attribute, a splat expanded.
fn dense_ints(ty: &TensorType, data: &DenseElements) -> Option<Vec<i64>> {
    let count = usize::try_from(ty.num_elements()?).ok()?;
    let stored = data.stored_len(ty.element);
    (0..count)
        .map(
            |i| match data.value(ty.element, if stored == 1 { 0 } else { i }) {
                ElementValue::Signed(v) => Some(v),
                ElementValue::Unsigned(v) => i64::try_from(v).ok(),
                ElementValue::Bool(b) => Some(i64::from(b)),
                _ => None,
            },
        )
        .collect()
}

pub(crate) fn types_text(types: &[Type]) -> String {
    match types {
        [one] => one.to_string(),
        _ => format!(
            "({})",
            types
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
