//! Operations in the generic form, regions and blocks, and SSA name scoping (the custom forms
//! are in `custom`).
//!
//! Names are scoped per region: a region sees the values of the regions around it, sibling
//! regions may reuse names, and a value must be defined before it is used.

use std::collections::HashMap;

use super::attr::{Attr, dict_to_named};
use super::cursor::{Cursor, PResult};
use super::kind::{AttrBag, KindCx, Known, known};
use super::lexer::Token;
use super::location::LocExpr;
use crate::function::{BlockId, Function, NewOp, OpId, RegionId, Value};
use crate::types::Type;

/// Where a parsed location goes once aliases are resolved.
#[derive(Clone, Copy, Debug)]
pub(crate) enum LocTarget {
    Op(usize, OpId),
    Function(usize),
    /// Argument `.1` of function `.0`.
    Arg(usize, usize),
    Module,
    /// Parsed and checked, but tpuc's IR has nowhere to keep it (arguments of region blocks).
    Discard,
}

/// A block argument as written: `%name: type`.
pub(crate) struct ArgDecl {
    pub name: String,
    pub ty: Type,
    pub start: usize,
    pub end: usize,
}

/// How a region's entry block gets its arguments.
pub(crate) enum Entry<'a> {
    /// Generic form: each block may start with `^bb0(%a: T, ...):`.
    Headers,
    /// Custom forms (`while`, `reduce`): the arguments are declared before the region.
    Args(&'a [ArgDecl]),
    /// A function body: the entry block exists; an optional header names its arguments.
    Existing(BlockId),
}

pub(crate) struct Parser<'s> {
    pub c: Cursor<'s>,
    scopes: Vec<HashMap<String, Vec<Value>>>,
    pub pending: Vec<(LocTarget, LocExpr)>,
    /// Index the function being parsed will have in the module.
    pub func_index: usize,
    /// Ops built implicitly by a custom form that take the op's location (compact `reduce`).
    pub(super) followers: Vec<OpId>,
    /// Each op's `(function index, op, start, end)`, for [`super::OpSpans`].
    pub spans: Vec<(usize, OpId, usize, usize)>,
    /// Set when an operand list ended by consuming a `,` that starts keyword arguments.
    pub(super) comma_consumed: bool,
}

impl<'s> Parser<'s> {
    pub(crate) fn new(src: &'s str) -> Self {
        Self {
            c: Cursor::new(src),
            scopes: Vec::new(),
            pending: Vec::new(),
            func_index: 0,
            followers: Vec::new(),
            spans: Vec::new(),
            comma_consumed: false,
        }
    }

    pub(crate) fn src(&self) -> &'s str {
        self.c.src()
    }

    pub(crate) fn reset_scopes(&mut self) {
        self.scopes.clear();
        self.scopes.push(HashMap::new());
    }

    pub(crate) fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    pub(crate) fn pop_scope(&mut self) {
        self.scopes.pop();
    }

    pub(crate) fn bind(
        &mut self,
        name: &str,
        values: Vec<Value>,
        start: usize,
        end: usize,
    ) -> PResult<()> {
        if self.scopes.iter().any(|scope| scope.contains_key(name)) {
            return Err(self
                .c
                .error_at(start, end, format!("redefinition of value %{name}")));
        }
        self.scopes
            .last_mut()
            .expect("a scope is open while parsing a function")
            .insert(name.to_string(), values);
        Ok(())
    }

    fn lookup(&self, name: &str) -> Option<&Vec<Value>> {
        self.scopes.iter().rev().find_map(|scope| scope.get(name))
    }

    /// A value use: `%name` or `%name#i`.
    pub(super) fn operand(&mut self, context: &str) -> PResult<Value> {
        if !matches!(self.c.peek()?, Token::Value { .. }) {
            return Err(self.c.expected("a value like `%0`", context));
        }
        let token = self.c.next()?;
        let Token::Value { name, index } = token.token else {
            return Err(self.c.error_at(token.start, token.end, "expected a value"));
        };
        let error = |p: &Self, message: String| p.c.error_at(token.start, token.end, message);
        let Some(values) = self.lookup(&name) else {
            return Err(error(self, format!("undefined value %{name}")).with_help(
                "values must be defined before they are used, in this region or one around it",
            ));
        };
        match (index, values.len()) {
            (None, 1) => Ok(values[0]),
            (None, n) => Err(error(
                self,
                format!(
                    "%{name} names {n} results; pick one with %{name}#0 .. %{name}#{}",
                    n.saturating_sub(1)
                ),
            )),
            (Some(i), n) if i < n => Ok(values[i]),
            (Some(i), n) => Err(error(
                self,
                format!("result #{i} of %{name} does not exist: it names {n} result(s)"),
            )),
        }
    }

    /// Operands up to a non-comma: `%a, %b` (possibly none).
    pub(super) fn operands_bare(&mut self) -> PResult<Vec<Value>> {
        let mut values = Vec::new();
        if !matches!(self.c.peek()?, Token::Value { .. }) {
            return Ok(values);
        }
        values.push(self.operand("")?);
        while self.c.is(&Token::Comma)? {
            self.c.next()?;
            if !matches!(self.c.peek()?, Token::Value { .. }) {
                self.comma_consumed = true;
                break;
            }
            values.push(self.operand("after ','")?);
        }
        Ok(values)
    }

    /// `(%a, %b)`
    pub(super) fn operands_paren(&mut self, context: &str) -> PResult<Vec<Value>> {
        self.c.expect(Token::LParen, context)?;
        let mut values = Vec::new();
        if self.c.eat(&Token::RParen)? {
            return Ok(values);
        }
        loop {
            values.push(self.operand("as an operand")?);
            if self.c.eat(&Token::RParen)? {
                return Ok(values);
            }
            if !self.c.is(&Token::Comma)? {
                return Err(self.c.expected("','", "after operand"));
            }
            self.c.next()?;
        }
    }

    /// One op (with its results, custom or generic form, and trailing location) into `block`.
    pub(crate) fn op(&mut self, f: &mut Function, block: BlockId) -> PResult<()> {
        let mut defs = Vec::new();
        if matches!(self.c.peek()?, Token::Value { .. }) {
            loop {
                let token = self.c.next()?;
                let Token::Value { name, index } = token.token else {
                    return Err(self
                        .c
                        .error_at(token.start, token.end, "expected a result name"));
                };
                if index.is_some() {
                    return Err(self.c.error_at(
                        token.start,
                        token.end,
                        "a result name cannot carry `#index`; write `%name:count`",
                    ));
                }
                let mut count = 1;
                if self.c.eat(&Token::Colon)? {
                    let start = self.c.here()?;
                    count = usize::try_from(self.c.int("as the result count")?)
                        .ok()
                        .filter(|&n| n > 0)
                        .ok_or_else(|| {
                            self.c
                                .error_at(start, self.c.last_end, "result count must be positive")
                        })?;
                }
                defs.push((name, count, token.start, self.c.last_end));
                if !self.c.eat(&Token::Comma)? {
                    break;
                }
                if !matches!(self.c.peek()?, Token::Value { .. }) {
                    return Err(self.c.expected("a result name", "after ','"));
                }
            }
            self.c.expect(Token::Equal, "after the result names")?;
        }
        if !matches!(self.c.peek()?, Token::Str(_) | Token::Ident(_)) {
            return Err(self.c.expected("an operation", ""));
        }
        let token = self.c.next()?;
        let id = match &token.token {
            Token::Str(name) => self.generic_op(f, block, name, token.start, token.end)?,
            Token::Ident(name) => self.custom_op(f, block, name, token.start, token.end)?,
            _ => {
                return Err(self
                    .c
                    .error_at(token.start, token.end, "expected an operation"));
            }
        };
        let followers = std::mem::take(&mut self.followers);
        let start = defs.first().map_or(token.start, |d| d.2);
        for &op in followers.iter().chain([&id]) {
            self.spans.push((self.func_index, op, start, token.end));
        }
        if let Some(loc) = self.c.opt_loc()? {
            for &follower in &followers {
                self.pending
                    .push((LocTarget::Op(self.func_index, follower), loc.clone()));
            }
            self.pending.push((LocTarget::Op(self.func_index, id), loc));
        }
        let results = f.op(id).results.clone();
        let named: usize = defs.iter().map(|d| d.1).sum();
        if named != results.len() && !(defs.is_empty() && results.is_empty()) {
            let (start, end) = defs
                .first()
                .map_or((token.start, token.end), |d| (d.2, d.3));
            return Err(self.c.error_at(
                start,
                end,
                format!(
                    "{named} result name(s) given but `{}` has {} result(s)",
                    f.op(id).kind.name(),
                    results.len()
                ),
            ));
        }
        let mut next = 0;
        for (name, count, start, end) in defs {
            self.bind(&name, results[next..next + count].to_vec(), start, end)?;
            next += count;
        }
        Ok(())
    }

    pub(super) fn check_known(&mut self, name: &str, start: usize, end: usize) -> PResult<()> {
        match known(name) {
            Known::Yes => Ok(()),
            Known::No(message, help) => {
                let error = self.c.error_at(start, end, message);
                Err(match help {
                    Some(help) => error.with_help(help),
                    None => error,
                })
            }
        }
    }

    /// `"dialect.op"(%a) <{props}> ({regions}) {attrs} : (T) -> T`
    fn generic_op(
        &mut self,
        f: &mut Function,
        block: BlockId,
        name: &str,
        start: usize,
        end: usize,
    ) -> PResult<OpId> {
        self.check_known(name, start, end)?;
        let operands = self.operands_paren("after the op name")?;
        if self.c.is(&Token::LBracket)? {
            return Err(self.c.error_here(
                "block successors are not supported: StableHLO regions have a single block",
            ));
        }
        let mut attrs = Vec::new();
        if self.c.eat(&Token::Less)? {
            attrs = self.c.attr_dict()?;
            self.c
                .expect(Token::Greater, "to close the properties `<{...}>`")?;
        }
        let mut regions = Vec::new();
        if self.c.eat(&Token::LParen)? {
            loop {
                let region = f.add_region();
                self.region(f, region, Entry::Headers)?;
                regions.push(region);
                if self.c.eat(&Token::RParen)? {
                    break;
                }
                self.c.expect(Token::Comma, "between regions")?;
            }
        }
        if self.c.is(&Token::LBrace)? {
            let dict_start = self.c.here()?;
            for (key, value) in self.c.attr_dict()? {
                if attrs.iter().any(|(k, _): &(String, Attr)| *k == key) {
                    return Err(self.c.error_at(
                        dict_start,
                        self.c.last_end,
                        format!("attribute `{key}` is given twice"),
                    ));
                }
                attrs.push((key, value));
            }
        }
        self.c.expect(Token::Colon, "before the op's type")?;
        let (inputs, results) = self.c.function_type("as the op's type")?;
        self.finish_op(
            f,
            block,
            name,
            (start, end),
            operands,
            inputs,
            results,
            regions,
            attrs,
        )
    }

    /// Checks operand types, builds the kind and appends the op.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn finish_op(
        &mut self,
        f: &mut Function,
        block: BlockId,
        name: &str,
        (start, end): (usize, usize),
        operands: Vec<Value>,
        inputs: Vec<Type>,
        results: Vec<Type>,
        regions: Vec<RegionId>,
        attrs: Vec<(String, Attr)>,
    ) -> PResult<OpId> {
        if inputs.len() != operands.len() {
            return Err(self.c.error_at(
                start,
                self.c.last_end,
                format!(
                    "`{name}` has {} operand(s) but its type lists {}",
                    operands.len(),
                    inputs.len()
                ),
            ));
        }
        for (i, (&value, ty)) in operands.iter().zip(&inputs).enumerate() {
            let actual = f.value_type(value);
            if actual != ty {
                return Err(self.c.error_at(
                    start,
                    self.c.last_end,
                    format!("type mismatch: operand #{i} of `{name}` has type {actual}, but the op's type says {ty}"),
                ));
            }
        }
        let mut cx = KindCx {
            src: self.src(),
            op: name,
            op_start: start,
            op_end: end,
            results: &results,
            bag: AttrBag { entries: attrs },
        };
        let kind = cx.build(&inputs)?;
        let attrs = dict_to_named(&cx.bag.entries, self.src());
        Ok(f.append_op(
            block,
            NewOp {
                kind,
                operands,
                result_types: results,
                regions,
                attrs,
                location: Default::default(),
            },
        ))
    }

    /// `{ [^bb0(...):] ops... }` into `region`.
    pub(crate) fn region(
        &mut self,
        f: &mut Function,
        region: RegionId,
        entry: Entry<'_>,
    ) -> PResult<()> {
        self.c.enter("a region")?;
        let result = self.region_inner(f, region, entry);
        self.c.leave();
        result
    }

    fn region_inner(
        &mut self,
        f: &mut Function,
        region: RegionId,
        entry: Entry<'_>,
    ) -> PResult<()> {
        self.c.expect(Token::LBrace, "to start a region")?;
        self.push_scope();
        let mut current = match entry {
            Entry::Headers => None,
            Entry::Args(args) => {
                let block = f.add_block(region);
                for arg in args {
                    let value = f.add_block_arg(block, arg.ty.clone());
                    self.bind(&arg.name, vec![value], arg.start, arg.end)?;
                }
                Some(block)
            }
            Entry::Existing(block) => {
                if matches!(self.c.peek()?, Token::Caret(_)) {
                    let header = self.block_header(Some(self.func_index))?;
                    let existing = f.block(block).args.clone();
                    if header.len() != existing.len() {
                        let (start, end) = header
                            .first()
                            .map_or((self.c.last_end, self.c.last_end), |a| (a.start, a.end));
                        return Err(self.c.error_at(start, end, format!(
                            "the entry block declares {} argument(s) but the function type has {}",
                            header.len(),
                            existing.len()
                        )));
                    }
                    for (arg, value) in header.iter().zip(existing) {
                        if *f.value_type(value) != arg.ty {
                            return Err(self.c.error_at(arg.start, arg.end, format!(
                                "type mismatch: block argument %{} has type {} but the function type says {}",
                                arg.name,
                                arg.ty,
                                f.value_type(value)
                            )));
                        }
                        self.bind(&arg.name, vec![value], arg.start, arg.end)?;
                    }
                }
                Some(block)
            }
        };
        loop {
            match self.c.peek()? {
                Token::RBrace => break,
                Token::Eof => return Err(self.c.expected("'}'", "to close the region")),
                Token::Caret(_) => {
                    let block = f.add_block(region);
                    for arg in self.block_header(None)? {
                        let value = f.add_block_arg(block, arg.ty.clone());
                        self.bind(&arg.name, vec![value], arg.start, arg.end)?;
                    }
                    current = Some(block);
                }
                _ => {
                    let block = match current {
                        Some(block) => block,
                        None => {
                            let block = f.add_block(region);
                            current = Some(block);
                            block
                        }
                    };
                    self.op(f, block)?;
                }
            }
        }
        self.c.next()?;
        self.pop_scope();
        Ok(())
    }

    /// `^bb0(%a: T loc(..), ...):`; the argument locations are those of function `entry_of`'s
    /// arguments when the block is its entry block.
    pub(super) fn block_header(&mut self, entry_of: Option<usize>) -> PResult<Vec<ArgDecl>> {
        self.c.next()?;
        let mut args = Vec::new();
        if self.c.eat(&Token::LParen)? && !self.c.eat(&Token::RParen)? {
            loop {
                let target = entry_of.map_or(LocTarget::Discard, |f| LocTarget::Arg(f, args.len()));
                args.push(self.arg_decl_located(target)?);
                if self.c.eat(&Token::RParen)? {
                    break;
                }
                self.c.expect(Token::Comma, "between block arguments")?;
            }
        }
        self.c.expect(Token::Colon, "after the block header")?;
        Ok(args)
    }

    /// `%name: type [loc(...)]`
    pub(crate) fn arg_decl(&mut self) -> PResult<ArgDecl> {
        self.arg_decl_located(LocTarget::Discard)
    }

    /// [`Self::arg_decl`], its location going to `target`.
    fn arg_decl_located(&mut self, target: LocTarget) -> PResult<ArgDecl> {
        let token = self.c.next()?;
        let Token::Value { name, index: None } = token.token else {
            return Err(self.c.error_at(
                token.start,
                token.end,
                format!(
                    "expected an argument like `%arg0: tensor<f32>`, found {}",
                    token.token.describe()
                ),
            ));
        };
        self.c.expect(Token::Colon, "after the argument name")?;
        let ty = self.c.ty("as the argument type")?;
        if let Some(loc) = self.c.opt_loc()? {
            self.pending.push((target, loc));
        }
        Ok(ArgDecl {
            name,
            ty,
            start: token.start,
            end: token.end,
        })
    }
}
