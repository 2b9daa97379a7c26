//! Ops of torch's core ATen opset that tpuc does not lower, each with why: the reason a user's
//! program that reaches one is told, and the list `docs/ops.md` prints. Everything else of
//! the core opset lowers (`testdata/core_aten.json`, checked by the `ops_doc` tests).

/// `(target, why)`, sorted by target.
pub const NOT_LOWERED: &[(&str, &str)] = &[
    (
        "torch.ops.aten._local_scalar_dense.default",
        "`Tensor.item()` makes a Python number of a tensor's value, and the program then depends on \
         that value; a compiled program's shapes and control flow cannot: keep the value a tensor",
    ),
    (
        "torch.ops.aten.nonzero.default",
        "its result's shape depends on the input's values, and a compiled program's shapes are \
         fixed: use `torch.nonzero_static(x, size=N)`, or a mask",
    ),
    (
        "torch.ops.aten.rand.default",
        "it draws from torch's random generator, whose numbers a compiled program cannot \
         reproduce: pass the random tensor as an input",
    ),
    (
        "torch.ops.aten.randn.default",
        "it draws from torch's random generator, whose numbers a compiled program cannot \
         reproduce: pass the random tensor as an input",
    ),
    (
        "torch.ops.aten.randperm.default",
        "it draws from torch's random generator, whose numbers a compiled program cannot \
         reproduce: pass the permutation as an input",
    ),
];

/// Ops of the training dialect that decompose into a listed one: `(target, listed target)`.
const SPELLED_OTHERWISE: &[(&str, &str)] = &[(
    "torch.ops.aten.item.default",
    "torch.ops.aten._local_scalar_dense.default",
)];

/// Why tpuc does not lower `target`, if it is one of the listed ops or another spelling of one.
pub fn why_not_lowered(target: &str) -> Option<&'static str> {
    let target = SPELLED_OTHERWISE
        .iter()
        .find(|(other, _)| *other == target)
        .map_or(target, |&(_, listed)| listed);
    NOT_LOWERED
        .iter()
        .find(|(listed, _)| *listed == target)
        .map(|&(_, why)| why)
}
