//! The StableHLO text parser: MLIR text of a module, in the pretty form (as StableHLO, JAX and
//! tpuc's pretty printer write it) or the generic form, into a [`Module`].
//!
//! A hand-written lexer (`lexer`) feeds a recursive-descent parser: `module` reads the top
//! level (location aliases, the module, functions, meshes), `ops` reads generic operations,
//! regions and SSA names, `custom` the ops' custom assembly forms, `attr` and `dense` read
//! attribute values, and `kind` turns an op name and its attributes into a typed
//! [`crate::OpKind`]. Locations are resolved once the whole file has been read, since JAX
//! defines most `#loc` aliases after the module (see `location` for how MLIR's location kinds
//! map onto tpuc's).
//!
//! The parser checks syntax, names and the types an op states against its operands; the
//! remaining rules are the verifier's ([`crate::verify()`]).

mod attr;
mod cursor;
mod custom;
mod dense;
mod error;
mod kind;
mod lexer;
mod location;
mod module;
#[cfg(test)]
mod nesting_tests;
mod ops;
mod spans;
mod types;

pub use cursor::MAX_NESTING;
pub use error::ParseError;
pub use spans::OpSpans;

use crate::module::Module;

/// Parses the MLIR text of one StableHLO module.
pub fn parse_module(text: &str) -> Result<Module, ParseError> {
    module::parse(text).map(|(module, _)| module)
}

/// [`parse_module`], and where each op is in `text` (for diagnostics that label an op).
pub fn parse_module_with_spans(text: &str) -> Result<(Module, OpSpans), ParseError> {
    module::parse(text)
}
