//! Errors of IR construction and verification.

use miette::Diagnostic;
use thiserror::Error;

use crate::verify::VerifyErrors;

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

    /// A module that breaks structural or per-op rules: every error the verifier found.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Verify(VerifyErrors),

    /// A function added to a module under a name the module already has.
    #[error("invalid module: {message}")]
    #[diagnostic(
        code(tpuc_ir::invalid_module),
        help("functions in a module need unique names")
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

    /// The human message without the op or function prefix (the first, for verifier errors).
    pub fn message(&self) -> &str {
        match self {
            Self::InvalidOp { message, .. }
            | Self::InvalidConstant { message }
            | Self::InvalidModule { message }
            | Self::Builder { message } => message,
            Self::Verify(errors) => &errors.first().message,
        }
    }
}

pub type Result<T, E = IrError> = std::result::Result<T, E>;
