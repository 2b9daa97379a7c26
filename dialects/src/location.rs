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

    /// The outermost name: the FX node, as lowering writes `loc("add_1"("model.py":12:0))`.
    pub fn node_name(&self) -> Option<&str> {
        match self {
            Self::Name { name, .. } => Some(name),
            Self::Fused(locations) => locations.iter().find_map(Location::node_name),
            Self::Unknown | Self::FileLineCol { .. } => None,
        }
    }

    /// The first `file:line:col` in this location, looking through names and fused lists.
    pub fn file_line_col(&self) -> Option<(&str, u32, u32)> {
        match self {
            Self::FileLineCol { file, line, col } => Some((file.as_str(), *line, *col)),
            Self::Name { child, .. } => child.as_deref().and_then(Location::file_line_col),
            Self::Fused(locations) => locations.iter().find_map(Location::file_line_col),
            Self::Unknown => None,
        }
    }
}
