//! The token cursor: one token of lookahead over the lexer, and the small `expect`/`eat` helpers
//! every part of the parser uses.

use super::error::ParseError;
use super::lexer::{Lexer, Spanned, Token};

pub(crate) type PResult<T> = Result<T, ParseError>;

/// How deeply brackets of dense literals, nested attributes, types and locations, and regions
/// may nest (all counted together). Real StableHLO stays within a few dozen levels; the limit
/// turns adversarial nesting into an error before the recursive parser exhausts its stack.
pub const MAX_NESTING: usize = 64;

pub(crate) struct Cursor<'s> {
    lexer: Lexer<'s>,
    peeked: Option<Spanned>,
    /// End of the last consumed token.
    pub last_end: usize,
    /// How many nested constructs enclose the current token.
    depth: usize,
}

impl<'s> Cursor<'s> {
    pub(crate) fn new(src: &'s str) -> Self {
        Self {
            lexer: Lexer::new(src),
            peeked: None,
            last_end: 0,
            depth: 0,
        }
    }

    /// Runs `parse` one nesting level deeper, or fails at the next token when that passes
    /// [`MAX_NESTING`].
    pub(crate) fn nested<T>(
        &mut self,
        what: &str,
        parse: impl FnOnce(&mut Self) -> PResult<T>,
    ) -> PResult<T> {
        self.enter(what)?;
        let result = parse(self);
        self.leave();
        result
    }

    /// Enters one nesting level; pair it with [`Self::leave`] (or use [`Self::nested`]).
    pub(crate) fn enter(&mut self, what: &str) -> PResult<()> {
        if self.depth >= MAX_NESTING {
            return Err(self
                .error_here(format!("{what} nested more than {MAX_NESTING} levels deep"))
                .with_help("tpuc reads at most this much nesting; flatten the input"));
        }
        self.depth += 1;
        Ok(())
    }

    pub(crate) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    pub(crate) fn src(&self) -> &'s str {
        self.lexer.src
    }

    pub(crate) fn peek_spanned(&mut self) -> PResult<&Spanned> {
        if self.peeked.is_none() {
            self.peeked = Some(self.lexer.next_token()?);
        }
        Ok(self.peeked.as_ref().expect("peeked token was just filled"))
    }

    pub(crate) fn peek(&mut self) -> PResult<&Token> {
        Ok(&self.peek_spanned()?.token)
    }

    pub(crate) fn next(&mut self) -> PResult<Spanned> {
        let token = match self.peeked.take() {
            Some(token) => token,
            None => self.lexer.next_token()?,
        };
        self.last_end = token.end;
        Ok(token)
    }

    /// Start offset of the next token.
    pub(crate) fn here(&mut self) -> PResult<usize> {
        Ok(self.peek_spanned()?.start)
    }

    pub(crate) fn is(&mut self, token: &Token) -> PResult<bool> {
        Ok(self.peek()? == token)
    }

    pub(crate) fn is_ident(&mut self, keyword: &str) -> PResult<bool> {
        Ok(matches!(self.peek()?, Token::Ident(name) if name == keyword))
    }

    pub(crate) fn eat(&mut self, token: &Token) -> PResult<bool> {
        if self.is(token)? {
            self.next()?;
            return Ok(true);
        }
        Ok(false)
    }

    pub(crate) fn eat_ident(&mut self, keyword: &str) -> PResult<bool> {
        if self.is_ident(keyword)? {
            self.next()?;
            return Ok(true);
        }
        Ok(false)
    }

    /// An error spanning the next token.
    pub(crate) fn error_here(&mut self, message: impl Into<String>) -> ParseError {
        match self.peek_spanned() {
            Ok(token) => {
                let (start, end) = (token.start, token.end);
                ParseError::at(self.src(), start, end, message)
            }
            Err(error) => error,
        }
    }

    pub(crate) fn error_at(
        &self,
        start: usize,
        end: usize,
        message: impl Into<String>,
    ) -> ParseError {
        ParseError::at(self.src(), start, end, message)
    }

    /// "expected `what` `context`, found ..." at the next token.
    pub(crate) fn expected(&mut self, what: &str, context: &str) -> ParseError {
        let found = match self.peek() {
            Ok(token) => token.describe(),
            Err(error) => return error,
        };
        let context = if context.is_empty() {
            String::new()
        } else {
            format!(" {context}")
        };
        self.error_here(format!("expected {what}{context}, found {found}"))
    }

    pub(crate) fn expect(&mut self, token: Token, context: &str) -> PResult<Spanned> {
        if self.is(&token)? {
            return self.next();
        }
        let what = format!("'{}'", token.punct_text());
        Err(self.expected(&what, context))
    }

    pub(crate) fn expect_ident(&mut self, keyword: &str, context: &str) -> PResult<Spanned> {
        if self.is_ident(keyword)? {
            return self.next();
        }
        Err(self.expected(&format!("`{keyword}`"), context))
    }

    /// Any identifier.
    pub(crate) fn ident(&mut self, context: &str) -> PResult<(String, usize, usize)> {
        if let Token::Ident(_) = self.peek()? {
            let token = self.next()?;
            if let Token::Ident(name) = token.token {
                return Ok((name, token.start, token.end));
            }
        }
        Err(self.expected("an identifier", context))
    }

    pub(crate) fn string(&mut self, context: &str) -> PResult<String> {
        if let Token::Str(_) = self.peek()?
            && let Token::Str(text) = self.next()?.token
        {
            return Ok(text);
        }
        Err(self.expected("a string", context))
    }

    pub(crate) fn symbol(&mut self, context: &str) -> PResult<(String, usize, usize)> {
        if let Token::Symbol(_) = self.peek()? {
            let token = self.next()?;
            if let Token::Symbol(name) = token.token {
                return Ok((name, token.start, token.end));
            }
        }
        Err(self.expected("a symbol like `@name`", context))
    }

    /// A signed integer.
    pub(crate) fn int(&mut self, context: &str) -> PResult<i64> {
        if let Token::Int(_) = self.peek()? {
            let token = self.next()?;
            if let Token::Int(text) = &token.token {
                return parse_int(text)
                    .and_then(|v| i64::try_from(v).ok())
                    .ok_or_else(|| {
                        self.error_at(
                            token.start,
                            token.end,
                            format!("integer `{text}` is out of range"),
                        )
                    });
            }
        }
        Err(self.expected("an integer", context))
    }

    /// `[1, 2, 3]`
    pub(crate) fn int_list(&mut self, context: &str) -> PResult<Vec<i64>> {
        self.expect(Token::LBracket, context)?;
        let mut values = Vec::new();
        if self.eat(&Token::RBracket)? {
            return Ok(values);
        }
        loop {
            values.push(self.int(context)?);
            if self.eat(&Token::RBracket)? {
                return Ok(values);
            }
            self.expect(Token::Comma, "between list elements")?;
        }
    }

    /// Raw access for scanning inside `tensor<...>`: valid only with no token peeked.
    pub(crate) fn raw(&mut self) -> &mut Lexer<'s> {
        debug_assert!(self.peeked.is_none(), "raw scanning with a token peeked");
        &mut self.lexer
    }

    pub(crate) fn sync_last_end(&mut self) {
        self.last_end = self.lexer.pos;
    }
}

/// Decimal (optionally signed) or `0x` hex integer text.
pub(crate) fn parse_int(text: &str) -> Option<i128> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let value = match digits.strip_prefix("0x") {
        Some(hex) => u128::from_str_radix(hex, 16).ok()?,
        None => digits.parse::<u128>().ok()?,
    };
    let value = i128::try_from(value).ok()?;
    Some(if negative { -value } else { value })
}
