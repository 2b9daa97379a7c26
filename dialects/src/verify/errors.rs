//! What the verifier reports: every broken rule as a [`VerifyError`] (the function, the op, its
//! location, what is wrong and how to fix it), all of them together as [`VerifyErrors`].

use std::fmt;
use std::sync::Arc;

use miette::{Diagnostic, LabeledSpan, NamedSource, Severity, SourceCode, SourceSpan};

use crate::function::OpId;
use crate::location::Location;
use crate::print::syntax::location_body;

/// Every error the verifier found, in the order it walked the module (never empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyErrors(Vec<VerifyError>);

/// One broken rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// The function it is in; `None` for a rule of the module (duplicate names, meshes).
    pub function: Option<String>,
    pub site: Site,
    pub location: Location,
    pub message: String,
    /// How to fix it, where the verifier knows.
    pub help: Option<String>,
    pub(super) snippet: Option<Snippet>,
    pub(super) origin: Option<Origin>,
}

/// Where in a function an error is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Site {
    /// A rule of the module as a whole.
    Module,
    /// A part of a function that is not an op: "signature", "body", "block 2", "region 3".
    Part(String),
    Op(OpRef),
}

/// An op as the verifier names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpRef {
    pub id: OpId,
    /// Position in the function's walk order (pre-order over nested regions), from 0.
    pub index: usize,
    /// The op's name, such as `stablehlo.add`.
    pub name: &'static str,
}

/// A labelled span of source text: the op in the module's text, or the user's Python line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Snippet {
    pub source: NamedSource<Arc<str>>,
    pub span: SourceSpan,
    pub label: String,
}

/// The user's code an op came from (the FX node and its `file:line`), shown as a note.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Origin {
    pub node: Option<String>,
    pub file_line: Option<(String, u32)>,
    /// The line itself, when the file could be read.
    pub snippet: Option<Snippet>,
}

const DEFAULT_HELP: &str =
    "the module was built or parsed with an inconsistency; fix the producer of this op";

impl VerifyErrors {
    pub(crate) fn new(errors: Vec<VerifyError>) -> Option<Self> {
        (!errors.is_empty()).then_some(Self(errors))
    }

    pub fn errors(&self) -> &[VerifyError] {
        &self.0
    }

    pub fn first(&self) -> &VerifyError {
        &self.0[0]
    }

    pub(super) fn errors_mut(&mut self) -> &mut [VerifyError] {
        &mut self.0
    }
}

impl VerifyError {
    pub(crate) fn in_module(message: impl Into<String>) -> Self {
        Self::new(None, Site::Module, Location::Unknown, message.into())
    }

    pub(crate) fn in_part(function: &str, part: impl Into<String>, message: String) -> Self {
        let site = Site::Part(part.into());
        Self::new(Some(function.to_owned()), site, Location::Unknown, message)
    }

    pub(crate) fn at_op(function: &str, op: OpRef, location: &Location, message: String) -> Self {
        let function = Some(function.to_owned());
        Self::new(function, Site::Op(op), location.clone(), message)
    }

    fn new(function: Option<String>, site: Site, location: Location, message: String) -> Self {
        let origin = Origin::of(&location);
        Self {
            function,
            site,
            location,
            message,
            help: None,
            snippet: None,
            origin,
        }
    }

    pub(crate) fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The op, when the error is at one.
    pub fn op(&self) -> Option<&OpRef> {
        match &self.site {
            Site::Op(op) => Some(op),
            _ => None,
        }
    }
}

impl Origin {
    fn of(location: &Location) -> Option<Self> {
        let node = location.node_name().map(str::to_owned);
        let file_line = location
            .file_line_col()
            .map(|(file, line, _)| (file.to_owned(), line));
        (node.is_some() || file_line.is_some()).then_some(Self {
            node,
            file_line,
            snippet: None,
        })
    }
}

impl fmt::Display for VerifyErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.as_slice() {
            [only] => only.fmt(f),
            [first, ..] => write!(f, "{} verifier errors, the first: {first}", self.0.len()),
            [] => unreachable!("VerifyErrors holds at least one error"),
        }
    }
}

impl std::error::Error for VerifyErrors {}

/// One error is the diagnostic itself; several are listed as its related diagnostics.
impl Diagnostic for VerifyErrors {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.first().code()
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        match self.0.as_slice() {
            [only] => only.help(),
            _ => None,
        }
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        match self.0.as_slice() {
            [only] => only.source_code(),
            _ => None,
        }
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        match self.0.as_slice() {
            [only] => only.labels(),
            _ => None,
        }
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        match self.0.as_slice() {
            [only] => only.related(),
            all => Some(Box::new(all.iter().map(|e| e as &dyn Diagnostic))),
        }
    }
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let function = self.function.as_deref().unwrap_or_default();
        match &self.site {
            Site::Module => write!(f, "invalid module: ")?,
            Site::Part(part) => write!(f, "in function `@{function}`, {part}: ")?,
            Site::Op(op) => {
                write!(
                    f,
                    "in function `@{function}`, op {} `{}`",
                    op.index, op.name
                )?;
                if !self.location.is_unknown() {
                    write!(f, " at {}", location_body(&self.location))?;
                }
                write!(f, ": ")?;
            }
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for VerifyError {}

impl Diagnostic for VerifyError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new("tpuc_ir::verify"))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.help.as_deref().unwrap_or(DEFAULT_HELP)))
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.snippet.as_ref().map(Snippet::source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.snippet.as_ref().map(Snippet::labels)
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        let origin = self.origin.as_ref()?;
        Some(Box::new(std::iter::once(origin as &dyn Diagnostic)))
    }
}

impl Snippet {
    fn source(&self) -> &dyn SourceCode {
        &self.source
    }

    fn labels(&self) -> Box<dyn Iterator<Item = LabeledSpan> + '_> {
        let label = LabeledSpan::new_with_span(Some(self.label.clone()), self.span);
        Box::new(std::iter::once(label))
    }
}

/// "from FX node `add_1` at model.py:12"
impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("from")?;
        if let Some(node) = &self.node {
            write!(f, " FX node `{node}`")?;
        }
        if let Some((file, line)) = &self.file_line {
            write!(f, " at {file}:{line}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Origin {}

impl Diagnostic for Origin {
    fn severity(&self) -> Option<Severity> {
        Some(Severity::Advice)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.snippet.as_ref().map(Snippet::source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.snippet.as_ref().map(Snippet::labels)
    }
}
