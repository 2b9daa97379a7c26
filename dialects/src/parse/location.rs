//! Locations as written (`loc(...)` bodies, `#loc` aliases) and their resolution into
//! [`Location`] once every alias definition has been read.
//!
//! Mapping onto tpuc's location model:
//! - `"file":line:col` and the range forms `"file":l:c to :c2` / `to l2:c2` keep the start;
//! - `"name"` and `"name"(child)` are name locations;
//! - `callsite(callee at caller)` keeps the callee: the innermost frame, the source line that
//!   created the op, which is what a diagnostic should point at (the caller chain is dropped);
//! - `fused[...]` and `fused<metadata>[...]` are fused locations (the metadata is dropped).

use std::collections::HashMap;

use super::cursor::{Cursor, MAX_NESTING, PResult};
use super::error::ParseError;
use super::lexer::Token;
use crate::location::Location;

#[derive(Clone, Debug)]
pub(crate) enum LocExpr {
    Unknown,
    File {
        file: String,
        line: u32,
        col: u32,
    },
    Name {
        name: String,
        child: Option<Box<LocExpr>>,
    },
    CallSite {
        callee: Box<LocExpr>,
    },
    Fused(Vec<LocExpr>),
    Alias {
        name: String,
        start: usize,
        end: usize,
    },
}

impl Cursor<'_> {
    /// An optional trailing `loc(...)`.
    pub(crate) fn opt_loc(&mut self) -> PResult<Option<LocExpr>> {
        if !self.is_ident("loc")? {
            return Ok(None);
        }
        self.loc().map(Some)
    }

    /// `loc(...)`
    pub(crate) fn loc(&mut self) -> PResult<LocExpr> {
        self.expect_ident("loc", "")?;
        self.expect(Token::LParen, "after `loc`")?;
        let body = self.loc_body()?;
        self.expect(Token::RParen, "to close the location")?;
        Ok(body)
    }

    fn loc_u32(&mut self, what: &str) -> PResult<u32> {
        let start = self.here()?;
        let value = self.int(what)?;
        u32::try_from(value)
            .map_err(|_| self.error_at(start, self.last_end, format!("{what} out of range")))
    }

    fn loc_body(&mut self) -> PResult<LocExpr> {
        self.nested("a location", Self::loc_body_inner)
    }

    fn loc_body_inner(&mut self) -> PResult<LocExpr> {
        let token = self.next()?;
        match token.token {
            Token::Hash(name) => {
                Ok(LocExpr::Alias {
                    name,
                    start: token.start,
                    end: token.end,
                })
            }
            Token::Ident(keyword) if keyword == "unknown" => {
                Ok(LocExpr::Unknown)
            }
            Token::Ident(keyword) if keyword == "callsite" => {
                self.expect(Token::LParen, "after `callsite`")?;
                let callee = self.loc_body()?;
                self.expect_ident("at", "between the callee and the caller of a callsite location")?;
                self.loc_body()?;
                self.expect(Token::RParen, "to close the callsite location")?;
                Ok(LocExpr::CallSite {
                    callee: Box::new(callee),
                })
            }
            Token::Ident(keyword) if keyword == "fused" => {
                if self.eat(&Token::Less)? {
                    self.skip_balanced_angle()?;
                }
                self.expect(Token::LBracket, "after `fused`")?;
                let mut parts = Vec::new();
                if !self.eat(&Token::RBracket)? {
                    loop {
                        parts.push(self.loc_body()?);
                        if self.eat(&Token::RBracket)? {
                            break;
                        }
                        self.expect(Token::Comma, "between fused locations")?;
                    }
                }
                Ok(LocExpr::Fused(parts))
            }
            Token::Str(text) => {
                if self.eat(&Token::Colon)? {
                    let line = self.loc_u32("a line number")?;
                    self.expect(Token::Colon, "after the line number")?;
                    let col = self.loc_u32("a column number")?;
                    if self.eat_ident("to")? {
                        if self.eat(&Token::Colon)? {
                            self.loc_u32("an end column")?;
                        } else {
                            self.loc_u32("an end line")?;
                            self.expect(Token::Colon, "after the end line")?;
                            self.loc_u32("an end column")?;
                        }
                    }
                    return Ok(LocExpr::File { file: text, line, col });
                }
                let child = if self.eat(&Token::LParen)? {
                    let child = self.loc_body()?;
                    self.expect(Token::RParen, "to close the name location")?;
                    Some(Box::new(child))
                } else {
                    None
                };
                Ok(LocExpr::Name { name: text, child })
            }
            other => Err(self.error_at(
                token.start,
                token.end,
                format!(
                    "expected a location (`unknown`, `\"file\":line:col`, `\"name\"`, `callsite(...)`, `fused[...]` or `#alias`), found {}",
                    other.describe()
                ),
            )),
        }
    }

    /// Skips to the `>` matching an already consumed `<`.
    pub(crate) fn skip_balanced_angle(&mut self) -> PResult<()> {
        let mut depth = 1usize;
        loop {
            let token = self.next()?;
            match token.token {
                Token::Less => depth += 1,
                Token::Greater => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                }
                Token::Eof => {
                    return Err(self.error_at(token.start, token.end, "unterminated `<...>`"));
                }
                _ => {}
            }
        }
    }
}

/// Alias definitions `#name = loc(...)` and their resolved values.
#[derive(Default)]
pub(crate) struct LocAliases {
    defs: HashMap<String, (LocExpr, usize, usize)>,
    resolved: HashMap<String, Location>,
}

impl LocAliases {
    pub(crate) fn define(
        &mut self,
        src: &str,
        name: String,
        expr: LocExpr,
        start: usize,
        end: usize,
    ) -> PResult<()> {
        if self.defs.contains_key(&name) {
            return Err(ParseError::at(
                src,
                start,
                end,
                format!("redefinition of location alias `#{name}`"),
            ));
        }
        self.defs.insert(name, (expr, start, end));
        Ok(())
    }

    pub(crate) fn resolve(&mut self, src: &str, expr: &LocExpr) -> PResult<Location> {
        self.resolve_depth(src, expr, 0)
    }

    fn resolve_depth(&mut self, src: &str, expr: &LocExpr, depth: usize) -> PResult<Location> {
        Ok(match expr {
            LocExpr::Unknown => Location::Unknown,
            LocExpr::File { file, line, col } => Location::file(file.clone(), *line, *col),
            LocExpr::Name { name, child } => match child {
                Some(child) => {
                    Location::named(name.clone(), self.resolve_depth(src, child, depth)?)
                }
                None => Location::name(name.clone()),
            },
            LocExpr::CallSite { callee } => self.resolve_depth(src, callee, depth)?,
            LocExpr::Fused(parts) => Location::Fused(
                parts
                    .iter()
                    .map(|part| self.resolve_depth(src, part, depth))
                    .collect::<PResult<_>>()?,
            ),
            LocExpr::Alias { name, start, end } => {
                if let Some(location) = self.resolved.get(name) {
                    return Ok(location.clone());
                }
                let Some((body, _, _)) = self.defs.get(name).cloned() else {
                    return Err(ParseError::at(
                        src,
                        *start,
                        *end,
                        format!("undefined location alias `#{name}`"),
                    )
                    .with_help(
                        "define it at the top level, e.g. `#loc1 = loc(\"model.py\":3:0)`",
                    ));
                };
                if depth > self.defs.len() {
                    return Err(ParseError::at(
                        src,
                        *start,
                        *end,
                        format!("location alias `#{name}` refers to itself"),
                    ));
                }
                if depth > MAX_NESTING {
                    return Err(ParseError::at(
                        src,
                        *start,
                        *end,
                        format!(
                            "location alias `#{name}` is reached through more than {MAX_NESTING} aliases"
                        ),
                    ));
                }
                let location = self.resolve_depth(src, &body, depth + 1)?;
                self.resolved.insert(name.clone(), location.clone());
                location
            }
        })
    }
}
