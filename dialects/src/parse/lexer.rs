//! MLIR tokens, produced on demand so the parser can switch to raw scanning inside types.

use super::error::ParseError;

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Token {
    /// `%name` or `%name#3`
    Value {
        name: String,
        index: Option<usize>,
    },
    /// `@name` or `@"quoted name"`
    Symbol(String),
    /// `#name`, `#dialect.attr`
    Hash(String),
    /// `!dialect.type`
    Bang(String),
    /// `^bb0`
    Caret(String),
    /// A bare identifier: keywords, op names, element types (`stablehlo.add`, `f32`, `x`).
    Ident(String),
    /// An integer literal as written (decimal with optional `-`, or `0x` hex).
    Int(String),
    /// A floating-point literal as written.
    Float(String),
    /// A string literal, unescaped.
    Str(String),
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Less,
    Greater,
    Comma,
    Colon,
    Equal,
    Arrow,
    Question,
    Star,
    Eof,
}

impl Token {
    /// How the token reads in a message.
    pub(crate) fn describe(&self) -> String {
        match self {
            Self::Value { name, index } => match index {
                Some(i) => format!("`%{name}#{i}`"),
                None => format!("`%{name}`"),
            },
            Self::Symbol(name) => format!("`@{name}`"),
            Self::Hash(name) => format!("`#{name}`"),
            Self::Bang(name) => format!("`!{name}`"),
            Self::Caret(name) => format!("`^{name}`"),
            Self::Ident(name) | Self::Int(name) | Self::Float(name) => format!("`{name}`"),
            Self::Str(text) => format!("string {text:?}"),
            Self::Eof => "end of input".to_string(),
            punct => format!("`{}`", punct.punct_text()),
        }
    }

    pub(crate) fn punct_text(&self) -> &'static str {
        match self {
            Self::LParen => "(",
            Self::RParen => ")",
            Self::LBrace => "{",
            Self::RBrace => "}",
            Self::LBracket => "[",
            Self::RBracket => "]",
            Self::Less => "<",
            Self::Greater => ">",
            Self::Comma => ",",
            Self::Colon => ":",
            Self::Equal => "=",
            Self::Arrow => "->",
            Self::Question => "?",
            Self::Star => "*",
            _ => "",
        }
    }
}

/// A token with its byte range.
#[derive(Clone, Debug)]
pub(crate) struct Spanned {
    pub token: Token,
    pub start: usize,
    pub end: usize,
}

pub(crate) struct Lexer<'s> {
    pub src: &'s str,
    pub pos: usize,
}

fn is_id_start(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || byte == b'_'
}

fn is_id_char(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'$' | b'.')
}

fn is_suffix_char(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'$' | b'.' | b'-')
}

impl<'s> Lexer<'s> {
    pub(crate) fn new(src: &'s str) -> Self {
        Self { src, pos: 0 }
    }

    fn bytes(&self) -> &'s [u8] {
        self.src.as_bytes()
    }

    fn peek_byte(&self, offset: usize) -> Option<u8> {
        self.bytes().get(self.pos + offset).copied()
    }

    pub(crate) fn error(&self, start: usize, end: usize, message: impl Into<String>) -> ParseError {
        ParseError::at(self.src, start, end, message)
    }

    /// Skips whitespace and `//` comments.
    pub(crate) fn skip_trivia(&mut self) {
        while let Some(byte) = self.peek_byte(0) {
            if byte.is_ascii_whitespace() {
                self.pos += 1;
            } else if byte == b'/' && self.peek_byte(1) == Some(b'/') {
                while let Some(b) = self.peek_byte(0) {
                    if b == b'\n' {
                        break;
                    }
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    fn take_while(&mut self, pred: impl Fn(u8) -> bool) -> &'s str {
        let start = self.pos;
        while self.peek_byte(0).is_some_and(&pred) {
            self.pos += 1;
        }
        &self.src[start..self.pos]
    }

    pub(crate) fn next_token(&mut self) -> Result<Spanned, ParseError> {
        self.skip_trivia();
        let start = self.pos;
        let Some(byte) = self.peek_byte(0) else {
            return Ok(Spanned {
                token: Token::Eof,
                start,
                end: start,
            });
        };
        let token = match byte {
            b'(' => self.punct(Token::LParen),
            b')' => self.punct(Token::RParen),
            b'{' => self.punct(Token::LBrace),
            b'}' => self.punct(Token::RBrace),
            b'[' => self.punct(Token::LBracket),
            b']' => self.punct(Token::RBracket),
            b'<' => self.punct(Token::Less),
            b'>' => self.punct(Token::Greater),
            b',' => self.punct(Token::Comma),
            b':' => self.punct(Token::Colon),
            b'=' => self.punct(Token::Equal),
            b'?' => self.punct(Token::Question),
            b'*' => self.punct(Token::Star),
            b'-' if self.peek_byte(1) == Some(b'>') => {
                self.pos += 2;
                Token::Arrow
            }
            b'-' | b'+' | b'0'..=b'9' => self.number(start)?,
            b'"' => Token::Str(self.string()?),
            b'%' => {
                self.pos += 1;
                let name = self.take_while(is_suffix_char).to_string();
                if name.is_empty() {
                    return Err(self.error(start, self.pos, "expected a value name after `%`"));
                }
                let index =
                    if self.peek_byte(0) == Some(b'#')
                        && self.peek_byte(1).is_some_and(|b| b.is_ascii_digit())
                    {
                        self.pos += 1;
                        let digits = self.take_while(|b| b.is_ascii_digit());
                        Some(digits.parse().map_err(|_| {
                            self.error(start, self.pos, "result index is too large")
                        })?)
                    } else {
                        None
                    };
                Token::Value { name, index }
            }
            b'@' => {
                self.pos += 1;
                if self.peek_byte(0) == Some(b'"') {
                    Token::Symbol(self.string()?)
                } else {
                    let name = self.take_while(is_suffix_char).to_string();
                    if name.is_empty() {
                        return Err(self.error(
                            start,
                            self.pos,
                            "expected a symbol name after `@`",
                        ));
                    }
                    Token::Symbol(name)
                }
            }
            b'#' | b'!' | b'^' => {
                self.pos += 1;
                let name = self.take_while(is_suffix_char).to_string();
                if name.is_empty() {
                    let sigil = byte as char;
                    return Err(self.error(
                        start,
                        self.pos,
                        format!("expected a name after `{sigil}`"),
                    ));
                }
                match byte {
                    b'#' => Token::Hash(name),
                    b'!' => Token::Bang(name),
                    _ => Token::Caret(name),
                }
            }
            _ if is_id_start(byte) => Token::Ident(self.take_while(is_id_char).to_string()),
            _ => {
                let ch = self.src[start..].chars().next().unwrap_or('?');
                return Err(self.error(
                    start,
                    start + ch.len_utf8(),
                    format!("unexpected character `{ch}`"),
                ));
            }
        };
        Ok(Spanned {
            token,
            start,
            end: self.pos,
        })
    }

    fn punct(&mut self, token: Token) -> Token {
        self.pos += 1;
        token
    }

    fn number(&mut self, start: usize) -> Result<Token, ParseError> {
        if matches!(self.peek_byte(0), Some(b'-' | b'+')) {
            self.pos += 1;
        }
        if !self.peek_byte(0).is_some_and(|b| b.is_ascii_digit()) {
            return Err(self.error(start, self.pos, "expected a number after the sign"));
        }
        if self.peek_byte(0) == Some(b'0')
            && self.peek_byte(1) == Some(b'x')
            && self.peek_byte(2).is_some_and(|b| b.is_ascii_hexdigit())
        {
            self.pos += 2;
            self.take_while(|b| b.is_ascii_hexdigit());
            return Ok(Token::Int(self.src[start..self.pos].to_string()));
        }
        self.take_while(|b| b.is_ascii_digit());
        let mut float = false;
        if self.peek_byte(0) == Some(b'.') {
            float = true;
            self.pos += 1;
            self.take_while(|b| b.is_ascii_digit());
        }
        if matches!(self.peek_byte(0), Some(b'e' | b'E')) {
            let digit_at = if matches!(self.peek_byte(1), Some(b'+' | b'-')) {
                2
            } else {
                1
            };
            if self.peek_byte(digit_at).is_some_and(|b| b.is_ascii_digit()) {
                float = true;
                self.pos += digit_at;
                self.take_while(|b| b.is_ascii_digit());
            }
        }
        let text = self.src[start..self.pos].to_string();
        Ok(if float {
            Token::Float(text)
        } else {
            Token::Int(text)
        })
    }

    /// A string literal at the cursor: `\"`, `\\`, `\n`, `\t` and two-digit hex escapes.
    fn string(&mut self) -> Result<String, ParseError> {
        let start = self.pos;
        self.pos += 1;
        let mut bytes = Vec::new();
        loop {
            let Some(byte) = self.peek_byte(0) else {
                return Err(self.error(start, self.pos, "unterminated string literal"));
            };
            self.pos += 1;
            match byte {
                b'"' => break,
                b'\n' => {
                    return Err(self.error(start, self.pos - 1, "unterminated string literal"));
                }
                b'\\' => {
                    let escape_at = self.pos - 1;
                    match (self.peek_byte(0), self.peek_byte(1)) {
                        (Some(b'"'), _) => bytes.push(b'"'),
                        (Some(b'\\'), _) => bytes.push(b'\\'),
                        (Some(b'n'), _) => bytes.push(b'\n'),
                        (Some(b't'), _) => bytes.push(b'\t'),
                        (Some(hi), Some(lo))
                            if hi.is_ascii_hexdigit() && lo.is_ascii_hexdigit() =>
                        {
                            let text = &self.src[self.pos..self.pos + 2];
                            bytes.push(u8::from_str_radix(text, 16).unwrap_or(0));
                            self.pos += 1;
                        }
                        _ => {
                            return Err(self.error(
                                escape_at,
                                self.pos + 1,
                                "unknown escape in string literal",
                            ));
                        }
                    }
                    self.pos += 1;
                }
                _ => bytes.push(byte),
            }
        }
        String::from_utf8(bytes)
            .map_err(|_| self.error(start, self.pos, "string literal is not valid UTF-8"))
    }
}
