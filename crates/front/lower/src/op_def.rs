//! How an op family declares a registry entry: the target (an ATen signature or another
//! target's name) and its lowering function.

use crate::args::Args;
use crate::cx::Cx;
use crate::env::Val;
use crate::error::OpResult;

/// Lowers one node: gets its arguments, returns one value per node output (`Val::None` for
/// outputs nobody uses).
pub(crate) type LowerFn = fn(&mut Cx<'_>, &Args<'_>) -> OpResult<Vec<Val>>;

/// One registry entry as an op family declares it.
#[derive(Clone, Copy)]
pub(crate) struct OpDef {
    pub kind: DefKind,
    pub lower: LowerFn,
}

#[derive(Clone, Copy)]
pub(crate) enum DefKind {
    /// An ATen overload, by its signature.
    Aten(&'static str),
    /// Another target (`torch.ops.higher_order.cond`, `_operator.mul`), arguments by position
    /// or by the names the node gives them.
    Target(&'static str),
}

/// An ATen overload with its `native_functions.yaml` signature.
pub(crate) const fn aten(signature: &'static str, lower: LowerFn) -> OpDef {
    OpDef {
        kind: DefKind::Aten(signature),
        lower,
    }
}

/// A non-ATen target.
pub(crate) const fn target(target: &'static str, lower: LowerFn) -> OpDef {
    OpDef {
        kind: DefKind::Target(target),
        lower,
    }
}
