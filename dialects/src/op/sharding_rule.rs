//! Which sharding rule an op follows, as the op table declares it. The rules themselves (the
//! factors of each operand and result dimension) live with the sharding pass, which
//! dispatches on this.

/// The sharding rule an op's table entry declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShardingRuleKind {
    /// Propagation leaves the op to XLA (`sharding none`): control flow, calls, collectives.
    None,
    /// Every dimension of every operand and result is one pass-through factor.
    Elementwise,
    /// Like elementwise, with the dimension a bitcast adds or removes left out.
    Bitcast,
    /// Operand `i` and result `i` share their factors (barriers, sharding constraints).
    Pairwise,
    BroadcastInDim,
    /// Batch norm: the feature dimension ties the per-feature operands and results.
    BatchNorm,
    Reshape,
    Transpose,
    /// Slice, dynamic slice and pad: sliced dimensions need replication.
    Window,
    UpdateSlice,
    Concatenate,
    Reverse,
    DotGeneral,
    Convolution,
    Reduce,
    ReduceWindow,
    SelectAndScatter,
    Sort,
    /// `fft`: the transformed (last) dimensions need replication, the leading ones pass through.
    Fft,
    Gather,
    Scatter,
}
