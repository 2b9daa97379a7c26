//! StableHLO IR: types, ops, builder, verifier, printer, parser.
//!
//! A [`Module`] holds [`Function`]s; each function owns arenas of values, operations, blocks and
//! regions addressed by [`Value`], [`OpId`], [`BlockId`] and [`RegionId`]. Operations are
//! [`OpKind`] variants with typed attributes.

/// An enum whose variants each have one text form: `ALL`, the text of a variant (`$text`) and
/// the variant of a text (`$from`).
macro_rules! text_enum {
    ($text:ident / $from:ident, $text_doc:literal;
     $(#[$meta:meta])* $name:ident { $($variant:ident => $spelling:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($variant),+ }

        impl $name {
            pub const ALL: &'static [$name] = &[$(Self::$variant),+];

            #[doc = $text_doc]
            pub fn $text(self) -> &'static str {
                match self { $(Self::$variant => $spelling),+ }
            }

            pub fn $from(text: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.$text() == text)
            }
        }
    };
}
pub(crate) use text_enum;

pub mod attr;
pub mod broadcast;
pub mod builder;
pub mod dense;
pub mod error;
pub mod fold;
pub mod function;
pub(crate) mod infer;
pub mod legalize;
pub mod location;
pub mod module;
pub mod op;
pub mod parse;
pub mod print;
pub mod program;
pub mod size_limit;
pub mod types;
pub mod verify;

pub use attr::*;
pub use builder::{Builder, CustomCallOptions, FunctionBuilder, IntoShape, OpBuilder, RegionBody};
pub use dense::{DenseElements, ElementValue, FloatBits};
pub use error::{IrError, Result};
pub use fold::{FOLD_ELEMENT_LIMIT, FoldOperand, Folded};
pub use function::{
    Block, BlockId, Function, InsertPoint, NewOp, OpId, Operation, Region, RegionId, Use, Value,
    ValueData, ValueDef, Visibility,
};
pub use location::Location;
pub use module::Module;
pub use op::{
    Arity, BinaryOp, BroadcastBinary, ChloBinaryOp, ChloBroadcastOp, ChloUnaryOp, FoldKind, OpKind,
    Opcode, ShardingRuleKind, Syntax, UnaryOp, attr_name,
};
pub use print::{LocationStyle, PrintOptions};
pub use program::{ArgumentRole, CheckKind, Interface, InterfaceError, Program, ResultRole};
pub use types::{Dim, ElementType, TensorType, Type};
pub use verify::{VerifyError, VerifyErrors, verify, verify_function};
