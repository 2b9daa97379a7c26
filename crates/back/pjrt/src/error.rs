//! The crate's error type.

use std::fmt;
use std::path::PathBuf;

/// Everything that can go wrong talking to a PJRT plugin.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum Error {
    /// A plugin library could not be found.
    #[error("{what} not found")]
    #[diagnostic(code(tpuc_pjrt::plugin_not_found))]
    PluginNotFound {
        what: &'static str,
        searched: Vec<PathBuf>,
        #[help]
        help: String,
    },

    /// The dynamic loader refused the library.
    #[error("cannot load PJRT plugin {}", path.display())]
    #[diagnostic(
        code(tpuc_pjrt::load),
        help(
            "the file must be a PJRT plugin (a shared library exporting GetPjrtApi) for this machine"
        )
    )]
    Load {
        path: PathBuf,
        #[source]
        source: libloading::Error,
    },

    /// The library loaded but is not a usable PJRT plugin.
    #[error("{} is not a usable PJRT plugin: {reason}", path.display())]
    #[diagnostic(code(tpuc_pjrt::bad_plugin))]
    BadPlugin { path: PathBuf, reason: String },

    /// The plugin's function table is too old to contain a function we need.
    #[error("the PJRT plugin (C API {version}) has no {function}")]
    #[diagnostic(
        code(tpuc_pjrt::plugin_too_old),
        help("install a newer plugin: scripts/setup-plugins.sh installs the pinned versions")
    )]
    Unsupported {
        function: &'static str,
        version: ApiVersion,
    },

    /// A PJRT function returned an error; `message` is the plugin's own text.
    #[error("{function} failed ({code}): {message}")]
    #[diagnostic(code(tpuc_pjrt::plugin_error))]
    Plugin {
        function: &'static str,
        code: ErrorCode,
        message: String,
    },

    /// `XLA_FLAGS` holds flags the plugin does not know; XLA would abort the process on them.
    #[error(
        "XLA_FLAGS has {} the plugin {} does not know: {}",
        if flags.len() == 1 { "a flag" } else { "flags" },
        plugin.display(),
        flags.join(", ")
    )]
    #[diagnostic(code(tpuc_pjrt::xla_flags))]
    UnknownXlaFlags {
        plugin: PathBuf,
        flags: Vec<String>,
        #[help]
        help: String,
    },

    /// `XLA_FLAGS` names a flag file (a value not starting with `-`) that cannot be read; XLA
    /// would abort the process on it.
    #[error("XLA_FLAGS names the flag file `{}`, which cannot be read: {reason}", file.display())]
    #[diagnostic(
        code(tpuc_pjrt::xla_flags),
        help(
            "XLA reads a value that does not start with `-` as the name of a file of flags; \
             write the flags themselves (`XLA_FLAGS=\"--xla_foo=1 --xla_bar=2\"`) or the path \
             of a readable file"
        )
    )]
    XlaFlagsFile { file: PathBuf, reason: String },

    /// An argument was rejected before reaching the plugin.
    #[error("{0}")]
    #[diagnostic(code(tpuc_pjrt::invalid_argument))]
    InvalidArgument(String),
}

impl Error {
    /// The plugin's message, for errors that came from the plugin.
    pub fn plugin_message(&self) -> Option<&str> {
        match self {
            Error::Plugin { message, .. } => Some(message),
            _ => None,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A PJRT C API version, `major.minor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ApiVersion {
    pub major: i32,
    pub minor: i32,
}

impl fmt::Display for ApiVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// `PJRT_Error_Code`: the absl status codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    Cancelled,
    Unknown,
    InvalidArgument,
    DeadlineExceeded,
    NotFound,
    AlreadyExists,
    PermissionDenied,
    ResourceExhausted,
    FailedPrecondition,
    Aborted,
    OutOfRange,
    Unimplemented,
    Internal,
    Unavailable,
    DataLoss,
    Unauthenticated,
    /// A code this crate does not know.
    Other(i32),
}

impl ErrorCode {
    pub(crate) fn from_raw(code: i32) -> Self {
        use ErrorCode::*;
        match code {
            1 => Cancelled,
            2 => Unknown,
            3 => InvalidArgument,
            4 => DeadlineExceeded,
            5 => NotFound,
            6 => AlreadyExists,
            7 => PermissionDenied,
            8 => ResourceExhausted,
            9 => FailedPrecondition,
            10 => Aborted,
            11 => OutOfRange,
            12 => Unimplemented,
            13 => Internal,
            14 => Unavailable,
            15 => DataLoss,
            16 => Unauthenticated,
            other => Other(other),
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            ErrorCode::Cancelled => "CANCELLED",
            ErrorCode::Unknown => "UNKNOWN",
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::DeadlineExceeded => "DEADLINE_EXCEEDED",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::AlreadyExists => "ALREADY_EXISTS",
            ErrorCode::PermissionDenied => "PERMISSION_DENIED",
            ErrorCode::ResourceExhausted => "RESOURCE_EXHAUSTED",
            ErrorCode::FailedPrecondition => "FAILED_PRECONDITION",
            ErrorCode::Aborted => "ABORTED",
            ErrorCode::OutOfRange => "OUT_OF_RANGE",
            ErrorCode::Unimplemented => "UNIMPLEMENTED",
            ErrorCode::Internal => "INTERNAL",
            ErrorCode::Unavailable => "UNAVAILABLE",
            ErrorCode::DataLoss => "DATA_LOSS",
            ErrorCode::Unauthenticated => "UNAUTHENTICATED",
            ErrorCode::Other(code) => return write!(f, "code {code}"),
        };
        f.write_str(name)
    }
}
