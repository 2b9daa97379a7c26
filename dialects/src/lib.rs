//! StableHLO IR: types, ops, builder, verifier, printer, parser.
//!
//! A [`Module`] holds [`Function`]s; each function owns arenas of values, operations, blocks and
//! regions addressed by [`Value`], [`OpId`], [`BlockId`] and [`RegionId`]. Operations are
//! [`OpKind`] variants with typed attributes.

pub mod attr;
pub mod builder;
pub mod dense;
pub mod error;
pub mod function;
pub(crate) mod infer;
pub mod location;
pub mod module;
pub mod op;
pub mod parse;
pub mod print;
pub mod types;
pub mod verify;

pub use attr::*;
pub use builder::{CustomCallOptions, FunctionBuilder, IntoShape, RegionBody};
pub use dense::{DenseElements, ElementValue, FloatBits};
pub use error::{IrError, Result};
pub use function::{
    Block, BlockId, Function, NewOp, OpId, Operation, Region, RegionId, Value, ValueData, ValueDef,
    Visibility,
};
pub use location::Location;
pub use module::Module;
pub use op::{BinaryOp, OpKind, UnaryOp};
pub use print::{LocationStyle, PrintOptions};
pub use types::{Dim, ElementType, TensorType, Type};
pub use verify::{verify, verify_function};
