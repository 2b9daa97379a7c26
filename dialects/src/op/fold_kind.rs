//! Which fold an op has, as the op table declares it; `crate::fold` dispatches on it.

/// The fold an op's table entry declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FoldKind {
    /// The op is never folded (`fold none`).
    None,
    /// To an operand of the result's type (an identity), never to a new constant.
    Identity,
    /// Element by element: identities (`x * 1`) and constant operands evaluated.
    Elementwise,
    /// Identities, and constant operands whose elements move without being computed.
    Layout,
}
