//! Symbolic dimension expressions: torch stores them as sympy `srepr` text
//! (`Mul(Integer(2), Symbol('s77', positive=True, integer=True))`). [`SymExpr::parse`] reads that
//! text (and the infix form [`SymExpr`]'s `Display` prints) with a small grammar; nothing is ever
//! executed. [`SymExpr::eval`] computes a value for given symbol values with checked arithmetic.

mod display;
mod eval;
mod parse;
#[cfg(test)]
mod tests;

use std::collections::BTreeSet;

use miette::Diagnostic;
use thiserror::Error;

use crate::quote::quoted;

/// Maximum nesting depth of a parsed expression; deeper input is rejected.
pub const MAX_DEPTH: usize = 128;

/// An integer (or boolean, for guards) expression over named symbols.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SymExpr {
    /// An integer literal.
    Int(i64),
    /// `numerator/denominator`, reduced, denominator > 1.
    Rational(i64, i64),
    /// `True`/`False` (guards).
    Bool(bool),
    /// A shape symbol such as `s77`.
    Symbol(String),
    /// Sum of the terms.
    Add(Vec<SymExpr>),
    /// Product of the factors.
    Mul(Vec<SymExpr>),
    /// `base**exponent`; the exponent must evaluate to an integer.
    Pow(Box<SymExpr>, Box<SymExpr>),
    /// Python `//` (rounds towards negative infinity); also sympy's `CleanDiv`.
    FloorDiv(Box<SymExpr>, Box<SymExpr>),
    /// Division rounding towards positive infinity.
    CeilDiv(Box<SymExpr>, Box<SymExpr>),
    /// Python `%` (result has the divisor's sign); sympy `Mod` and torch `PythonMod`.
    Mod(Box<SymExpr>, Box<SymExpr>),
    /// `(a // b) % c`.
    ModularIndexing(Box<SymExpr>, Box<SymExpr>, Box<SymExpr>),
    /// Largest argument.
    Max(Vec<SymExpr>),
    /// Smallest argument.
    Min(Vec<SymExpr>),
    /// A comparison, 1 when true and 0 when false.
    Compare(CompareOp, Box<SymExpr>, Box<SymExpr>),
    /// Logical and of the arguments.
    And(Vec<SymExpr>),
    /// Logical or of the arguments.
    Or(Vec<SymExpr>),
    /// Logical negation.
    Not(Box<SymExpr>),
    /// `Where(condition, if_true, if_false)`.
    Where(Box<SymExpr>, Box<SymExpr>, Box<SymExpr>),
}

/// The comparison of a [`SymExpr::Compare`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CompareOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl SymExpr {
    /// Parses sympy `srepr` text or the infix form printed by `Display`.
    pub fn parse(text: &str) -> Result<SymExpr, SymError> {
        parse::parse(text)
    }

    /// The names of the symbols the expression uses, sorted.
    pub fn free_symbols(&self) -> BTreeSet<&str> {
        let mut symbols = BTreeSet::new();
        self.visit(&mut |expr| {
            if let SymExpr::Symbol(name) = expr {
                symbols.insert(name.as_str());
            }
        });
        symbols
    }

    /// The symbol's name if the expression is a plain symbol.
    pub fn as_symbol(&self) -> Option<&str> {
        match self {
            SymExpr::Symbol(name) => Some(name),
            _ => None,
        }
    }

    /// Calls `f` on this expression and every subexpression, parents first.
    pub fn visit<'a>(&'a self, f: &mut impl FnMut(&'a SymExpr)) {
        f(self);
        for child in self.children() {
            child.visit(f);
        }
    }

    fn children(&self) -> Vec<&SymExpr> {
        match self {
            SymExpr::Int(_) | SymExpr::Rational(..) | SymExpr::Bool(_) | SymExpr::Symbol(_) => {
                Vec::new()
            }
            SymExpr::Add(args)
            | SymExpr::Mul(args)
            | SymExpr::Max(args)
            | SymExpr::Min(args)
            | SymExpr::And(args)
            | SymExpr::Or(args) => args.iter().collect(),
            SymExpr::Pow(a, b)
            | SymExpr::FloorDiv(a, b)
            | SymExpr::CeilDiv(a, b)
            | SymExpr::Mod(a, b)
            | SymExpr::Compare(_, a, b) => vec![a, b],
            SymExpr::Not(a) => vec![a],
            SymExpr::ModularIndexing(a, b, c) | SymExpr::Where(a, b, c) => vec![a, b, c],
        }
    }
}

impl serde::Serialize for SymExpr {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Why a symbolic expression could not be parsed or evaluated.
#[derive(Clone, Debug, PartialEq, Eq, Error, Diagnostic)]
pub enum SymError {
    #[error("cannot parse symbolic expression `{}` at byte {offset}: {message}", quoted(.text))]
    #[diagnostic(
        code(tpuc::pt2::sym::parse),
        help(
            "the expression should be sympy `srepr` text as torch.export writes it; the archive may be damaged"
        )
    )]
    Parse {
        text: String,
        offset: usize,
        message: String,
    },
    #[error("symbolic expression nests deeper than {MAX_DEPTH} levels")]
    #[diagnostic(
        code(tpuc::pt2::sym::too_deep),
        help("torch does not write expressions this deep; the archive may be damaged or hostile")
    )]
    TooDeep,
    #[error("unsupported function `{}` in symbolic expression", quoted(.name))]
    #[diagnostic(
        code(tpuc::pt2::sym::unsupported),
        help(
            "tpuc understands integer shape arithmetic (Add, Mul, Pow, FloorDiv, CeilDiv, Mod, Max, Min, comparisons); re-export with simpler dynamic shapes"
        )
    )]
    Unsupported { name: String },
    #[error("`{}` takes {expected} argument(s), got {got}", quoted(.name))]
    #[diagnostic(code(tpuc::pt2::sym::arity), help("the archive may be damaged"))]
    Arity {
        name: String,
        expected: &'static str,
        got: usize,
    },
    #[error("no value given for symbol `{}`", quoted(.0))]
    #[diagnostic(
        code(tpuc::pt2::sym::unbound),
        help("give a value for every symbol of the expression")
    )]
    Unbound(String),
    #[error("integer overflow while evaluating `{}`", quoted(.0))]
    #[diagnostic(
        code(tpuc::pt2::sym::overflow),
        help("the symbol values are too large for 64-bit shape arithmetic")
    )]
    Overflow(String),
    #[error("division by zero while evaluating `{}`", quoted(.0))]
    #[diagnostic(
        code(tpuc::pt2::sym::division_by_zero),
        help("check the symbol values against the range constraints")
    )]
    DivisionByZero(String),
    #[error("`{}` does not evaluate to an integer", quoted(.0))]
    #[diagnostic(
        code(tpuc::pt2::sym::not_integer),
        help("check the symbol values against the range constraints")
    )]
    NotInteger(String),
    #[error("unknown SymInt kind `{}`", quoted(.0))]
    #[diagnostic(
        code(tpuc::pt2::sym::unknown_kind),
        help("the archive uses a newer schema than this tpuc understands; upgrade tpuc")
    )]
    UnknownSymIntKind(String),
}
