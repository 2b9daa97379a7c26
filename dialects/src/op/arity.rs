//! How many operands or results an op takes, as its table entry declares.

use std::fmt;

/// A count of operands or of results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arity {
    Exactly(usize),
    /// At least this many (`(at least N)` in the table).
    AtLeast(usize),
    /// Any number (`variadic` in the table).
    Variadic,
}

impl Arity {
    pub fn admits(self, count: usize) -> bool {
        match self {
            Self::Exactly(n) => count == n,
            Self::AtLeast(n) => count >= n,
            Self::Variadic => true,
        }
    }
}

impl fmt::Display for Arity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Exactly(n) => write!(f, "{n}"),
            Self::AtLeast(n) => write!(f, "at least {n}"),
            Self::Variadic => f.write_str("any number of"),
        }
    }
}

/// That `count` operands fit `arity`; the error reads like the verifier's other messages.
pub(crate) fn check_operands(arity: Arity, count: usize) -> Result<(), String> {
    if arity.admits(count) {
        Ok(())
    } else {
        Err(format!("expects {arity} operand(s), got {count}"))
    }
}

/// That `count` results fit `arity`.
pub(crate) fn check_results(arity: Arity, count: usize) -> Result<(), String> {
    if arity.admits(count) {
        Ok(())
    } else {
        Err(format!("has {count} result(s), expected {arity}"))
    }
}
