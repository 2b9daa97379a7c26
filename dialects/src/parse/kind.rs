//! From an op name and its attributes (generic names, whichever form they were written in) to a
//! typed [`OpKind`]. Attributes an op does not own are left in the bag and become discardable.

use super::attr::{Attr, AttrValue, dict_to_named};
use super::cursor::PResult;
use super::error::ParseError;
use crate::attr::{
    Attribute, ChannelHandle, ConvDims, CustomCallApiVersion, DotDims, GatherDims, NamedAttrs,
    Precision, RaggedDotDims, ScatterDims, TensorSharding,
};
use crate::dense::{DenseElements, ElementValue};
use crate::op::codec::{AttrReader, EnumAttr};
use crate::op::{CHLO_PREFIX, OpKind, Opcode, attr_name};
use crate::types::{TensorType, Type};

/// The legacy `stablehlo.dot`, read as the `dot_general` it abbreviates.
pub(crate) const LEGACY_DOT: &str = "stablehlo.dot";

/// What the dialect check says about an op name.
pub(crate) enum Known {
    Yes,
    No(String, Option<&'static str>),
}

/// Whether tpuc models the op `name`; if not, the message and help to show.
pub(crate) fn known(name: &str) -> Known {
    if name == LEGACY_DOT || Opcode::from_name(name).is_some() {
        return Known::Yes;
    }
    if name.starts_with(CHLO_PREFIX) {
        let chlo: Vec<&str> = OpKind::names()
            .filter(|n| n.starts_with(CHLO_PREFIX))
            .collect();
        return Known::No(
            format!(
                "unsupported CHLO op `{name}`: tpuc reads {}",
                chlo.join(", ")
            ),
            Some(
                "tpuc legalizes the CHLO ops it reads (pass `chlo-legalize`); rewrite this one to StableHLO first (e.g. with stablehlo-opt --chlo-legalize-to-stablehlo)",
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
        format!("unknown op `{name}`: tpuc reads StableHLO, CHLO, func and sdy ops only"),
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
    /// The op's result types, which a constant's value must match.
    pub results: &'a [Type],
    pub bag: AttrBag,
}

impl KindCx<'_> {
    fn take(&mut self, name: &str) -> Option<Attr> {
        let index = self.bag.entries.iter().position(|(n, _)| n == name)?;
        Some(self.bag.entries.remove(index).1)
    }

    fn missing(&self, name: &str) -> ParseError {
        self.op_error(format!("`{}` needs the attribute `{name}`", self.op))
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

    fn as_int(&self, name: &str, attr: &Attr) -> PResult<i64> {
        match attr.value {
            AttrValue::Int { value, .. } => i64::try_from(value).ok(),
            _ => None,
        }
        .ok_or_else(|| self.wrong(name, attr, "an integer"))
    }

    /// The value of the enum attribute `attr`, `#stablehlo<MNEMONIC KEYWORD>` (or
    /// `#chlo<...>` for a CHLO op's).
    fn keyword<E: EnumAttr>(&self, name: &str, attr: &Attr, chlo: bool) -> PResult<E> {
        let value = match &attr.value {
            AttrValue::Enum {
                chlo: written_chlo,
                kind,
                value,
            } if kind == E::MNEMONIC && *written_chlo == chlo => value,
            _ => {
                let dialect = if chlo { "chlo" } else { "stablehlo" };
                let expected = format!("`#{dialect}<{} ...>`", E::MNEMONIC);
                return Err(self.wrong(name, attr, &expected));
            }
        };
        E::from_keyword(value).ok_or_else(|| {
            ParseError::at(
                self.src,
                attr.start,
                attr.end,
                format!("unknown {} `{value}`", E::MNEMONIC),
            )
        })
    }

    fn precision_list(&mut self, name: &str, chlo: bool) -> PResult<Vec<Precision>> {
        let Some(attr) = self.take(name) else {
            return Ok(Vec::new());
        };
        let AttrValue::Array(items) = &attr.value else {
            let dialect = if chlo { "chlo" } else { "stablehlo" };
            let expected = format!("a list of `#{dialect}<precision ...>`");
            return Err(self.wrong(name, &attr, &expected));
        };
        items
            .iter()
            .map(|item| self.keyword::<Precision>(name, item, chlo))
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

    fn pair_list(&mut self, name: &str) -> PResult<Vec<(i64, i64)>> {
        let Some(rows) = self.matrix(name)? else {
            return Ok(Vec::new());
        };
        rows.into_iter()
            .map(|row| match row.as_slice() {
                [a, b] => Ok((*a, *b)),
                _ => Err(self.op_error(format!("`{name}` of `{}` must hold pairs", self.op))),
            })
            .collect()
    }

    fn op_error(&self, message: String) -> ParseError {
        ParseError::at(self.src, self.op_start, self.op_end, message)
    }

    /// A required attribute that `extract` turns into a value; `expected` describes it.
    fn required_as<T>(
        &mut self,
        name: &str,
        expected: &str,
        extract: impl FnOnce(&AttrValue) -> Option<T>,
    ) -> PResult<T> {
        let attr = self.required(name)?;
        extract(&attr.value).ok_or_else(|| self.wrong(name, &attr, expected))
    }

    /// The op kind of `self.op`.
    pub(crate) fn build(&mut self, operands: &[Type]) -> PResult<OpKind> {
        if self.op == LEGACY_DOT {
            let lhs_rank = operands
                .first()
                .and_then(Type::as_tensor)
                .map_or(1, TensorType::rank);
            return Ok(OpKind::DotGeneral {
                dims: DotDims::contracting(lhs_rank as i64 - 1, 0),
                precision: self.precision_list(attr_name::PRECISION_CONFIG, false)?,
            });
        }
        let opcode = Opcode::from_name(self.op)
            .ok_or_else(|| self.op_error(format!("unknown op `{}`", self.op)))?;
        OpKind::read_attrs(opcode, self)
    }
}

impl AttrReader for KindCx<'_> {
    type Error = ParseError;

    fn int(&mut self, name: &'static str) -> PResult<i64> {
        let attr = self.required(name)?;
        self.as_int(name, &attr)
    }

    fn int_or(&mut self, name: &'static str, default: i64) -> PResult<i64> {
        match self.take(name) {
            Some(attr) => self.as_int(name, &attr),
            None => Ok(default),
        }
    }

    fn count(&mut self, name: &'static str) -> PResult<u64> {
        let value = self.int_or(name, 1)?;
        u64::try_from(value).map_err(|_| self.op_error(format!("`{name}` must be positive")))
    }

    fn i32(&mut self, name: &'static str) -> PResult<i32> {
        let attr = self.required(name)?;
        let value = self.as_int(name, &attr)?;
        i32::try_from(value)
            .map_err(|_| self.op_error(format!("`{name}` of `{}` is out of range", self.op)))
    }

    fn opt_i32(&mut self, name: &'static str) -> PResult<i32> {
        let value = self.int_or(name, 0)?;
        i32::try_from(value)
            .map_err(|_| self.op_error(format!("`{name}` of `{}` is out of range", self.op)))
    }

    fn f32(&mut self, name: &'static str) -> PResult<f32> {
        self.required_as(name, "a float", |value| match value {
            AttrValue::Float { value, .. } => Some(*value as f32),
            _ => None,
        })
    }

    fn i64_array(&mut self, name: &'static str) -> PResult<Vec<i64>> {
        let attr = self.required(name)?;
        self.as_i64_list(name, &attr)
    }

    fn opt_i64_array(&mut self, name: &'static str) -> PResult<Vec<i64>> {
        match self.take(name) {
            Some(attr) => self.as_i64_list(name, &attr),
            None => Ok(Vec::new()),
        }
    }

    fn opt_bool_array(&mut self, name: &'static str) -> PResult<Vec<bool>> {
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

    fn flag(&mut self, name: &'static str) -> PResult<bool> {
        match self.take(name) {
            None => Ok(false),
            Some(attr) => match attr.value {
                AttrValue::Bool(b) => Ok(b),
                AttrValue::Unit => Ok(true),
                _ => Err(self.wrong(name, &attr, "`true` or `false`")),
            },
        }
    }

    fn unit_flag(&mut self, name: &'static str) -> PResult<bool> {
        self.flag(name)
    }

    fn bool(&mut self, name: &'static str) -> PResult<bool> {
        self.flag(name)
    }

    fn enumerant<E: EnumAttr>(&mut self, name: &'static str) -> PResult<E> {
        let attr = self.required(name)?;
        self.keyword(name, &attr, false)
    }

    fn opt_enumerant<E: EnumAttr>(&mut self, name: &'static str) -> PResult<Option<E>> {
        match self.take(name) {
            Some(attr) => self.keyword(name, &attr, false).map(Some),
            None => Ok(None),
        }
    }

    fn chlo_enumerant<E: EnumAttr>(&mut self, name: &'static str) -> PResult<E> {
        let attr = self.required(name)?;
        self.keyword(name, &attr, true)
    }

    fn opt_chlo_enumerant<E: EnumAttr>(&mut self, name: &'static str) -> PResult<Option<E>> {
        match self.take(name) {
            Some(attr) => self.keyword(name, &attr, true).map(Some),
            None => Ok(None),
        }
    }

    fn typed_value(&mut self, name: &'static str) -> PResult<Attribute> {
        let attr = self.required(name)?;
        let value = match attr.value {
            AttrValue::Bool(_)
            | AttrValue::Int { ty: Some(_), .. }
            | AttrValue::Float { ty: Some(_), .. } => Some(attr.to_attribute(self.src)),
            _ => None,
        };
        match value {
            Some(
                value @ (Attribute::Bool(_) | Attribute::Int { .. } | Attribute::Float { .. }),
            ) => Ok(value),
            _ => Err(self.wrong(
                name,
                &attr,
                "a typed scalar (`1.0 : f32`, `2 : i32`, `true`)",
            )),
        }
    }

    fn ragged_dot_dims(&mut self, name: &'static str) -> PResult<RaggedDotDims> {
        self.required_as(name, "`#chlo.ragged_dot<...>`", |value| match value {
            AttrValue::RaggedDot(dims) => Some(dims.clone()),
            _ => None,
        })
    }

    fn chlo_precision(&mut self, name: &'static str) -> PResult<Vec<Precision>> {
        self.precision_list(name, true)
    }

    fn api_version(&mut self, name: &'static str) -> PResult<CustomCallApiVersion> {
        let version = self.int_or(name, 1)?;
        CustomCallApiVersion::from_i64(version)
            .ok_or_else(|| self.op_error(format!("unknown custom_call api_version {version}")))
    }

    fn constant(&mut self, name: &'static str) -> PResult<DenseElements> {
        let attr = self.required(name)?;
        let AttrValue::Dense { ty, data } = &attr.value else {
            return Err(self.wrong(
                name,
                &attr,
                "a dense elements attribute (`dense<...> : tensor<...>`)",
            ));
        };
        if self.results.len() != 1 || self.results[0] != Type::Tensor(ty.clone()) {
            return Err(ParseError::at(
                self.src,
                attr.start,
                attr.end,
                format!(
                    "type mismatch: the constant's value has type {ty} but the op's result type is {}",
                    types_text(self.results)
                ),
            ));
        }
        Ok(data.clone())
    }

    fn dot_dims(&mut self, name: &'static str) -> PResult<DotDims> {
        self.required_as(name, "`#stablehlo.dot<...>`", |value| match value {
            AttrValue::Dot(dims) => Some(dims.clone()),
            _ => None,
        })
    }

    fn gather_dims(&mut self, name: &'static str) -> PResult<GatherDims> {
        self.required_as(name, "`#stablehlo.gather<...>`", |value| match value {
            AttrValue::Gather(dims) => Some(dims.clone()),
            _ => None,
        })
    }

    fn scatter_dims(&mut self, name: &'static str) -> PResult<ScatterDims> {
        self.required_as(name, "`#stablehlo.scatter<...>`", |value| match value {
            AttrValue::Scatter(dims) => Some(dims.clone()),
            _ => None,
        })
    }

    fn conv_dims(&mut self, name: &'static str) -> PResult<ConvDims> {
        self.required_as(name, "`#stablehlo.conv<...>`", |value| match value {
            AttrValue::Conv(dims) => Some(dims.clone()),
            _ => None,
        })
    }

    fn precision(&mut self, name: &'static str) -> PResult<Vec<Precision>> {
        self.precision_list(name, false)
    }

    fn pairs(&mut self, name: &'static str) -> PResult<Vec<(i64, i64)>> {
        self.pair_list(name)
    }

    fn opt_pairs(&mut self, name: &'static str) -> PResult<Vec<(i64, i64)>> {
        self.pair_list(name)
    }

    /// Rows of device ids; the -1 padding of short rows is dropped.
    fn replica_groups(&mut self, name: &'static str) -> PResult<Vec<Vec<i64>>> {
        let rows = self.matrix(name)?.ok_or_else(|| self.missing(name))?;
        Ok(rows
            .into_iter()
            .map(|row| row.into_iter().filter(|&id| id != -1).collect())
            .collect())
    }

    fn opt_channel(&mut self, name: &'static str) -> PResult<Option<ChannelHandle>> {
        let Some(attr) = self.take(name) else {
            return Ok(None);
        };
        match attr.value {
            AttrValue::Channel(handle) => Ok(Some(handle)),
            _ => Err(self.wrong(name, &attr, "`#stablehlo.channel_handle<...>`")),
        }
    }

    fn string(&mut self, name: &'static str) -> PResult<String> {
        self.required_as(name, "a string", |value| match value {
            AttrValue::Str(s) => Some(s.clone()),
            _ => None,
        })
    }

    /// A string, or empty when missing; any other value (a typed-FFI dictionary config) is
    /// not the op's and stays a discardable attribute.
    fn opt_string(&mut self, name: &'static str) -> PResult<String> {
        Ok(match self.take(name) {
            Some(Attr {
                value: AttrValue::Str(text),
                ..
            }) => text,
            Some(other) => {
                self.bag.entries.push((name.to_string(), other));
                String::new()
            }
            None => String::new(),
        })
    }

    fn symbol(&mut self, name: &'static str) -> PResult<String> {
        self.required_as(name, "a symbol like `@name`", |value| match value {
            AttrValue::Symbol(s) => Some(s.clone()),
            _ => None,
        })
    }

    fn opt_dict(&mut self, name: &'static str) -> PResult<NamedAttrs> {
        match self.take(name) {
            Some(Attr {
                value: AttrValue::Dict(entries),
                ..
            }) => Ok(dict_to_named(&entries, self.src)),
            Some(attr) => Err(self.wrong(name, &attr, "a dictionary")),
            None => Ok(NamedAttrs::default()),
        }
    }

    fn sharding(&mut self, name: &'static str) -> PResult<TensorSharding> {
        self.required_as(name, "`#sdy.sharding<...>`", |value| match value {
            AttrValue::Sharding(s) => Some(s.clone()),
            _ => None,
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
