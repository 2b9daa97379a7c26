//! How diagnostics and locations name an FX node: its name, and the user's source line.

use tpuc_ir::Location;
use tpuc_pt2::schema::Node;

use crate::error::SourceLine;

pub(crate) fn source_line(node: &Node) -> Option<Box<SourceLine>> {
    node.innermost_user_frame().map(|frame| {
        Box::new(SourceLine {
            file: frame.file.to_owned(),
            line: frame.line,
            code: frame.code.map(str::to_owned),
            chain: node
                .stack_frames()
                .iter()
                .map(|f| format!("{}:{} in {}", f.file, f.line, f.function))
                .collect(),
        })
    })
}

pub(crate) fn node_name(node: &Node) -> String {
    node.display_name().unwrap_or("?").to_owned()
}

/// `loc("node"("file.py":45:0))`: the FX node wrapping the line with the op (as diagnostics
/// name it).
pub(crate) fn location(node: &Node) -> Location {
    let name = node_name(node);
    match node.innermost_user_frame() {
        Some(frame) => Location::named(name, Location::file(frame.file, frame.line, 0)),
        None => Location::name(name),
    }
}
