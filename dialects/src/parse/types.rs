//! Types: `tensor<2x?xf32>`, `!stablehlo.token`, `tuple<...>`, element types and function types.

use super::cursor::{Cursor, PResult};
use super::lexer::Token;
use crate::types::{Dim, ElementType, TensorType, Type};

/// MLIR's builtin `index` type, which tpuc reads only to refuse or skip it (the same word as
/// `get_tuple_element`'s attribute).
pub(crate) const INDEX_TYPE: &str = "index";

impl Cursor<'_> {
    pub(crate) fn ty(&mut self, context: &str) -> PResult<Type> {
        self.nested("a type", |c| c.ty_inner(context))
    }

    fn ty_inner(&mut self, context: &str) -> PResult<Type> {
        let start = self.here()?;
        match self.peek()?.clone() {
            Token::Ident(name) if name == "tensor" => Ok(Type::Tensor(self.tensor_type(context)?)),
            Token::Ident(name) if name == "tuple" => {
                self.next()?;
                self.expect(Token::Less, "after `tuple`")?;
                let mut elements = Vec::new();
                if !self.eat(&Token::Greater)? {
                    loop {
                        elements.push(self.ty("in a tuple type")?);
                        if self.eat(&Token::Greater)? {
                            break;
                        }
                        self.expect(Token::Comma, "between tuple element types")?;
                    }
                }
                Ok(Type::Tuple(elements))
            }
            Token::Bang(name) if name == "stablehlo.token" => {
                self.next()?;
                Ok(Type::Token)
            }
            Token::Bang(name) => {
                let end = self.next()?.end;
                Err(self.error_at(start, end, format!("unsupported type `!{name}`: tpuc's IR has tensors, tuples and `!stablehlo.token`")))
            }
            Token::Ident(name) if ElementType::from_mnemonic(&name).is_some() => {
                Err(self.error_here(format!("expected a tensor type, found the element type `{name}`; write `tensor<{name}>` for a scalar")))
            }
            _ => Err(self.expected("a type", context)),
        }
    }

    /// `tensor<2x?xf32>`; the dimension list is scanned raw, as MLIR's lexer does.
    pub(crate) fn tensor_type(&mut self, context: &str) -> PResult<TensorType> {
        self.expect_ident("tensor", context)?;
        self.expect(Token::Less, "after `tensor`")?;
        let src = self.src();
        let bytes = src.as_bytes();
        let lexer = self.raw();
        let mut shape = Vec::new();
        loop {
            lexer.skip_trivia();
            let start = lexer.pos;
            match bytes.get(lexer.pos) {
                Some(b'?') => {
                    lexer.pos += 1;
                    shape.push(Dim::Dynamic);
                }
                Some(b'*') => {
                    return Err(lexer.error(
                        start,
                        start + 1,
                        "unranked tensors are not supported",
                    ));
                }
                Some(b) if b.is_ascii_digit() => {
                    while bytes.get(lexer.pos).is_some_and(u8::is_ascii_digit) {
                        lexer.pos += 1;
                    }
                    let size = src[start..lexer.pos].parse().map_err(|_| {
                        lexer.error(start, lexer.pos, "dimension size is out of range")
                    })?;
                    shape.push(Dim::Static(size));
                }
                _ => break,
            }
            lexer.skip_trivia();
            if bytes.get(lexer.pos) != Some(&b'x') {
                return Err(lexer.error(
                    lexer.pos,
                    lexer.pos + 1,
                    "expected 'x' after a dimension size",
                ));
            }
            lexer.pos += 1;
        }
        let start = lexer.pos;
        let element_end = if src[start..].starts_with("complex<") {
            src[start..].find('>').map_or(src.len(), |i| start + i + 1)
        } else {
            let mut end = start;
            while bytes
                .get(end)
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
            {
                end += 1;
            }
            end
        };
        let text = &src[start..element_end];
        let element = ElementType::from_mnemonic(text).ok_or_else(|| {
            if text.is_empty() {
                lexer.error(
                    start,
                    start + 1,
                    "expected an element type in the tensor type",
                )
            } else {
                lexer.error(start, element_end, format!("unknown element type `{text}`"))
            }
        })?;
        lexer.pos = element_end;
        lexer.skip_trivia();
        match bytes.get(lexer.pos) {
            Some(b'>') => lexer.pos += 1,
            Some(b',') => {
                return Err(lexer.error(
                    lexer.pos,
                    lexer.pos + 1,
                    "tensor encodings (bounds, sparsity) are not supported",
                ));
            }
            _ => {
                return Err(lexer.error(
                    lexer.pos,
                    lexer.pos + 1,
                    "expected '>' to close the tensor type",
                ));
            }
        }
        self.sync_last_end();
        Ok(TensorType::new(shape, element))
    }

    /// Skips a `tensor<...xindex>` at the cursor (a type tpuc's IR does not have, seen only in
    /// attributes); false, consuming nothing, for any other text.
    pub(crate) fn skip_index_tensor_type(&mut self) -> bool {
        let src = self.src();
        let lexer = self.raw();
        lexer.skip_trivia();
        let rest = &src[lexer.pos..];
        let Some(body) = rest.strip_prefix("tensor<") else {
            return false;
        };
        let Some(close) = body.find('>') else {
            return false;
        };
        let inside = &body[..close];
        let index = inside
            .strip_suffix(INDEX_TYPE)
            .is_some_and(|dims| dims.is_empty() || dims.ends_with('x'));
        if !index {
            return false;
        }
        lexer.pos += "tensor<".len() + close + 1;
        self.sync_last_end();
        true
    }

    /// `f32`, `i64`, `complex<f32>` outside a tensor type.
    pub(crate) fn element_type(&mut self, context: &str) -> PResult<ElementType> {
        let start = self.here()?;
        let (name, _, end) = self.ident(context)?;
        if name == "complex" {
            self.expect(Token::Less, "after `complex`")?;
            let (part, _, _) = self.ident("in a complex type")?;
            let end = self
                .expect(Token::Greater, "to close the complex type")?
                .end;
            let text = format!("complex<{part}>");
            return ElementType::from_mnemonic(&text).ok_or_else(|| {
                self.error_at(start, end, format!("unknown element type `{text}`"))
            });
        }
        ElementType::from_mnemonic(&name)
            .ok_or_else(|| self.error_at(start, end, format!("unknown element type `{name}`")))
    }

    /// `T1, T2, ...` (at least one).
    pub(crate) fn type_list(&mut self, context: &str) -> PResult<Vec<Type>> {
        let mut types = vec![self.ty(context)?];
        while self.eat(&Token::Comma)? {
            types.push(self.ty(context)?);
        }
        Ok(types)
    }

    /// `(T, ...) -> T` or `(T, ...) -> (T, ...)`.
    pub(crate) fn function_type(&mut self, context: &str) -> PResult<(Vec<Type>, Vec<Type>)> {
        self.expect(Token::LParen, context)?;
        let inputs = self.paren_types_rest()?;
        self.expect(Token::Arrow, "after the operand types")?;
        Ok((inputs, self.result_types()?))
    }

    /// What follows `->`: `T` or `(T, ...)`.
    pub(crate) fn result_types(&mut self) -> PResult<Vec<Type>> {
        if self.eat(&Token::LParen)? {
            self.paren_types_rest()
        } else {
            Ok(vec![self.ty("as the result type")?])
        }
    }

    /// The rest of `(T, ...)` after the `(`.
    fn paren_types_rest(&mut self) -> PResult<Vec<Type>> {
        if self.eat(&Token::RParen)? {
            return Ok(Vec::new());
        }
        let types = self.type_list("in a type list")?;
        self.expect(Token::RParen, "to close the type list")?;
        Ok(types)
    }
}
