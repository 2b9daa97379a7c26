//! How `main`'s arguments and results map to the program's weights, inputs and outputs.

use tpuc_pt2::DType;

/// Where one `main` argument comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgumentSource {
    Parameter { fqn: String },
    Buffer { fqn: String, persistent: bool },
    Constant { fqn: String },
    UserInput { index: usize, name: String },
}

/// One `main` argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgumentBinding {
    pub source: ArgumentSource,
    /// The torch dtype (bf16 stays bf16).
    pub dtype: DType,
    /// Static, after specialisation.
    pub shape: Vec<i64>,
}

/// What one `main` result is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResultSource {
    UserOutput {
        index: usize,
    },
    BufferMutation {
        fqn: String,
    },
    UserInputMutation {
        name: String,
    },
    /// `--debug`: `[count, value]` (int64) — how many indices of node `node` fall outside
    /// `[low, high)`, and one of them.
    IndexCheck {
        node: String,
        target: String,
        /// `file:line: code` of the user's line, when the node records it.
        source_line: Option<String>,
        low: i64,
        high: i64,
    },
    /// `--debug=nan`: `[NaNs, +infs, -infs, first]` (int64) of output `output` (a tensor of
    /// `shape`) of node `node`: how many elements are NaN, `+inf`, `-inf`, and the row-major
    /// position of the first non-finite one.
    NonFiniteCheck {
        node: String,
        target: String,
        /// `file:line: code` of the user's line, when the node records it.
        source_line: Option<String>,
        output: usize,
        shape: Vec<i64>,
    },
}

/// One `main` result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultBinding {
    pub source: ResultSource,
    pub dtype: DType,
    pub shape: Vec<i64>,
}

/// The argument attribute of `main` that names what the argument binds: a parameter's, buffer's
/// or constant's FQN, or a user input's name (`{jax.arg_info = "fc1.weight"}`), the attribute
/// JAX gives the arguments of the modules it lowers.
pub const ARG_INFO: &str = "jax.arg_info";
