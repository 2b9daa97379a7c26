//! The custom assembly forms of StableHLO, func and sdy ops: `%0 = stablehlo.add %a, %b : T`,
//! `stablehlo.reduce(...) applies ...`, `stablehlo.while(...) cond {..} do {..}`, ...
//! Each form is read into the op's generic attribute names, then built like a generic op.

use super::attr::{Attr, AttrValue};
use super::cursor::PResult;
use super::kind::{LEGACY_DOT, types_text};
use super::lexer::Token;
use super::ops::{ArgDecl, Entry, Parser};
use crate::attr::{ComparisonDirection, ComparisonType, DotDims, FftType, Precision, RngAlgorithm};
use crate::function::{BlockId, Function, NewOp, OpId, Value};
use crate::op::codec::EnumAttr;
use crate::op::{BinaryOp, OpKind, Opcode, Syntax, attr_name};
use crate::types::Type;

/// The type after `:` in a custom form: a functional type or a plain list.
enum Sig {
    Functional(Vec<Type>, Vec<Type>),
    List(Vec<Type>),
}

impl Parser<'_> {
    fn opt_attr_dict(&mut self) -> PResult<Vec<(String, Attr)>> {
        if self.c.is(&Token::LBrace)? {
            self.c.attr_dict()
        } else {
            Ok(Vec::new())
        }
    }

    fn sig(&mut self) -> PResult<Sig> {
        self.c.expect(Token::Colon, "before the op's type")?;
        if self.c.is(&Token::LParen)? {
            let (inputs, results) = self.c.function_type("")?;
            return Ok(Sig::Functional(inputs, results));
        }
        Ok(Sig::List(self.c.type_list("as the op's type")?))
    }

    fn synthesized(&mut self, value: AttrValue, start: usize) -> Attr {
        Attr {
            value,
            start,
            end: self.c.last_end,
        }
    }

    /// `@symbol(operands) {attrs} : (types) -> types`, the symbol stored as attribute `attr`.
    #[allow(clippy::too_many_arguments)]
    fn symbol_call(
        &mut self,
        f: &mut Function,
        block: BlockId,
        name: &str,
        span: (usize, usize),
        attr: &str,
        value: fn(String) -> AttrValue,
        what: &str,
    ) -> PResult<OpId> {
        let at = self.c.here()?;
        let (symbol, _, _) = self.c.symbol(&format!("as {what}"))?;
        let symbol = self.synthesized(value(symbol), at);
        let operands = self.operands_paren(&format!("after {what}"))?;
        self.finish_functional(
            f,
            block,
            name,
            span,
            operands,
            vec![(attr.to_string(), symbol)],
        )
    }

    /// The custom assembly form of `name`.
    pub(super) fn custom_op(
        &mut self,
        f: &mut Function,
        block: BlockId,
        name: &str,
        start: usize,
        end: usize,
    ) -> PResult<OpId> {
        let name = match name {
            "return" => Opcode::Return.name(),
            "call" => Opcode::Call.name(),
            other => other,
        };
        self.check_known(name, start, end)?;
        let span = (start, end);
        let opcode = Opcode::from_name(name);
        let syntax = opcode.map_or(Syntax::Generic, Opcode::syntax);
        match syntax {
            Syntax::Return => {
                let operands = self.operands_bare()?;
                let attrs = self.opt_attr_dict()?;
                let inputs = if operands.is_empty() {
                    Vec::new()
                } else {
                    self.list_sig(name)?
                };
                self.finish_op(
                    f,
                    block,
                    name,
                    span,
                    operands,
                    inputs,
                    Vec::new(),
                    Vec::new(),
                    attrs,
                )
            }
            Syntax::Call => self.symbol_call(
                f,
                block,
                name,
                span,
                attr_name::CALLEE,
                AttrValue::Symbol,
                "the callee",
            ),
            Syntax::ShardingConstraint => {
                let operand = self.operand("as the operand")?;
                let at = self.c.here()?;
                self.c.expect(Token::Less, "before the sharding")?;
                let sharding = self.c.sharding_body()?;
                self.c.expect(Token::Greater, "after the sharding")?;
                let sharding = self.synthesized(AttrValue::Sharding(sharding), at);
                let mut attrs = self.opt_attr_dict()?;
                attrs.push((attr_name::SHARDING.to_string(), sharding));
                let ty = self.single_type()?;
                self.finish_op(
                    f,
                    block,
                    name,
                    span,
                    vec![operand],
                    vec![ty.clone()],
                    vec![ty],
                    Vec::new(),
                    attrs,
                )
            }
            Syntax::Compare => {
                let at = self.c.here()?;
                let (direction, _, _) = self.c.ident("as the comparison direction")?;
                let direction = self.synthesized(
                    AttrValue::Enum {
                        chlo: false,
                        kind: ComparisonDirection::MNEMONIC.into(),
                        value: direction,
                    },
                    at,
                );
                self.c
                    .expect(Token::Comma, "after the comparison direction")?;
                let lhs = self.operand("as the left operand")?;
                if !self.c.is(&Token::Comma)? {
                    return Err(self.c.expected("','", "after operand"));
                }
                self.c.next()?;
                let rhs = self.operand("as the right operand")?;
                let mut attrs = vec![(attr_name::COMPARISON_DIRECTION.to_string(), direction)];
                if self.c.eat(&Token::Comma)? {
                    let at = self.c.here()?;
                    let (ty, _, _) = self.c.ident("as the comparison type")?;
                    let ty = self.synthesized(
                        AttrValue::Enum {
                            chlo: false,
                            kind: ComparisonType::MNEMONIC.into(),
                            value: ty,
                        },
                        at,
                    );
                    attrs.push((attr_name::COMPARE_TYPE.to_string(), ty));
                }
                self.finish_functional(f, block, name, span, vec![lhs, rhs], attrs)
            }
            Syntax::Constant => {
                let mut attrs = self.opt_attr_dict()?;
                let value = self.c.attr()?;
                let AttrValue::Dense { ty, .. } = &value.value else {
                    return Err(self.c.error_at(
                        value.start,
                        value.end,
                        "expected a dense literal like `dense<1.0> : tensor<f32>`",
                    ));
                };
                let results = vec![Type::Tensor(ty.clone())];
                attrs.push((attr_name::VALUE.to_string(), value));
                self.finish_op(
                    f,
                    block,
                    name,
                    span,
                    Vec::new(),
                    Vec::new(),
                    results,
                    Vec::new(),
                    attrs,
                )
            }
            Syntax::Slice => {
                let operand = self.operand("as the sliced operand")?;
                let at = self.c.here()?;
                self.c
                    .expect(Token::LBracket, "to start the slice ranges")?;
                let (mut starts, mut limits, mut strides) = (Vec::new(), Vec::new(), Vec::new());
                if !self.c.eat(&Token::RBracket)? {
                    loop {
                        starts.push(self.c.int("as a slice start")?);
                        self.c.expect(Token::Colon, "after a slice start")?;
                        limits.push(self.c.int("as a slice limit")?);
                        strides.push(if self.c.eat(&Token::Colon)? {
                            self.c.int("as a slice stride")?
                        } else {
                            1
                        });
                        if self.c.eat(&Token::RBracket)? {
                            break;
                        }
                        self.c.expect(Token::Comma, "between slice ranges")?;
                    }
                }
                let attrs = vec![
                    (
                        attr_name::START_INDICES.to_string(),
                        self.synthesized(AttrValue::I64Array(starts), at),
                    ),
                    (
                        attr_name::LIMIT_INDICES.to_string(),
                        self.synthesized(AttrValue::I64Array(limits), at),
                    ),
                    (
                        attr_name::STRIDES.to_string(),
                        self.synthesized(AttrValue::I64Array(strides), at),
                    ),
                ];
                self.finish_functional(f, block, name, span, vec![operand], attrs)
            }
            Syntax::GetTupleElement => {
                let operand = self.operand("as the tuple")?;
                let at = self.c.here()?;
                self.c
                    .expect(Token::LBracket, "to start the element index")?;
                let index = self.c.int("as the element index")?;
                self.c.expect(Token::RBracket, "after the element index")?;
                let attrs = vec![(
                    attr_name::INDEX.to_string(),
                    self.synthesized(
                        AttrValue::Int {
                            value: index.into(),
                            ty: Some(crate::types::ElementType::I32),
                        },
                        at,
                    ),
                )];
                self.finish_functional(f, block, name, span, vec![operand], attrs)
            }
            Syntax::Convolution => {
                let operands = self.operands_paren("after `stablehlo.convolution`")?;
                self.c
                    .expect_ident("dim_numbers", "in `stablehlo.convolution`")?;
                self.c.expect(Token::Equal, "after `dim_numbers`")?;
                let at = self.c.here()?;
                let dims = self.c.compact_conv_dims()?;
                let mut attrs = vec![(
                    attr_name::DIMENSION_NUMBERS.to_string(),
                    self.synthesized(AttrValue::Conv(dims), at),
                )];
                if self.c.eat(&Token::Comma)? {
                    self.c
                        .expect_ident("window", "in `stablehlo.convolution`")?;
                    self.c.expect(Token::Equal, "after `window`")?;
                    for (key, value) in self.c.attr_dict()? {
                        let generic = match key.as_str() {
                            "stride" => attr_name::WINDOW_STRIDES,
                            "pad" => attr_name::PADDING,
                            "lhs_dilate" => attr_name::LHS_DILATION,
                            "rhs_dilate" => attr_name::RHS_DILATION,
                            "reverse" => attr_name::WINDOW_REVERSAL,
                            _ => {
                                return Err(self.c.error_at(
                                    value.start,
                                    value.end,
                                    format!("unknown window field `{key}`"),
                                ));
                            }
                        };
                        attrs.push((generic.to_string(), value));
                    }
                }
                self.finish_functional(f, block, name, span, operands, attrs)
            }
            Syntax::ChloUnary => {
                let operand = self.operand("as the operand")?;
                self.finish_mapping(f, block, name, span, vec![operand], Vec::new())
            }
            Syntax::ChloBinary => {
                let operands = self.operands_bare()?;
                self.finish_mapping(f, block, name, span, operands, Vec::new())
            }
            Syntax::TopK => {
                self.c.expect(Token::LParen, "after `chlo.top_k`")?;
                let operand = self.operand("as the operand")?;
                self.c.expect(Token::Comma, "after the operand")?;
                self.c.expect_ident(attr_name::K, "in `chlo.top_k`")?;
                self.c.expect(Token::Equal, "after `k`")?;
                let at = self.c.here()?;
                let k = self.c.int("as `k`")?;
                let k = self.synthesized(
                    AttrValue::Int {
                        value: k.into(),
                        ty: None,
                    },
                    at,
                );
                self.c.expect(Token::RParen, "after `k = ...`")?;
                let attrs = vec![(attr_name::K.to_string(), k)];
                self.finish_mapping(f, block, name, span, vec![operand], attrs)
            }
            Syntax::Reduce => self.custom_reduce(f, block, span),
            Syntax::While => self.custom_while(f, block, span),
            Syntax::CustomCall => self.symbol_call(
                f,
                block,
                name,
                span,
                attr_name::CALL_TARGET_NAME,
                AttrValue::Str,
                "the custom call target",
            ),
            Syntax::Composite => {
                let at = self.c.here()?;
                let composite = self.c.string("as the composite name")?;
                let composite = self.synthesized(AttrValue::Str(composite), at);
                let operands = self.operands_bare()?;
                self.finish_functional(
                    f,
                    block,
                    name,
                    span,
                    operands,
                    vec![(attr_name::NAME.to_string(), composite)],
                )
            }
            Syntax::ResultType => {
                let attrs = self.opt_attr_dict()?;
                let ty = self.single_type()?;
                self.finish_op(
                    f,
                    block,
                    name,
                    span,
                    Vec::new(),
                    Vec::new(),
                    vec![ty],
                    Vec::new(),
                    attrs,
                )
            }
            Syntax::Barrier if self.c.is(&Token::LParen)? => {
                self.c.next()?;
                self.c
                    .expect(Token::RParen, "in `stablehlo.optimization_barrier()`")?;
                self.finish_op(
                    f,
                    block,
                    name,
                    span,
                    Vec::new(),
                    Vec::new(),
                    Vec::new(),
                    Vec::new(),
                    Vec::new(),
                )
            }
            Syntax::Barrier
            | Syntax::Generic
            | Syntax::Elementwise
            | Syntax::Functional
            | Syntax::ChloBroadcast
            | Syntax::Select
            | Syntax::Iota(_)
            | Syntax::Dim(_)
            | Syntax::Dims(_)
            | Syntax::Reverse(_)
            | Syntax::Sizes(_)
            | Syntax::Pad
            | Syntax::DotGeneral
            | Syntax::Fft
            | Syntax::RngBitGenerator
            | Syntax::ReducePrecision
            | Syntax::Tuple => self.custom_common(f, block, name, opcode, syntax, span),
        }
    }

    fn list_sig(&mut self, name: &str) -> PResult<Vec<Type>> {
        match self.sig()? {
            Sig::List(types) => Ok(types),
            Sig::Functional(..) => Err(self.c.error_at(
                self.c.last_end,
                self.c.last_end,
                format!("`{name}` takes a plain type list here, not a function type"),
            )),
        }
    }

    /// The tail of an op without regions: `{attrs} : (inputs) -> results`; the dictionary's
    /// attributes join `attrs`.
    fn finish_functional(
        &mut self,
        f: &mut Function,
        block: BlockId,
        name: &str,
        span: (usize, usize),
        operands: Vec<Value>,
        mut attrs: Vec<(String, Attr)>,
    ) -> PResult<OpId> {
        attrs.extend(self.opt_attr_dict()?);
        let (inputs, results) = self.functional_sig()?;
        self.finish_op(
            f,
            block,
            name,
            span,
            operands,
            inputs,
            results,
            Vec::new(),
            attrs,
        )
    }

    fn functional_sig(&mut self) -> PResult<(Vec<Type>, Vec<Type>)> {
        self.c.expect(Token::Colon, "before the op's type")?;
        self.c.function_type("as the op's type")
    }

    /// The tail of a CHLO op: `{attrs} : T, ... -> T` or `: T, ... -> (T, ...)`.
    fn finish_mapping(
        &mut self,
        f: &mut Function,
        block: BlockId,
        name: &str,
        span: (usize, usize),
        operands: Vec<Value>,
        mut attrs: Vec<(String, Attr)>,
    ) -> PResult<OpId> {
        attrs.extend(self.opt_attr_dict()?);
        self.c.expect(Token::Colon, "before the op's type")?;
        let inputs = self.c.type_list("as the operand types")?;
        self.c.expect(Token::Arrow, "after the operand types")?;
        let results = self.c.result_types()?;
        self.finish_op(
            f,
            block,
            name,
            span,
            operands,
            inputs,
            results,
            Vec::new(),
            attrs,
        )
    }

    fn single_type(&mut self) -> PResult<Type> {
        self.c.expect(Token::Colon, "before the op's type")?;
        self.c.ty("as the op's type")
    }

    /// `op %a, %b, key = value, ... {attrs} : type`: elementwise ops, broadcast, transpose,
    /// reshape, pad, dot_general, dynamic ops, fft, rng_bit_generator, ...
    fn custom_common(
        &mut self,
        f: &mut Function,
        block: BlockId,
        name: &str,
        opcode: Option<Opcode>,
        syntax: Syntax,
        span: (usize, usize),
    ) -> PResult<OpId> {
        self.comma_consumed = false;
        let operands = self.operands_bare()?;
        let mut attrs = Vec::new();
        let mut dot = DotDims::default();
        let mut has_dot = false;
        let keywords_follow = self.comma_consumed
            || (operands.is_empty() && matches!(self.c.peek()?, Token::Ident(_)));
        self.comma_consumed = false;
        if keywords_follow {
            loop {
                let (key, key_start, key_end) = self.c.ident("as a keyword")?;
                self.c.expect(Token::Equal, "after the keyword")?;
                let at = self.c.here()?;
                let unexpected = |p: &Self| {
                    p.c.error_at(
                        key_start,
                        key_end,
                        format!("unexpected keyword `{key}` in `{name}`"),
                    )
                };
                match key.as_str() {
                    "dims" | "sizes" | "low" | "high" | "interior" => {
                        let generic = match (key.as_str(), syntax) {
                            ("dims", Syntax::Dims(attr) | Syntax::Reverse(attr)) => attr,
                            ("sizes", Syntax::Sizes(attr)) => attr,
                            ("low", Syntax::Pad) => attr_name::EDGE_PADDING_LOW,
                            ("high", Syntax::Pad) => attr_name::EDGE_PADDING_HIGH,
                            ("interior", Syntax::Pad) => attr_name::INTERIOR_PADDING,
                            _ => return Err(unexpected(self)),
                        };
                        let values = self.c.int_list("after the keyword")?;
                        attrs.push((
                            generic.to_string(),
                            self.synthesized(AttrValue::I64Array(values), at),
                        ));
                    }
                    "dim" => {
                        let (Syntax::Iota(generic) | Syntax::Dim(generic)) = syntax else {
                            return Err(unexpected(self));
                        };
                        let value = self.c.int("after `dim =`")?;
                        attrs.push((
                            generic.to_string(),
                            self.synthesized(
                                AttrValue::Int {
                                    value: value.into(),
                                    ty: None,
                                },
                                at,
                            ),
                        ));
                    }
                    "batching_dims" | "contracting_dims" if syntax == Syntax::DotGeneral => {
                        let lhs = self.c.int_list("after the keyword")?;
                        self.c
                            .expect_ident("x", "between the lhs and rhs dimensions")?;
                        let rhs = self.c.int_list("after `x`")?;
                        if key == "batching_dims" {
                            (dot.lhs_batching, dot.rhs_batching) = (lhs, rhs);
                        } else {
                            (dot.lhs_contracting, dot.rhs_contracting) = (lhs, rhs);
                        }
                        has_dot = true;
                    }
                    "precision" if syntax == Syntax::DotGeneral || name == LEGACY_DOT => {
                        self.c
                            .expect(Token::LBracket, "to start the precision list")?;
                        let mut items = Vec::new();
                        if !self.c.eat(&Token::RBracket)? {
                            loop {
                                let item_at = self.c.here()?;
                                let (value, _, _) = self.c.ident("as a precision")?;
                                items.push(self.synthesized(
                                    AttrValue::Enum {
                                        chlo: false,
                                        kind: Precision::MNEMONIC.into(),
                                        value,
                                    },
                                    item_at,
                                ));
                                if self.c.eat(&Token::RBracket)? {
                                    break;
                                }
                                self.c.expect(Token::Comma, "between precisions")?;
                            }
                        }
                        attrs.push((
                            attr_name::PRECISION_CONFIG.to_string(),
                            self.synthesized(AttrValue::Array(items), at),
                        ));
                    }
                    "type" if syntax == Syntax::Fft => {
                        let (value, _, _) = self.c.ident("as the FFT type")?;
                        attrs.push((
                            attr_name::FFT_TYPE.to_string(),
                            self.synthesized(
                                AttrValue::Enum {
                                    chlo: false,
                                    kind: FftType::MNEMONIC.into(),
                                    value,
                                },
                                at,
                            ),
                        ));
                    }
                    "length" if syntax == Syntax::Fft => {
                        let values = self.c.int_list("after `length =`")?;
                        attrs.push((
                            attr_name::FFT_LENGTH.to_string(),
                            self.synthesized(AttrValue::I64Array(values), at),
                        ));
                    }
                    "format" if syntax == Syntax::ReducePrecision => {
                        let (value, start, end) = self.c.ident("as the format `eXmY`")?;
                        let bits = value
                            .strip_prefix('e')
                            .and_then(|rest| rest.split_once('m'))
                            .and_then(|(e, m)| {
                                Some((e.parse::<i32>().ok()?, m.parse::<i32>().ok()?))
                            });
                        let Some((exponent, mantissa)) = bits else {
                            return Err(self.c.error_at(
                                start,
                                end,
                                format!(
                                    "expected a format `eXmY` (such as e5m10), found `{value}`"
                                ),
                            ));
                        };
                        for (attr, bits) in [
                            (attr_name::EXPONENT_BITS, exponent),
                            (attr_name::MANTISSA_BITS, mantissa),
                        ] {
                            attrs.push((
                                attr.to_string(),
                                self.synthesized(
                                    AttrValue::Int {
                                        value: bits.into(),
                                        ty: Some(crate::types::ElementType::I32),
                                    },
                                    at,
                                ),
                            ));
                        }
                    }
                    "algorithm" if syntax == Syntax::RngBitGenerator => {
                        let (value, _, _) = self.c.ident("as the RNG algorithm")?;
                        attrs.push((
                            attr_name::RNG_ALGORITHM.to_string(),
                            self.synthesized(
                                AttrValue::Enum {
                                    chlo: false,
                                    kind: RngAlgorithm::MNEMONIC.into(),
                                    value,
                                },
                                at,
                            ),
                        ));
                    }
                    _ => return Err(unexpected(self)),
                }
                if !self.c.eat(&Token::Comma)? {
                    break;
                }
            }
        }
        if has_dot {
            let at = span.0;
            attrs.push((
                attr_name::DOT_DIMENSION_NUMBERS.to_string(),
                Attr {
                    value: AttrValue::Dot(dot),
                    start: at,
                    end: span.1,
                },
            ));
        }
        attrs.extend(self.opt_attr_dict()?);
        let (inputs, results) = match self.sig()? {
            Sig::Functional(inputs, results) => (inputs, results),
            Sig::List(types) => self.expand_list_sig(name, opcode, syntax, &operands, types)?,
        };
        self.finish_op(
            f,
            block,
            name,
            span,
            operands,
            inputs,
            results,
            Vec::new(),
            attrs,
        )
    }

    /// Operand and result types from the short type forms.
    fn expand_list_sig(
        &mut self,
        name: &str,
        opcode: Option<Opcode>,
        syntax: Syntax,
        operands: &[Value],
        types: Vec<Type>,
    ) -> PResult<(Vec<Type>, Vec<Type>)> {
        match (syntax, types.as_slice()) {
            (Syntax::Select, [pred, ty]) => {
                Ok((vec![pred.clone(), ty.clone(), ty.clone()], vec![ty.clone()]))
            }
            (Syntax::Barrier, _) => Ok((types.clone(), types)),
            (Syntax::Iota(_), [ty]) => Ok((Vec::new(), vec![ty.clone()])),
            // `stablehlo.tuple %a, %b : tuple<A, B>` names the result; its elements are the
            // operands' types.
            (Syntax::Tuple, [Type::Tuple(elements)]) => Ok((elements.clone(), types)),
            // `stablehlo.complex %re, %im : tensor<4xcomplex<f32>>` names the result type only.
            (Syntax::Elementwise, [Type::Tensor(result)])
                if opcode == Some(Opcode::Binary(BinaryOp::Complex))
                    && result.element.is_complex() =>
            {
                let part = result
                    .element
                    .complex_part()
                    .map(|e| result.with_element(e));
                let part = Type::Tensor(part.expect("complex types have a part type"));
                Ok((vec![part; operands.len()], types))
            }
            (_, [ty]) => Ok((vec![ty.clone(); operands.len()], vec![ty.clone()])),
            _ => Err(self.c.error_at(
                self.c.last_end,
                self.c.last_end,
                format!(
                    "`{name}` needs a single type or a function type `(...) -> ...`, found {}",
                    types_text(&types)
                ),
            )),
        }
    }

    /// `stablehlo.reduce(%x init: %i), ... applies OP across dimensions = [..] : T` or the
    /// `reducer(%a: T, %b: T) (...) { ... }` region form.
    fn custom_reduce(
        &mut self,
        f: &mut Function,
        block: BlockId,
        span: (usize, usize),
    ) -> PResult<OpId> {
        let name = Opcode::Reduce.name();
        let mut inputs = Vec::new();
        let mut inits = Vec::new();
        loop {
            self.c
                .expect(Token::LParen, "to start an `(input init: value)` pair")?;
            inputs.push(self.operand("as a reduce input")?);
            self.c.expect_ident("init", "after the reduce input")?;
            self.c.expect(Token::Colon, "after `init`")?;
            inits.push(self.operand("as the init value")?);
            self.c
                .expect(Token::RParen, "to close the `(input init: value)` pair")?;
            if !self.c.eat(&Token::Comma)? {
                break;
            }
        }
        let mut applies = None;
        if self.c.eat_ident("applies")? {
            let (inner, start, end) = self.c.ident("as the reduction op")?;
            let binary = BinaryOp::from_name(&inner);
            let binary = binary.ok_or_else(|| {
                self.c.error_at(
                    start,
                    end,
                    format!("`{inner}` is not a binary StableHLO op"),
                )
            })?;
            if inputs.len() != 1 {
                return Err(self.c.error_at(
                    start,
                    end,
                    "the compact `applies` form takes exactly one input",
                ));
            }
            applies = Some(binary);
        }
        self.c.expect_ident("across", "in `stablehlo.reduce`")?;
        self.c
            .expect_ident(attr_name::DIMENSIONS, "after `across`")?;
        self.c.expect(Token::Equal, "after `dimensions`")?;
        let at = self.c.here()?;
        let dims = self.c.int_list("after `dimensions =`")?;
        let mut attrs = vec![(
            attr_name::DIMENSIONS.to_string(),
            self.synthesized(AttrValue::I64Array(dims), at),
        )];
        attrs.extend(self.opt_attr_dict()?);
        let (input_types, result_types) = self.functional_sig()?;
        let region = f.add_region();
        let operand_count = inputs.len();
        let init_types: Vec<Type> = inits.iter().map(|&v| f.value_type(v).clone()).collect();
        match applies {
            Some(binary) => {
                let body = f.add_block(region);
                let ty = init_types[0].clone();
                let lhs = f.add_block_arg(body, ty.clone());
                let rhs = f.add_block_arg(body, ty.clone());
                let inner = f.append_op(
                    body,
                    NewOp::new(OpKind::Binary(binary), vec![lhs, rhs], vec![ty]),
                );
                let value = f.op(inner).results[0];
                let ret = f.append_op(
                    body,
                    NewOp::new(OpKind::RegionReturn, vec![value], Vec::new()),
                );
                self.followers = vec![inner, ret];
            }
            None => {
                self.c.expect_ident("reducer", "before the reduce body")?;
                let mut accumulators = Vec::new();
                let mut elements = Vec::new();
                while self.c.eat(&Token::LParen)? {
                    accumulators.push(self.arg_decl()?);
                    self.c
                        .expect(Token::Comma, "between the reducer arguments")?;
                    elements.push(self.arg_decl()?);
                    self.c
                        .expect(Token::RParen, "to close the reducer argument pair")?;
                }
                if accumulators.len() != operand_count {
                    return Err(self.c.error_at(
                        span.0,
                        self.c.last_end,
                        format!(
                            "the reducer declares {} argument pair(s) for {operand_count} input(s)",
                            accumulators.len()
                        ),
                    ));
                }
                accumulators.extend(elements);
                self.region(f, region, Entry::Args(&accumulators))?;
            }
        }
        let followers = std::mem::take(&mut self.followers);
        let mut operands = inputs;
        operands.extend(inits);
        let id = self.finish_op(
            f,
            block,
            name,
            span,
            operands,
            input_types,
            result_types,
            vec![region],
            attrs,
        )?;
        self.followers = followers;
        Ok(id)
    }

    /// `stablehlo.while(%iterArg = %init, ...) : T, ... [attributes {..}] cond {..} do {..}`
    fn custom_while(
        &mut self,
        f: &mut Function,
        block: BlockId,
        span: (usize, usize),
    ) -> PResult<OpId> {
        let name = Opcode::While.name();
        self.c.expect(Token::LParen, "after `stablehlo.while`")?;
        let mut names = Vec::new();
        let mut operands = Vec::new();
        if !self.c.eat(&Token::RParen)? {
            loop {
                let token = self.c.next()?;
                let Token::Value {
                    name: arg,
                    index: None,
                } = token.token
                else {
                    return Err(self.c.error_at(
                        token.start,
                        token.end,
                        "expected a loop variable like `%iterArg = %init`",
                    ));
                };
                self.c.expect(Token::Equal, "after the loop variable")?;
                operands.push(self.operand("as the loop variable's initial value")?);
                names.push((arg, token.start, token.end));
                if self.c.eat(&Token::RParen)? {
                    break;
                }
                self.c.expect(Token::Comma, "between loop variables")?;
            }
        }
        let types = if self.c.eat(&Token::Colon)? {
            self.c.type_list("as the loop variable types")?
        } else {
            Vec::new()
        };
        if types.len() != operands.len() {
            return Err(self.c.error_at(
                span.0,
                self.c.last_end,
                format!(
                    "`stablehlo.while` has {} loop variable(s) but {} type(s)",
                    operands.len(),
                    types.len()
                ),
            ));
        }
        let attrs = if self.c.eat_ident("attributes")? {
            self.c.attr_dict()?
        } else {
            Vec::new()
        };
        let args: Vec<ArgDecl> = names
            .into_iter()
            .zip(&types)
            .map(|((name, start, end), ty)| ArgDecl {
                name,
                ty: ty.clone(),
                start,
                end,
            })
            .collect();
        self.c.expect_ident("cond", "before the loop condition")?;
        let cond = f.add_region();
        self.region(f, cond, Entry::Args(&args))?;
        self.c.expect_ident("do", "before the loop body")?;
        let body = f.add_region();
        self.region(f, body, Entry::Args(&args))?;
        self.finish_op(
            f,
            block,
            name,
            span,
            operands,
            types.clone(),
            types,
            vec![cond, body],
            attrs,
        )
    }
}
