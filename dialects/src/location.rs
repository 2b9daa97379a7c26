//! Source locations attached to operations and functions, as MLIR models them.

/// An MLIR location.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Location {
    /// `loc(unknown)`
    #[default]
    Unknown,
    /// `loc("model.py":12:4)`
    FileLineCol { file: String, line: u32, col: u32 },
    /// `loc("name")` or `loc("name"(child))`: a name such as the FX node, wrapping where it came from.
    Name {
        name: String,
        child: Option<Box<Location>>,
    },
    /// `loc(fused[a, b])`
    Fused(Vec<Location>),
}

impl Location {
    pub fn file(file: impl Into<String>, line: u32, col: u32) -> Self {
        Self::FileLineCol {
            file: file.into(),
            line,
            col,
        }
    }

    /// A bare name location.
    pub fn name(name: impl Into<String>) -> Self {
        Self::Name {
            name: name.into(),
            child: None,
        }
    }

    /// A name wrapping another location.
    pub fn named(name: impl Into<String>, child: Location) -> Self {
        Self::Name {
            name: name.into(),
            child: Some(Box::new(child)),
        }
    }

    pub fn is_unknown(&self) -> bool {
        matches!(self, Self::Unknown)
    }
}
