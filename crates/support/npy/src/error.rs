//! The crate's error: what went wrong, and in which file.

use std::path::PathBuf;

/// A `.npy` file that could not be read or written.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{}: {problem}", path.display())]
#[diagnostic(code(tpuc_npy::invalid))]
pub struct NpyError {
    /// The file, or `<bytes>` for data given in memory.
    pub path: PathBuf,
    pub problem: Problem,
    #[help]
    help: Option<String>,
}

/// What is wrong with a `.npy` file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Problem {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("not a .npy file (it does not start with \\x93NUMPY)")]
    Magic,
    #[error("unsupported .npy format version {major}.{minor}")]
    Version { major: u8, minor: u8 },
    #[error("the file ends inside its {0}")]
    Truncated(&'static str),
    #[error("the header is {len} bytes long, more than the {max} this reader accepts")]
    HeaderTooLong { len: usize, max: usize },
    #[error("malformed header at byte {offset}: {message}")]
    Header { offset: usize, message: String },
    #[error("unsupported element type {0:?}")]
    Dtype(String),
    #[error("the shape {0:?} has more elements than memory can address")]
    TooLarge(Vec<u64>),
    #[error(
        "the data is {actual} bytes long, but a {dtype} array of shape {shape:?} needs {expected}"
    )]
    DataLength {
        dtype: &'static str,
        shape: Vec<usize>,
        expected: usize,
        actual: usize,
    },
    #[error("{0}")]
    Conversion(String),
}

impl NpyError {
    pub(crate) fn new(path: impl Into<PathBuf>, problem: Problem) -> NpyError {
        let help = match &problem {
            Problem::Dtype(_) => Some(
                "supported: bool, int8/16/32/64, uint8/16/32/64, float16/32/64, complex64/128; \
                 store bfloat16 as float32"
                    .to_owned(),
            ),
            Problem::Magic | Problem::Version { .. } | Problem::Truncated(_) => {
                Some("write the file with numpy.save".to_owned())
            }
            _ => None,
        };
        NpyError {
            path: path.into(),
            problem,
            help,
        }
    }
}

pub(crate) const IN_MEMORY: &str = "<bytes>";
