//! Lowering diagnostics. Ops report an [`OpError`]; the walker wraps it into a [`LowerError`]
//! that names the node, its target and the user's source line.

use miette::Diagnostic;
use thiserror::Error;

/// Where a node came from in the user's code: the innermost frame of its stack trace outside
/// torch (the line with the op), and the whole call chain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceLine {
    pub file: String,
    pub line: u32,
    pub code: Option<String>,
    /// Every frame of the stack trace, outermost (the model's `forward`) first, each as
    /// `file:line in function`.
    pub chain: Vec<String>,
}

impl std::fmt::Display for SourceLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if let Some(code) = &self.code {
            write!(f, ": `{code}`")?;
        }
        Ok(())
    }
}

/// ` at file:line: code`, or nothing without a source.
fn at(source: &Option<Box<SourceLine>>) -> String {
    located(" at", source)
}

/// `, first at file:line: code`, or nothing.
fn first_at(source: &Option<Box<SourceLine>>) -> String {
    located(", first at", source)
}

fn located(prefix: &str, source: &Option<Box<SourceLine>>) -> String {
    source
        .as_ref()
        .map(|s| format!("{prefix} {s}"))
        .unwrap_or_default()
}

/// `: why` for an op tpuc does not lower on purpose, ` yet` for the others.
fn why_not(target: &str) -> String {
    crate::not_lowered::why_not_lowered(target)
        .map(|why| format!(": {why}"))
        .unwrap_or_else(|| " yet".to_owned())
}

/// How many node names a grouped diagnostic lists before `and N more`.
const LISTED_NODES: usize = 5;

/// `` `a`, `b`, `c` `` or `` `a`, ..., `e` and 9 more ``.
fn node_list(nodes: &[String]) -> String {
    let listed: Vec<String> = nodes
        .iter()
        .take(LISTED_NODES)
        .map(|node| format!("`{node}`"))
        .collect();
    let mut text = listed.join(", ");
    if nodes.len() > LISTED_NODES {
        text.push_str(&format!(" and {} more", nodes.len() - LISTED_NODES));
    }
    text
}

/// Why a program could not be lowered.
#[derive(Debug, Error, Diagnostic)]
#[non_exhaustive]
pub enum LowerError {
    #[error("tpuc does not lower `{target}` (node `{node}`{}){}", at(.source_line), why_not(.target))]
    #[diagnostic(
        code(tpuc::lower::unsupported_op),
        help(
            "see docs/ops.md for the supported ops; `--keep-going` lists every unsupported op of the model"
        )
    )]
    UnsupportedOp {
        target: String,
        node: String,
        source_line: Option<Box<SourceLine>>,
    },

    #[error("cannot lower node `{node}` (`{target}`{}): {message}", at(.source_line))]
    #[diagnostic(code(tpuc::lower::node))]
    Node {
        target: String,
        node: String,
        source_line: Option<Box<SourceLine>>,
        message: String,
        #[help]
        help: Option<String>,
    },

    /// `--keep-going`: the nodes of one target tpuc does not lower (more than one).
    #[error(
        "tpuc does not lower `{target}` yet: {} node(s): {}{}",
        .nodes.len(),
        node_list(.nodes),
        first_at(.source_line)
    )]
    #[diagnostic(
        code(tpuc::lower::unsupported_op),
        help("see docs/ops.md for the supported ops")
    )]
    UnsupportedOps {
        target: String,
        /// Every node with the target, in graph order.
        nodes: Vec<String>,
        /// The first node's source.
        source_line: Option<Box<SourceLine>>,
    },

    #[error("{} ops of the model cannot be lowered", .errors.len())]
    #[diagnostic(code(tpuc::lower::many), help("see docs/ops.md for the supported ops"))]
    Many {
        #[related]
        errors: Vec<LowerError>,
    },

    /// torch recorded a type for a node's output that the node's op does not compute, and
    /// the program's outputs depend on it.
    #[error("the archive disagrees with itself: {message}")]
    #[diagnostic(code(tpuc::lower::inconsistent_archive))]
    InconsistentArchive {
        /// The node and its source, for machine-readable errors (the message names both).
        node: String,
        source_line: Option<Box<SourceLine>>,
        message: String,
        #[help]
        help: String,
    },

    #[error("{message}")]
    #[diagnostic(code(tpuc::lower::shape))]
    Shape {
        message: String,
        #[help]
        help: Option<String>,
    },

    #[error("unsupported program: {message}")]
    #[diagnostic(code(tpuc::lower::program))]
    Program {
        message: String,
        #[help]
        help: Option<String>,
    },

    #[error(transparent)]
    #[diagnostic(transparent)]
    Archive(#[from] tpuc_pt2::Pt2Error),

    #[error("internal error: the lowered module is invalid: {0}")]
    #[diagnostic(
        code(tpuc::lower::internal),
        help("this is a bug in tpuc; please report it with the model")
    )]
    Ir(#[from] tpuc_ir::IrError),

    #[error("internal error: the lowered program's interface is invalid: {0}")]
    #[diagnostic(
        code(tpuc::lower::interface),
        help("this is a bug in tpuc; please report it with the model")
    )]
    Interface(#[from] tpuc_ir::InterfaceError),
}

/// An op lowering's failure, before the walker adds where it happened.
#[derive(Debug)]
pub(crate) struct OpError {
    pub message: String,
    pub help: Option<String>,
    /// The node's target is not supported (an unsupported argument combination, a missing op).
    pub unsupported: bool,
    /// A failure inside a subgraph, already placed.
    pub nested: Option<Box<LowerError>>,
}

impl OpError {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            help: None,
            unsupported: false,
            nested: None,
        }
    }

    /// An argument combination tpuc does not lower yet.
    pub fn unsupported(message: impl Into<String>) -> Self {
        Self {
            unsupported: true,
            ..Self::new(message)
        }
    }

    pub fn nested(error: LowerError) -> Self {
        Self {
            nested: Some(Box::new(error)),
            ..Self::new(String::new())
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

impl From<tpuc_ir::IrError> for OpError {
    fn from(error: tpuc_ir::IrError) -> Self {
        OpError::new(format!("internal: {error}"))
            .with_help("this is a bug in tpuc's lowering; please report it with the model")
    }
}

pub(crate) type OpResult<T> = Result<T, OpError>;

/// Returns an [`OpError`] with a formatted message.
macro_rules! bail {
    ($($arg:tt)*) => {
        return Err($crate::error::OpError::new(format!($($arg)*)))
    };
}
pub(crate) use bail;

impl LowerError {
    /// The node this error is about and where it came from, if it is about one node.
    pub fn site(&self) -> Option<(&str, Option<&SourceLine>)> {
        match self {
            LowerError::UnsupportedOp {
                node, source_line, ..
            }
            | LowerError::Node {
                node, source_line, ..
            }
            | LowerError::InconsistentArchive {
                node, source_line, ..
            } => Some((node, source_line.as_deref())),
            LowerError::UnsupportedOps {
                nodes, source_line, ..
            } => nodes
                .first()
                .map(|node| (node.as_str(), source_line.as_deref())),
            _ => None,
        }
    }
}

/// `--keep-going`'s problems with one diagnostic per unsupported target (with every node that
/// has it) in order of first appearance; other problems as they are.
pub(crate) fn group_unsupported(errors: Vec<LowerError>) -> Vec<LowerError> {
    let mut grouped: Vec<LowerError> = Vec::new();
    for error in errors {
        let LowerError::UnsupportedOp {
            target,
            node,
            source_line,
        } = error
        else {
            grouped.push(error);
            continue;
        };
        let existing = grouped.iter_mut().find_map(|e| match e {
            LowerError::UnsupportedOps {
                target: t, nodes, ..
            } if *t == target => Some(nodes),
            _ => None,
        });
        match existing {
            Some(nodes) => nodes.push(node),
            None => grouped.push(LowerError::UnsupportedOps {
                target,
                nodes: vec![node],
                source_line,
            }),
        }
    }
    grouped
        .into_iter()
        .map(|error| match error {
            LowerError::UnsupportedOps {
                target,
                mut nodes,
                source_line,
            } if nodes.len() == 1 => LowerError::UnsupportedOp {
                target,
                node: nodes.remove(0),
                source_line,
            },
            other => other,
        })
        .collect()
}
