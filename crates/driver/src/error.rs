//! The driver's diagnostics.

use std::path::PathBuf;

/// Everything that stops a `lower` or `run`.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[non_exhaustive]
pub enum DriverError {
    #[error(transparent)]
    #[diagnostic(transparent)]
    Archive(#[from] tpuc_pt2::Pt2Error),

    #[error(transparent)]
    #[diagnostic(transparent)]
    Lower(Box<tpuc_lower::LowerError>),

    #[error(transparent)]
    #[diagnostic(transparent)]
    Npy(#[from] tpuc_npy::NpyError),

    #[error(transparent)]
    #[diagnostic(transparent)]
    MlirParse(Box<MlirParseError>),

    /// A `.mlir` module that does not verify (every problem, each under its op's line).
    #[error(transparent)]
    #[diagnostic(transparent)]
    Module(Box<tpuc_ir::IrError>),

    /// A pass of the middle end refused the program.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Pass(Box<tpuc_passes::PassError>),

    /// A module whose `main` attributes do not spell an interface that fits it.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Interface(#[from] tpuc_ir::InterfaceError),

    /// A PJRT call failed; `stage` says what the driver was doing.
    #[error("{stage} failed: {source}")]
    #[diagnostic(code(tpuc::plugin))]
    Pjrt {
        stage: &'static str,
        #[source]
        source: tpuc_pjrt::Error,
        #[help]
        help: Option<String>,
    },

    /// The plugin cannot be set up as the environment asks (`XLA_FLAGS` it does not know):
    /// the plugin's diagnostic as it is, since it says everything.
    #[error(transparent)]
    #[diagnostic(transparent)]
    PluginSetup(Box<tpuc_pjrt::Error>),

    /// The number of input files does not match the program's user inputs.
    #[error("{model} takes {expected} input(s) ({names}), but {given} were given")]
    #[diagnostic(
        code(tpuc::input_count),
        help("pass one --input FILE.npy per user input, in positional order")
    )]
    InputCount {
        model: String,
        expected: usize,
        names: String,
        given: usize,
    },

    /// An input array does not fit the program's input.
    #[error(transparent)]
    #[diagnostic(transparent)]
    InputMismatch(Box<InputMismatch>),

    /// `--debug`: a node indexed outside a tensor (compiled code would have clamped it).
    #[error("index {value} is out of range [{low}, {high}) in node `{node}` (`{target}`){at}")]
    #[diagnostic(
        code(tpuc::debug::index_out_of_range),
        help(
            "{count} index value(s) of this node are out of range; PyTorch raises here. Check the inputs that feed it (e.g. token ids against the vocabulary size)"
        )
    )]
    IndexOutOfRange {
        node: String,
        target: String,
        /// ` at file:line: code`, or empty.
        at: String,
        value: i64,
        count: i64,
        low: i64,
        high: i64,
    },

    /// `--debug=nan`: a node's output holds NaN or an infinity.
    #[error(transparent)]
    #[diagnostic(transparent)]
    NonFinite(Box<NonFinite>),

    /// A value the driver cannot represent or pass on.
    #[error("{0}")]
    #[diagnostic(code(tpuc::unsupported))]
    Unsupported(String),

    /// A dimension, bucket list or shape that does not fit the program.
    #[error("{message}")]
    #[diagnostic(code(tpuc::shape))]
    Shape {
        message: String,
        #[help]
        help: Option<String>,
    },

    /// A sharded program whose mesh or shardings cannot be placed on the devices.
    #[error("{message}")]
    #[diagnostic(code(tpuc::placement))]
    Placement {
        message: String,
        #[help]
        help: Option<String>,
    },

    /// The program returned something other than its bindings promise.
    #[error("the executable returned {found} results, but the module declares {expected}")]
    #[diagnostic(code(tpuc::internal))]
    ResultCount { expected: usize, found: usize },

    #[error("cannot write {}: {source}", path.display())]
    #[diagnostic(
        code(tpuc::write),
        help("check that the directory exists and is writable")
    )]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// A `.mlir` file that does not parse, shown under its line.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{path}:{}:{}: {}", error.line, error.column, error.message)]
#[diagnostic(code(tpuc::mlir_parse))]
pub struct MlirParseError {
    pub path: String,
    pub error: tpuc_ir::parse::ParseError,
    #[source_code]
    pub text: miette::NamedSource<String>,
    #[label("here")]
    pub span: miette::SourceSpan,
    #[help]
    pub help: Option<String>,
}

/// An input array whose dtype or shape does not fit the program's input.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("input {index} (`{name}`, from {origin}): expected {expected}, got {found}")]
#[diagnostic(code(tpuc::input_mismatch))]
pub struct InputMismatch {
    pub index: usize,
    pub name: String,
    pub origin: String,
    pub expected: String,
    pub found: String,
    #[help]
    pub help: Option<String>,
}

/// `--debug=nan`: the first node, in graph order, whose output holds NaN or an infinity.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error(
    "node `{node}` (`{target}`){at} gives {value} at {position} of its output {output} (shape {shape})"
)]
#[diagnostic(
    code(tpuc::debug::non_finite),
    help(
        "the output holds {nans} NaN, {pos} +inf and {neg} -inf values; this is the first node whose output is not finite, so its inputs are finite: check the op's domain (log or sqrt of a negative, 0/0, overflow) for these inputs"
    )
)]
pub struct NonFinite {
    pub node: String,
    pub target: String,
    /// ` at file:line: code`, or empty.
    pub at: String,
    pub value: &'static str,
    pub output: usize,
    pub position: String,
    pub shape: String,
    pub nans: i64,
    pub pos: i64,
    pub neg: i64,
}

impl From<tpuc_lower::LowerError> for DriverError {
    fn from(error: tpuc_lower::LowerError) -> Self {
        DriverError::Lower(Box::new(error))
    }
}

impl From<tpuc_passes::PassError> for DriverError {
    fn from(error: tpuc_passes::PassError) -> Self {
        DriverError::Pass(Box::new(error))
    }
}

impl From<InputMismatch> for DriverError {
    fn from(mismatch: InputMismatch) -> Self {
        DriverError::InputMismatch(Box::new(mismatch))
    }
}

impl DriverError {
    /// Wraps a PJRT error of `stage`, for `map_err`.
    pub(crate) fn pjrt(stage: &'static str) -> impl FnOnce(tpuc_pjrt::Error) -> DriverError {
        move |source| {
            let help = match &source {
                tpuc_pjrt::Error::PluginNotFound { help, .. } => Some(help.clone()),
                tpuc_pjrt::Error::UnknownXlaFlags { .. }
                | tpuc_pjrt::Error::XlaFlagsFile { .. } => {
                    return DriverError::PluginSetup(Box::new(source));
                }
                _ => None,
            };
            DriverError::Pjrt {
                stage,
                source,
                help,
            }
        }
    }
}

pub type Result<T, E = DriverError> = std::result::Result<T, E>;
