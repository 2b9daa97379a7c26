//! Attribute values as written, parsed into a small AST that op construction then reads:
//! builtin attributes, dense elements, `array<...>`, and the StableHLO and Shardy dialect
//! attributes (`#stablehlo.dot<...>`, `#stablehlo<comparison_direction LT>`, `#sdy.sharding<...>`).

use super::cursor::{Cursor, PResult, parse_int};
use super::dense::DenseLit;
use super::lexer::Token;
use crate::attr::{
    Attribute, ChannelHandle, ConvDims, DimSharding, DotDims, GatherDims, MeshAxis, NamedAttrs,
    RaggedDotDims, ScatterDims, TensorSharding,
};
use crate::dense::DenseElements;
use crate::op::attr_name;
use crate::types::{ElementType, TensorType, Type};

/// An attribute value and the source range it came from.
#[derive(Clone, Debug)]
pub(crate) struct Attr {
    pub value: AttrValue,
    pub start: usize,
    pub end: usize,
}

#[derive(Clone, Debug)]
pub(crate) enum AttrValue {
    Unit,
    Bool(bool),
    Int {
        value: i128,
        ty: Option<ElementType>,
    },
    Float {
        value: f64,
        ty: Option<ElementType>,
    },
    Str(String),
    Symbol(String),
    Array(Vec<Attr>),
    I64Array(Vec<i64>),
    BoolArray(Vec<bool>),
    Dict(Vec<(String, Attr)>),
    Dense {
        ty: TensorType,
        data: DenseElements,
    },
    /// A type used as an attribute (`tensor<f32>`, `!stablehlo.token`).
    Type,
    FunctionType(Vec<Type>, Vec<Type>),
    /// `#stablehlo<kind VALUE>` or `#chlo<kind VALUE>`
    Enum {
        chlo: bool,
        kind: String,
        value: String,
    },
    RaggedDot(RaggedDotDims),
    Dot(DotDims),
    Gather(GatherDims),
    Scatter(ScatterDims),
    Conv(ConvDims),
    Channel(ChannelHandle),
    Sharding(TensorSharding),
    ShardingPerValue(Vec<TensorSharding>),
    Mesh(Vec<MeshAxis>),
    /// Anything else, kept as its source text.
    Other,
}

impl Attr {
    pub(crate) fn text<'s>(&self, src: &'s str) -> &'s str {
        &src[self.start..self.end]
    }

    /// The attribute in tpuc's open-ended [`Attribute`] form (unknown kinds stay verbatim).
    pub(crate) fn to_attribute(&self, src: &str) -> Attribute {
        match &self.value {
            AttrValue::Unit => Attribute::Unit,
            AttrValue::Bool(b) => Attribute::Bool(*b),
            AttrValue::Int { value, ty } => match i64::try_from(*value) {
                Ok(value) if ty.is_none_or(|t| t.is_integer()) => Attribute::Int {
                    value,
                    ty: ty.unwrap_or(ElementType::I64),
                },
                _ => Attribute::Raw(self.text(src).to_string()),
            },
            AttrValue::Float { value, ty } => Attribute::Float {
                value: *value,
                ty: ty.unwrap_or(ElementType::F64),
            },
            AttrValue::Str(s) => Attribute::String(s.clone()),
            AttrValue::Symbol(s) => Attribute::Symbol(s.clone()),
            AttrValue::Array(items) => {
                Attribute::Array(items.iter().map(|a| a.to_attribute(src)).collect())
            }
            AttrValue::I64Array(values) => Attribute::I64Array(values.clone()),
            AttrValue::Dict(entries) => Attribute::Dict(dict_to_named(entries, src)),
            AttrValue::Dense { ty, data } => Attribute::Dense {
                ty: ty.clone(),
                value: data.clone(),
            },
            AttrValue::Sharding(s) => Attribute::Sharding(s.clone()),
            AttrValue::ShardingPerValue(s) => Attribute::ShardingPerValue(s.clone()),
            _ => Attribute::Raw(self.text(src).to_string()),
        }
    }
}

pub(crate) fn dict_to_named(entries: &[(String, Attr)], src: &str) -> NamedAttrs {
    NamedAttrs(
        entries
            .iter()
            .map(|(name, attr)| (name.clone(), attr.to_attribute(src)))
            .collect(),
    )
}

impl Cursor<'_> {
    /// `{name = value, flag, ...}`
    pub(crate) fn attr_dict(&mut self) -> PResult<Vec<(String, Attr)>> {
        self.expect(Token::LBrace, "to start an attribute dictionary")?;
        let mut entries: Vec<(String, Attr)> = Vec::new();
        if self.eat(&Token::RBrace)? {
            return Ok(entries);
        }
        loop {
            let token = self.next()?;
            let name = match token.token {
                Token::Ident(name) | Token::Str(name) => name,
                other => {
                    return Err(self.error_at(
                        token.start,
                        token.end,
                        format!("expected an attribute name, found {}", other.describe()),
                    ));
                }
            };
            if entries.iter().any(|(n, _)| *n == name) {
                return Err(self.error_at(
                    token.start,
                    token.end,
                    format!("duplicate attribute `{name}`"),
                ));
            }
            let value = if self.eat(&Token::Equal)? {
                self.attr()?
            } else {
                Attr {
                    value: AttrValue::Unit,
                    start: token.start,
                    end: token.end,
                }
            };
            entries.push((name, value));
            if self.eat(&Token::RBrace)? {
                return Ok(entries);
            }
            self.expect(Token::Comma, "after an attribute")?;
        }
    }

    pub(crate) fn attr(&mut self) -> PResult<Attr> {
        let start = self.here()?;
        let value = self.nested("an attribute", Self::attr_value)?;
        Ok(Attr {
            value,
            start,
            end: self.last_end,
        })
    }

    fn attr_value(&mut self) -> PResult<AttrValue> {
        let token = self.peek_spanned()?.clone();
        match token.token {
            Token::Ident(word) => match word.as_str() {
                "true" | "false" => {
                    self.next()?;
                    Ok(AttrValue::Bool(word == "true"))
                }
                "unit" => {
                    self.next()?;
                    Ok(AttrValue::Unit)
                }
                "dense" => {
                    self.next()?;
                    self.expect(Token::Less, "after `dense`")?;
                    let literal = self.dense_literal()?;
                    self.expect(Token::Colon, "after a dense literal")?;
                    if self.skip_index_tensor_type() {
                        // e.g. torch_xla's `result_layout = dense<[0, 1]> : tensor<2xindex>`
                        return Ok(AttrValue::Other);
                    }
                    let ty = self.tensor_type("after a dense literal")?;
                    let data = literal
                        .to_elements(&ty)
                        .map_err(|message| self.error_at(token.start, self.last_end, message))?;
                    Ok(AttrValue::Dense { ty, data })
                }
                "dense_resource" => Err(self
                    .error_here("`dense_resource` blobs are not supported")
                    .with_help(
                        "inline the data as `dense<...>`, or pass it as a function argument",
                    )),
                "array" => self.dense_array(),
                "tensor" | "tuple" => {
                    self.ty("")?;
                    Ok(AttrValue::Type)
                }
                _ if ElementType::from_mnemonic(&word).is_some() || word == "complex" => {
                    self.element_type("")?;
                    Ok(AttrValue::Other)
                }
                _ => Err(self.expected("an attribute value", "")),
            },
            Token::Int(text) => {
                self.next()?;
                let value = parse_int(&text).ok_or_else(|| {
                    self.error_at(
                        token.start,
                        token.end,
                        format!("integer `{text}` is out of range"),
                    )
                })?;
                match self.attr_type_suffix()? {
                    Some(Some(ty)) if ty.is_float() => {
                        let bits = u64::try_from(value).unwrap_or(0);
                        let float = crate::dense::decode_float(ty, bits);
                        let value = if text.starts_with("0x") {
                            float.value.unwrap_or(f64::NAN)
                        } else {
                            value as f64
                        };
                        Ok(AttrValue::Float {
                            value,
                            ty: Some(ty),
                        })
                    }
                    Some(Some(ty)) if ty.is_bool() => Ok(AttrValue::Bool(value != 0)),
                    Some(None) => Ok(AttrValue::Other),
                    Some(ty) => Ok(AttrValue::Int { value, ty }),
                    None => Ok(AttrValue::Int { value, ty: None }),
                }
            }
            Token::Float(text) => {
                self.next()?;
                let value: f64 = text.parse().map_err(|_| {
                    self.error_at(token.start, token.end, format!("invalid float `{text}`"))
                })?;
                match self.attr_type_suffix()? {
                    Some(None) => Ok(AttrValue::Other),
                    ty => Ok(AttrValue::Float {
                        value,
                        ty: ty.flatten(),
                    }),
                }
            }
            Token::Str(text) => {
                self.next()?;
                if self.is(&Token::Colon)? {
                    self.next()?;
                    self.ty("after a string attribute")?;
                    return Ok(AttrValue::Other);
                }
                Ok(AttrValue::Str(text))
            }
            Token::Symbol(name) => {
                self.next()?;
                let mut nested = false;
                while self.is(&Token::Colon)? {
                    // `@outer::@inner`
                    self.next()?;
                    self.expect(Token::Colon, "in a nested symbol reference")?;
                    self.symbol("in a nested symbol reference")?;
                    nested = true;
                }
                Ok(if nested {
                    AttrValue::Other
                } else {
                    AttrValue::Symbol(name)
                })
            }
            Token::LBracket => {
                self.next()?;
                let mut items = Vec::new();
                if !self.eat(&Token::RBracket)? {
                    loop {
                        items.push(self.attr()?);
                        if self.eat(&Token::RBracket)? {
                            break;
                        }
                        self.expect(Token::Comma, "between array elements")?;
                    }
                }
                Ok(AttrValue::Array(items))
            }
            Token::LBrace => Ok(AttrValue::Dict(self.attr_dict()?)),
            Token::LParen => {
                let (inputs, results) = self.function_type("")?;
                Ok(AttrValue::FunctionType(inputs, results))
            }
            Token::Bang(_) => {
                self.ty("")?;
                Ok(AttrValue::Type)
            }
            Token::Hash(name) => {
                self.next()?;
                self.dialect_attr(&name, token.start, token.end)
            }
            _ => Err(self.expected("an attribute value", "")),
        }
    }

    /// `: type` after a number: `Some(Some(element))`, `Some(None)` for a non-element type
    /// such as `index`, `None` without a suffix.
    fn attr_type_suffix(&mut self) -> PResult<Option<Option<ElementType>>> {
        if !self.eat(&Token::Colon)? {
            return Ok(None);
        }
        if matches!(self.peek()?, Token::Ident(name) if name == super::types::INDEX_TYPE) {
            self.next()?;
            return Ok(Some(None));
        }
        Ok(Some(Some(self.element_type("as the attribute's type")?)))
    }

    /// `array<i64: 1, 2>` / `array<i1: true>` / `array<i64>`.
    fn dense_array(&mut self) -> PResult<AttrValue> {
        self.expect_ident("array", "")?;
        self.expect(Token::Less, "after `array`")?;
        let element = self.element_type("in `array<...>`")?;
        let mut ints = Vec::new();
        let mut bools = Vec::new();
        if self.eat(&Token::Colon)? {
            loop {
                if element.is_bool() {
                    let (word, start, end) = self.ident("in a boolean array")?;
                    match word.as_str() {
                        "true" => bools.push(true),
                        "false" => bools.push(false),
                        _ => return Err(self.error_at(start, end, "expected `true` or `false`")),
                    }
                } else {
                    ints.push(self.int("in `array<...>`")?);
                }
                if !self.eat(&Token::Comma)? {
                    break;
                }
            }
        }
        self.expect(Token::Greater, "to close `array<...>`")?;
        Ok(match element {
            ElementType::I1 => AttrValue::BoolArray(bools),
            ElementType::I64 => AttrValue::I64Array(ints),
            _ => AttrValue::Other,
        })
    }

    fn dialect_attr(&mut self, name: &str, start: usize, end: usize) -> PResult<AttrValue> {
        if !self.is(&Token::Less)? {
            // An attribute alias reference; kept verbatim.
            return Ok(AttrValue::Other);
        }
        self.next()?;
        // By dialect and mnemonic: `#stablehlo<...>` holds enums, `#stablehlo.dot<...>` and
        // the others are structs. Channel handles and shardings are named after the
        // attributes that hold them.
        let value = match name.split_once('.').unwrap_or((name, "")) {
            (dialect @ ("stablehlo" | "chlo"), "") => {
                let context = format!("in `#{dialect}<...>`");
                let (kind, _, _) = self.ident(&context)?;
                let (value, _, _) = self.ident(&context)?;
                AttrValue::Enum {
                    chlo: dialect == "chlo",
                    kind,
                    value,
                }
            }
            ("chlo", "ragged_dot") => {
                let mut dims = RaggedDotDims::default();
                self.struct_fields("#chlo.ragged_dot", |p, field| {
                    let slot = match field {
                        "lhs_batching_dimensions" => &mut dims.dot.lhs_batching,
                        "rhs_batching_dimensions" => &mut dims.dot.rhs_batching,
                        "lhs_contracting_dimensions" => &mut dims.dot.lhs_contracting,
                        "rhs_contracting_dimensions" => &mut dims.dot.rhs_contracting,
                        "lhs_ragged_dimensions" => &mut dims.lhs_ragged,
                        "rhs_group_dimensions" => &mut dims.rhs_group,
                        _ => return Ok(false),
                    };
                    *slot = p.int_list("in `#chlo.ragged_dot`")?;
                    Ok(true)
                })?;
                AttrValue::RaggedDot(dims)
            }
            ("stablehlo", "dot") => {
                let mut dims = DotDims::default();
                self.struct_fields("#stablehlo.dot", |p, field| {
                    let slot = match field {
                        "lhs_batching_dimensions" => &mut dims.lhs_batching,
                        "rhs_batching_dimensions" => &mut dims.rhs_batching,
                        "lhs_contracting_dimensions" => &mut dims.lhs_contracting,
                        "rhs_contracting_dimensions" => &mut dims.rhs_contracting,
                        _ => return Ok(false),
                    };
                    *slot = p.int_list("in `#stablehlo.dot`")?;
                    Ok(true)
                })?;
                AttrValue::Dot(dims)
            }
            ("stablehlo", "gather") => {
                let mut dims = GatherDims::default();
                self.struct_fields("#stablehlo.gather", |p, field| {
                    let slot = match field {
                        "offset_dims" => &mut dims.offset_dims,
                        "collapsed_slice_dims" => &mut dims.collapsed_slice_dims,
                        "operand_batching_dims" => &mut dims.operand_batching_dims,
                        "start_indices_batching_dims" => &mut dims.start_indices_batching_dims,
                        "start_index_map" => &mut dims.start_index_map,
                        "index_vector_dim" => {
                            dims.index_vector_dim = p.int("in `#stablehlo.gather`")?;
                            return Ok(true);
                        }
                        _ => return Ok(false),
                    };
                    *slot = p.int_list("in `#stablehlo.gather`")?;
                    Ok(true)
                })?;
                AttrValue::Gather(dims)
            }
            ("stablehlo", "scatter") => {
                let mut dims = ScatterDims::default();
                self.struct_fields("#stablehlo.scatter", |p, field| {
                    let slot = match field {
                        "update_window_dims" => &mut dims.update_window_dims,
                        "inserted_window_dims" => &mut dims.inserted_window_dims,
                        "input_batching_dims" => &mut dims.input_batching_dims,
                        "scatter_indices_batching_dims" => &mut dims.scatter_indices_batching_dims,
                        "scatter_dims_to_operand_dims" => &mut dims.scatter_dims_to_operand_dims,
                        "index_vector_dim" => {
                            dims.index_vector_dim = p.int("in `#stablehlo.scatter`")?;
                            return Ok(true);
                        }
                        _ => return Ok(false),
                    };
                    *slot = p.int_list("in `#stablehlo.scatter`")?;
                    Ok(true)
                })?;
                AttrValue::Scatter(dims)
            }
            ("stablehlo", "conv") => {
                let dims = if self.eat_ident("raw")? {
                    self.raw_conv_dims()?
                } else {
                    self.compact_conv_dims()?
                };
                AttrValue::Conv(dims)
            }
            ("stablehlo", attr_name::CHANNEL_HANDLE) => {
                let mut handle = ChannelHandle { handle: 0, kind: 0 };
                self.struct_fields("#stablehlo.channel_handle", |p, field| {
                    match field {
                        "handle" => handle.handle = p.int("in `#stablehlo.channel_handle`")?,
                        "type" => handle.kind = p.int("in `#stablehlo.channel_handle`")?,
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
                AttrValue::Channel(handle)
            }
            ("sdy", attr_name::SHARDING) => AttrValue::Sharding(self.sharding_body()?),
            ("sdy", "sharding_per_value") => {
                self.expect(Token::LBracket, "in `#sdy.sharding_per_value`")?;
                let mut shardings = Vec::new();
                if !self.eat(&Token::RBracket)? {
                    loop {
                        self.expect(Token::Less, "before each sharding")?;
                        shardings.push(self.sharding_body()?);
                        self.expect(Token::Greater, "after each sharding")?;
                        if self.eat(&Token::RBracket)? {
                            break;
                        }
                        self.expect(Token::Comma, "between shardings")?;
                    }
                }
                AttrValue::ShardingPerValue(shardings)
            }
            ("sdy", "mesh") => AttrValue::Mesh(self.mesh_axes()?),
            _ => {
                self.skip_balanced_angle()?;
                let _ = (start, end);
                return Ok(AttrValue::Other);
            }
        };
        self.expect(Token::Greater, &format!("to close `#{name}<...>`"))?;
        Ok(value)
    }

    /// `name = value, ...` up to (not including) the closing `>`; `field` parses a known
    /// field's value and returns false for an unknown name.
    fn struct_fields(
        &mut self,
        what: &str,
        mut field: impl FnMut(&mut Self, &str) -> PResult<bool>,
    ) -> PResult<()> {
        if self.is(&Token::Greater)? {
            return Ok(());
        }
        let mut seen = Vec::new();
        loop {
            let (name, start, end) = self.ident(&format!("as a field of `{what}`"))?;
            if seen.contains(&name) {
                return Err(self.error_at(
                    start,
                    end,
                    format!("duplicated `{name}` entry in `{what}`"),
                ));
            }
            seen.push(name.clone());
            self.expect(Token::Equal, &format!("after `{name}`"))?;
            if !field(self, &name)? {
                return Err(self.error_at(
                    start,
                    end,
                    format!("unknown field `{name}` in `{what}`"),
                ));
            }
            // A trailing comma may close the list (`... = [0],\n>`).
            if !self.eat(&Token::Comma)? || self.is(&Token::Greater)? {
                return Ok(());
            }
        }
    }

    /// `input_batch_dimension = 0, ...` of `#stablehlo.conv<raw ...>`.
    fn raw_conv_dims(&mut self) -> PResult<ConvDims> {
        let mut dims = ConvDims::default();
        self.struct_fields("#stablehlo.conv", |p, field| {
            let ctx = "in `#stablehlo.conv<raw ...>`";
            match field {
                "input_batch_dimension" => dims.input_batch = p.int(ctx)?,
                "input_feature_dimension" => dims.input_feature = p.int(ctx)?,
                "input_spatial_dimensions" => dims.input_spatial = p.int_list(ctx)?,
                "kernel_input_feature_dimension" => dims.kernel_input_feature = p.int(ctx)?,
                "kernel_output_feature_dimension" => dims.kernel_output_feature = p.int(ctx)?,
                "kernel_spatial_dimensions" => dims.kernel_spatial = p.int_list(ctx)?,
                "output_batch_dimension" => dims.output_batch = p.int(ctx)?,
                "output_feature_dimension" => dims.output_feature = p.int(ctx)?,
                "output_spatial_dimensions" => dims.output_spatial = p.int_list(ctx)?,
                _ => return Ok(false),
            }
            Ok(true)
        })?;
        Ok(dims)
    }

    /// `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`
    pub(crate) fn compact_conv_dims(&mut self) -> PResult<ConvDims> {
        let mut dims = ConvDims::default();
        let input = self.conv_side(['b', 'f'])?;
        self.expect_ident("x", "between the input and kernel dimension layouts")?;
        let kernel = self.conv_side(['i', 'o'])?;
        self.expect(Token::Arrow, "before the output dimension layout")?;
        let output = self.conv_side(['b', 'f'])?;
        (dims.input_batch, dims.input_feature, dims.input_spatial) = input;
        (
            dims.kernel_input_feature,
            dims.kernel_output_feature,
            dims.kernel_spatial,
        ) = kernel;
        (dims.output_batch, dims.output_feature, dims.output_spatial) = output;
        Ok(dims)
    }

    /// One `[...]` of the compact form: positions of the two labels and of spatial dims 0, 1, ...
    fn conv_side(&mut self, labels: [char; 2]) -> PResult<(i64, i64, Vec<i64>)> {
        let open = self.expect(Token::LBracket, "to start a convolution dimension layout")?;
        let mut first = None;
        let mut second = None;
        let mut spatial: Vec<Option<i64>> = Vec::new();
        let mut position = 0i64;
        if !self.is(&Token::RBracket)? {
            loop {
                let token = self.next()?;
                match &token.token {
                    Token::Ident(label)
                        if label.len() == 1 && label.starts_with(labels[0]) && first.is_none() =>
                    {
                        first = Some(position)
                    }
                    Token::Ident(label)
                        if label.len() == 1 && label.starts_with(labels[1]) && second.is_none() =>
                    {
                        second = Some(position)
                    }
                    Token::Int(text) => {
                        let index = text.parse::<usize>().map_err(|_| {
                            self.error_at(
                                token.start,
                                token.end,
                                "expected a spatial dimension number",
                            )
                        })?;
                        if spatial.len() <= index {
                            spatial.resize(index + 1, None);
                        }
                        if spatial[index].replace(position).is_some() {
                            return Err(self.error_at(
                                token.start,
                                token.end,
                                format!("spatial dimension {index} appears twice"),
                            ));
                        }
                    }
                    other => {
                        return Err(self.error_at(
                            token.start,
                            token.end,
                            format!(
                                "expected `{}`, `{}` or a spatial dimension number, found {}",
                                labels[0],
                                labels[1],
                                other.describe()
                            ),
                        ));
                    }
                }
                position += 1;
                if !self.eat(&Token::Comma)? {
                    break;
                }
            }
        }
        self.expect(Token::RBracket, "to close a convolution dimension layout")?;
        let missing = |what: char| {
            self.error_at(
                open.start,
                self.last_end,
                format!("dimension layout lacks `{what}`"),
            )
        };
        let first = first.ok_or_else(|| missing(labels[0]))?;
        let second = second.ok_or_else(|| missing(labels[1]))?;
        let spatial: Option<Vec<i64>> = spatial.into_iter().collect();
        let spatial = spatial.ok_or_else(|| {
            self.error_at(
                open.start,
                self.last_end,
                "spatial dimension numbers must be 0, 1, ... without gaps",
            )
        })?;
        Ok((first, second, spatial))
    }

    /// `@mesh, [{"x"}, {}], replicated={"y"}` (inside the angle brackets).
    pub(crate) fn sharding_body(&mut self) -> PResult<TensorSharding> {
        let token = self.peek_spanned()?.clone();
        let mesh = match token.token {
            Token::Symbol(name) => {
                self.next()?;
                name
            }
            _ => {
                return Err(self.expected("a mesh name like `@mesh`", "in a sharding").with_help(
                    "inline meshes are not supported; declare the mesh with `sdy.mesh @name = <[...]>`",
                ));
            }
        };
        self.expect(Token::Comma, "after the mesh name")?;
        self.expect(Token::LBracket, "to start the dimension shardings")?;
        let mut dims = Vec::new();
        if !self.eat(&Token::RBracket)? {
            loop {
                dims.push(self.dim_sharding()?);
                if self.eat(&Token::RBracket)? {
                    break;
                }
                self.expect(Token::Comma, "between dimension shardings")?;
            }
        }
        let mut replicated = Vec::new();
        while self.eat(&Token::Comma)? {
            let (key, start, end) = self.ident("in a sharding")?;
            self.expect(Token::Equal, &format!("after `{key}`"))?;
            if key != "replicated" {
                return Err(self.error_at(
                    start,
                    end,
                    format!("unsupported sharding field `{key}`"),
                ));
            }
            let axes = self.dim_sharding()?;
            replicated = axes.axes;
        }
        Ok(TensorSharding {
            mesh,
            dims,
            replicated,
        })
    }

    /// `{"x", "y", ?}p1`
    fn dim_sharding(&mut self) -> PResult<DimSharding> {
        self.expect(Token::LBrace, "to start a dimension sharding")?;
        let mut dim = DimSharding::default();
        if !self.eat(&Token::RBrace)? {
            loop {
                if self.eat(&Token::Question)? {
                    dim.is_open = true;
                } else {
                    dim.axes.push(self.string("as a mesh axis name")?);
                    if self.is(&Token::Colon)? {
                        return Err(self.error_here("sub-axes (`\"x\":(1)2`) are not supported"));
                    }
                }
                if self.eat(&Token::RBrace)? {
                    break;
                }
                self.expect(Token::Comma, "between mesh axes")?;
            }
        }
        if let Token::Ident(word) = self.peek()?.clone()
            && let Some(Ok(priority)) = word.strip_prefix('p').map(str::parse)
        {
            self.next()?;
            dim.priority = Some(priority);
        }
        Ok(dim)
    }

    /// `["x"=2, "y"=4]`
    pub(crate) fn mesh_axes(&mut self) -> PResult<Vec<MeshAxis>> {
        self.expect(Token::LBracket, "to start the mesh axes")?;
        let mut axes = Vec::new();
        if !self.eat(&Token::RBracket)? {
            loop {
                let name = self.string("as a mesh axis name")?;
                self.expect(Token::Equal, "after the axis name")?;
                let start = self.here()?;
                let size = self.int("as the axis size")?;
                let size = u64::try_from(size).map_err(|_| {
                    self.error_at(start, self.last_end, "axis size must not be negative")
                })?;
                axes.push(MeshAxis { name, size });
                if self.eat(&Token::RBracket)? {
                    break;
                }
                self.expect(Token::Comma, "between mesh axes")?;
            }
        }
        if self.is(&Token::Comma)? {
            return Err(self.error_here("mesh `device_ids` are not supported"));
        }
        Ok(axes)
    }

    fn dense_literal(&mut self) -> PResult<DenseLit> {
        if self.eat(&Token::Greater)? {
            return Ok(DenseLit::List(Vec::new()));
        }
        let literal = self.dense_item()?;
        self.expect(Token::Greater, "to close the dense literal")?;
        Ok(literal)
    }

    fn dense_item(&mut self) -> PResult<DenseLit> {
        self.nested("a dense literal", Self::dense_item_inner)
    }

    fn dense_item_inner(&mut self) -> PResult<DenseLit> {
        let token = self.next()?;
        let bad = |p: &Self, what: &str| {
            p.error_at(
                token.start,
                token.end,
                format!("invalid {what} in a dense literal"),
            )
        };
        Ok(match &token.token {
            Token::LBracket => {
                let mut items = Vec::new();
                if !self.eat(&Token::RBracket)? {
                    loop {
                        items.push(self.dense_item()?);
                        if self.eat(&Token::RBracket)? {
                            break;
                        }
                        self.expect(Token::Comma, "between dense elements")?;
                    }
                }
                DenseLit::List(items)
            }
            Token::LParen => {
                let re = self.dense_item()?;
                self.expect(Token::Comma, "between the parts of a complex element")?;
                let im = self.dense_item()?;
                self.expect(Token::RParen, "to close a complex element")?;
                DenseLit::Complex(Box::new(re), Box::new(im))
            }
            Token::Int(text) if text.starts_with("0x") => DenseLit::Bits(
                u64::from_str_radix(&text[2..], 16).map_err(|_| bad(self, "hex value"))?,
            ),
            Token::Int(text) => DenseLit::Int(parse_int(text).ok_or_else(|| bad(self, "integer"))?),
            Token::Float(text) => DenseLit::Float(text.parse().map_err(|_| bad(self, "float"))?),
            Token::Ident(word) if word == "true" => DenseLit::Int(1),
            Token::Ident(word) if word == "false" => DenseLit::Int(0),
            Token::Ident(word) if matches!(word.as_str(), "inf" | "nan") => {
                DenseLit::Float(if word == "inf" {
                    f64::INFINITY
                } else {
                    f64::NAN
                })
            }
            Token::Str(text) => {
                let hex = text
                    .strip_prefix("0x")
                    .ok_or_else(|| bad(self, "string (expected a \"0x...\" hex blob)"))?;
                if hex.len() % 2 != 0 {
                    return Err(bad(self, "hex blob (odd number of digits)"));
                }
                let bytes: Option<Vec<u8>> = (0..hex.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).ok())
                    .collect();
                DenseLit::Blob(bytes.ok_or_else(|| bad(self, "hex blob"))?)
            }
            other => {
                return Err(self.error_at(
                    token.start,
                    token.end,
                    format!("expected a dense element, found {}", other.describe()),
                ));
            }
        })
    }
}
