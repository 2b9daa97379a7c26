//! What one argument or result of `main` is.

/// What one argument of `main` binds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgumentRole {
    /// The user's input at `index` among the program's inputs (non-tensor inputs count too).
    Input { index: usize, name: String },
    /// A trained weight, by fully qualified name.
    Parameter { fqn: String },
    /// Module state that is not trained (running statistics, a KV cache).
    Buffer { fqn: String, persistent: bool },
    /// A tensor constant the program captured.
    Constant { fqn: String },
    /// An optimizer's state for parameter `fqn` (`slot`: `momentum`, `exp_avg`, `step`, ...).
    OptimizerState { fqn: String, slot: String },
}

/// What one result of `main` is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResultRole {
    /// The program's output at `index`.
    Output { index: usize },
    /// The new value of the buffer `fqn` (the argument of that name).
    BufferMutation { fqn: String },
    /// The new value of the user input `name` (the argument of that name).
    InputMutation { name: String },
    /// The scalar loss of a training step.
    Loss,
    /// The gradient of parameter `fqn`.
    Gradient { fqn: String },
    /// The new value of parameter `fqn` after an optimizer step (the argument of that name).
    ParameterUpdate { fqn: String },
    /// The new optimizer state `slot` of parameter `fqn`.
    OptimizerState { fqn: String, slot: String },
    /// `--debug` checks of node `node` (`kind` says which), see [`CheckKind`].
    Check {
        kind: CheckKind,
        node: String,
        target: String,
        /// `file:line: code` of the user's line, when the node records it.
        source_line: Option<String>,
    },
}

/// A `--debug` check's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckKind {
    /// `[count, value]` (int64): how many indices fall outside `[low, high)`, and one of them.
    Index { low: i64, high: i64 },
    /// `[NaNs, +infs, -infs, first]` (int64) of the node's output `output`, a tensor of
    /// `shape`: how many elements are NaN, `+inf`, `-inf`, and the row-major position of the
    /// first non-finite one.
    NonFinite { output: usize, shape: Vec<i64> },
}

impl ArgumentRole {
    /// The role's name in `tpuc.role` and in cache manifests.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Input { .. } => "input",
            Self::Parameter { .. } => "parameter",
            Self::Buffer { .. } => "buffer",
            Self::Constant { .. } => "constant",
            Self::OptimizerState { .. } => "optimizer_state",
        }
    }

    /// The name the argument is bound by: a weight's FQN or a user input's name.
    pub fn name(&self) -> &str {
        match self {
            Self::Input { name, .. } => name,
            Self::Parameter { fqn }
            | Self::Buffer { fqn, .. }
            | Self::Constant { fqn }
            | Self::OptimizerState { fqn, .. } => fqn,
        }
    }

    /// Whether the runtime binds it from the program's weights rather than the caller's inputs.
    pub fn is_weight(&self) -> bool {
        matches!(
            self,
            Self::Parameter { .. } | Self::Buffer { .. } | Self::Constant { .. }
        )
    }
}

impl ResultRole {
    /// The role's name in `tpuc.role` and in cache manifests.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Output { .. } => "output",
            Self::BufferMutation { .. } => "buffer_mutation",
            Self::InputMutation { .. } => "input_mutation",
            Self::Loss => "loss",
            Self::Gradient { .. } => "gradient",
            Self::ParameterUpdate { .. } => "parameter_update",
            Self::OptimizerState { .. } => "optimizer_state",
            Self::Check {
                kind: CheckKind::Index { .. },
                ..
            } => "index_check",
            Self::Check {
                kind: CheckKind::NonFinite { .. },
                ..
            } => "nan_check",
        }
    }

    /// What the result is named by: the FQN or name it updates, a check's node; `None` for
    /// outputs and the loss.
    pub fn name(&self) -> Option<&str> {
        match self {
            Self::Output { .. } | Self::Loss => None,
            Self::BufferMutation { fqn }
            | Self::Gradient { fqn }
            | Self::ParameterUpdate { fqn }
            | Self::OptimizerState { fqn, .. } => Some(fqn),
            Self::InputMutation { name } | Self::Check { node: name, .. } => Some(name),
        }
    }
}
