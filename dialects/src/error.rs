//! Errors of IR construction and verification.

use miette::Diagnostic;
use thiserror::Error;

#[derive(Clone, Debug, Error, Diagnostic, PartialEq, Eq)]
pub enum IrError {
    /// Operands or attributes that the op's spec constraints reject.
    #[error("invalid `{op}`: {message}")]
    #[diagnostic(
        code(tpuc_ir::invalid_op),
        help(
            "the StableHLO spec's constraints for `{op}` list what operand types and attributes it accepts"
        )
    )]
    InvalidOp { op: String, message: String },

    /// A dense constant whose data does not fit its type.
    #[error("invalid constant: {message}")]
    #[diagnostic(
        code(tpuc_ir::invalid_constant),
        help(
            "a dense constant holds one element (a splat) or one per element of a static shape, little-endian"
        )
    )]
    InvalidConstant { message: String },

    /// A module that breaks a structural or per-op rule.
    #[error("in function `@{function}`, {at}: {message}")]
    #[diagnostic(
        code(tpuc_ir::verify),
        help("the module was built or parsed with an inconsistency; fix the producer of this op")
    )]
    Verify {
        function: String,
        /// Which op, e.g. "op 3 `stablehlo.add`", or "signature".
        at: String,
        message: String,
    },

    /// A module-level rule broken: duplicate functions or meshes.
    #[error("invalid module: {message}")]
    #[diagnostic(
        code(tpuc_ir::invalid_module),
        help("functions and meshes need unique names; mesh axes unique names and sizes > 0")
    )]
    InvalidModule { message: String },

    /// A builder call that the builder's state does not allow.
    #[error("builder misuse: {message}")]
    #[diagnostic(code(tpuc_ir::builder))]
    Builder { message: String },
}

impl IrError {
    pub(crate) fn op(op: impl Into<String>, message: impl Into<String>) -> Self {
        Self::InvalidOp {
            op: op.into(),
            message: message.into(),
        }
    }

    pub(crate) fn constant(message: impl Into<String>) -> Self {
        Self::InvalidConstant {
            message: message.into(),
        }
    }

    pub(crate) fn builder(message: impl Into<String>) -> Self {
        Self::Builder {
            message: message.into(),
        }
    }

    /// The human message without the op or function prefix.
    pub fn message(&self) -> &str {
        match self {
            Self::InvalidOp { message, .. }
            | Self::InvalidConstant { message }
            | Self::Verify { message, .. }
            | Self::InvalidModule { message }
            | Self::Builder { message } => message,
        }
    }
}

pub type Result<T, E = IrError> = std::result::Result<T, E>;
