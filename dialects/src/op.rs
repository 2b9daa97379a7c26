//! The operations: one enum variant per op, each carrying its typed attributes.

use crate::attr::{
    ChannelHandle, CollectiveAttrs, ComparisonDirection, ComparisonType, ConvAttrs,
    CustomCallApiVersion, DotDims, GatherDims, NamedAttrs, PrecisionConfig, RngAlgorithm,
    ScatterDims, TensorSharding, WindowAttrs,
};
use crate::dense::DenseElements;

macro_rules! op_enum {
    ($($enum:tt)*) => {
        crate::text_enum!(name / from_name, "The full op name, e.g. `stablehlo.add`."; $($enum)*);
    };
}

op_enum!(
    /// Elementwise ops of one operand.
    UnaryOp {
        Abs => "stablehlo.abs",
        Cbrt => "stablehlo.cbrt",
        Ceil => "stablehlo.ceil",
        CountLeadingZeros => "stablehlo.count_leading_zeros",
        Cosine => "stablehlo.cosine",
        Exponential => "stablehlo.exponential",
        ExponentialMinusOne => "stablehlo.exponential_minus_one",
        Floor => "stablehlo.floor",
        Imag => "stablehlo.imag",
        IsFinite => "stablehlo.is_finite",
        Log => "stablehlo.log",
        LogPlusOne => "stablehlo.log_plus_one",
        Logistic => "stablehlo.logistic",
        Negate => "stablehlo.negate",
        Not => "stablehlo.not",
        Popcnt => "stablehlo.popcnt",
        Real => "stablehlo.real",
        RoundNearestAfz => "stablehlo.round_nearest_afz",
        RoundNearestEven => "stablehlo.round_nearest_even",
        Rsqrt => "stablehlo.rsqrt",
        Sign => "stablehlo.sign",
        Sine => "stablehlo.sine",
        Sqrt => "stablehlo.sqrt",
        Tan => "stablehlo.tan",
        Tanh => "stablehlo.tanh",
    }
);

op_enum!(
    /// Elementwise ops of two operands.
    BinaryOp {
        Add => "stablehlo.add",
        And => "stablehlo.and",
        Atan2 => "stablehlo.atan2",
        Complex => "stablehlo.complex",
        Divide => "stablehlo.divide",
        Maximum => "stablehlo.maximum",
        Minimum => "stablehlo.minimum",
        Multiply => "stablehlo.multiply",
        Or => "stablehlo.or",
        Power => "stablehlo.power",
        Remainder => "stablehlo.remainder",
        ShiftLeft => "stablehlo.shift_left",
        ShiftRightArithmetic => "stablehlo.shift_right_arithmetic",
        ShiftRightLogical => "stablehlo.shift_right_logical",
        Subtract => "stablehlo.subtract",
        Xor => "stablehlo.xor",
    }
);

impl BinaryOp {
    /// Ops that StableHLO marks commutative (eligible for the compact `reduce` form).
    pub fn is_commutative(self) -> bool {
        matches!(
            self,
            Self::Add
                | Self::And
                | Self::Maximum
                | Self::Minimum
                | Self::Multiply
                | Self::Or
                | Self::Xor
        )
    }
}

/// An operation and its typed attributes. Operands, results and regions live in
/// [`crate::Operation`]; the comment on each variant gives their layout.
#[derive(Clone, Debug, PartialEq)]
pub enum OpKind {
    /// (operand) -> result
    Unary(UnaryOp),
    /// (lhs, rhs) -> result
    Binary(BinaryOp),
    /// (lhs, rhs) -> i1 result
    Compare {
        direction: ComparisonDirection,
        compare_type: Option<ComparisonType>,
    },
    /// (pred, on_true, on_false)
    Select,
    /// (min, operand, max)
    Clamp,
    Convert,
    BitcastConvert,
    /// () -> result; the data's shape and element type are the result type's.
    Constant(DenseElements),
    Iota {
        dimension: i64,
    },
    BroadcastInDim {
        dims: Vec<i64>,
    },
    Reshape,
    Transpose {
        permutation: Vec<i64>,
    },
    Slice {
        start: Vec<i64>,
        limit: Vec<i64>,
        strides: Vec<i64>,
    },
    /// (operand, start_indices...)
    DynamicSlice {
        sizes: Vec<i64>,
    },
    /// (operand, update, start_indices...)
    DynamicUpdateSlice,
    /// (inputs...)
    Concatenate {
        dimension: i64,
    },
    /// (operand, padding_value)
    Pad {
        low: Vec<i64>,
        high: Vec<i64>,
        interior: Vec<i64>,
    },
    Reverse {
        dims: Vec<i64>,
    },
    /// (operand, start_indices)
    Gather {
        dims: GatherDims,
        slice_sizes: Vec<i64>,
        indices_are_sorted: bool,
    },
    /// (inputs..., scatter_indices, updates...) with region `update_computation`
    Scatter {
        dims: ScatterDims,
        indices_are_sorted: bool,
        unique_indices: bool,
    },
    /// (lhs, rhs)
    DotGeneral {
        dims: DotDims,
        precision: PrecisionConfig,
    },
    /// (lhs, rhs)
    Convolution(Box<ConvAttrs>),
    /// (inputs..., init_values...) with region `body`
    Reduce {
        dimensions: Vec<i64>,
    },
    /// (inputs..., init_values...) with region `body`
    ReduceWindow(Box<WindowAttrs>),
    /// (operand, source, init_value) with regions `select`, `scatter`
    SelectAndScatter {
        window_dimensions: Vec<i64>,
        window_strides: Vec<i64>,
        padding: Vec<(i64, i64)>,
    },
    /// (inputs...) with region `comparator`
    Sort {
        dimension: i64,
        is_stable: bool,
    },
    /// (operands...) with regions `cond`, `body`
    While,
    /// (index) with one region per branch
    Case,
    /// (pred) with regions `true_branch`, `false_branch`
    If,
    /// (inputs...)
    Composite {
        name: String,
        attributes: NamedAttrs,
        decomposition: String,
        version: i32,
    },
    /// (inputs...)
    CustomCall {
        target: String,
        backend_config: String,
        has_side_effect: bool,
        api_version: CustomCallApiVersion,
    },
    /// (operands...)
    OptimizationBarrier,
    /// (operand, scale, offset, mean, variance)
    BatchNormInference {
        epsilon: f32,
        feature_index: i64,
    },
    /// (operand, scale, offset) -> (output, batch_mean, batch_var)
    BatchNormTraining {
        epsilon: f32,
        feature_index: i64,
    },
    /// (initial_state) -> (output_state, output)
    RngBitGenerator {
        algorithm: RngAlgorithm,
    },
    /// (operands...) with region `computation`
    AllReduce(CollectiveAttrs),
    /// (operands...)
    AllGather {
        dimension: i64,
        collective: CollectiveAttrs,
    },
    /// (operand) with region `computation`
    ReduceScatter {
        dimension: i64,
        collective: CollectiveAttrs,
    },
    /// (operands...)
    AllToAll {
        split_dimension: i64,
        concat_dimension: i64,
        split_count: i64,
        replica_groups: Vec<Vec<i64>>,
        channel: Option<ChannelHandle>,
    },
    /// (operand)
    CollectivePermute {
        source_target_pairs: Vec<(i64, i64)>,
        channel: Option<ChannelHandle>,
    },
    /// () -> tensor<ui32>
    ReplicaId,
    /// () -> tensor<ui32>
    PartitionId,
    /// (operand, output_dimensions)
    DynamicBroadcastInDim {
        dims: Vec<i64>,
        known_expanding: Vec<i64>,
        known_nonexpanding: Vec<i64>,
    },
    /// (operand, output_shape)
    DynamicReshape,
    /// (output_shape)
    DynamicIota {
        dimension: i64,
    },
    /// (operand) -> tensor<i32>
    GetDimensionSize {
        dimension: i64,
    },
    /// (operand, padding_value, edge_padding_low, edge_padding_high, interior_padding)
    DynamicPad,
    /// (operand, start_indices, slice_sizes)
    DynamicGather {
        dims: GatherDims,
        indices_are_sorted: bool,
    },
    /// (lhs, rhs, padding): like `Convolution` with the padding as an operand; `padding` in the
    /// attributes stays empty.
    DynamicConv(Box<ConvAttrs>),
    /// `func.call @callee(args...)`
    Call {
        callee: String,
    },
    /// `func.return`, the terminator of a function body.
    Return,
    /// `stablehlo.return`, the terminator of a region of a StableHLO op.
    RegionReturn,
    /// `sdy.sharding_constraint` (operand)
    ShardingConstraint(TensorSharding),
}

impl OpKind {
    /// Every name [`OpKind::name`] gives besides the elementwise [`UnaryOp`] and [`BinaryOp`]
    /// names, in a fixed order.
    pub const OTHER_NAMES: &[&str] = &[
        "stablehlo.compare",
        "stablehlo.select",
        "stablehlo.clamp",
        "stablehlo.convert",
        "stablehlo.bitcast_convert",
        "stablehlo.constant",
        "stablehlo.iota",
        "stablehlo.broadcast_in_dim",
        "stablehlo.reshape",
        "stablehlo.transpose",
        "stablehlo.slice",
        "stablehlo.dynamic_slice",
        "stablehlo.dynamic_update_slice",
        "stablehlo.concatenate",
        "stablehlo.pad",
        "stablehlo.reverse",
        "stablehlo.gather",
        "stablehlo.scatter",
        "stablehlo.dot_general",
        "stablehlo.convolution",
        "stablehlo.reduce",
        "stablehlo.reduce_window",
        "stablehlo.select_and_scatter",
        "stablehlo.sort",
        "stablehlo.while",
        "stablehlo.case",
        "stablehlo.if",
        "stablehlo.composite",
        "stablehlo.custom_call",
        "stablehlo.optimization_barrier",
        "stablehlo.batch_norm_inference",
        "stablehlo.batch_norm_training",
        "stablehlo.rng_bit_generator",
        "stablehlo.all_reduce",
        "stablehlo.all_gather",
        "stablehlo.reduce_scatter",
        "stablehlo.all_to_all",
        "stablehlo.collective_permute",
        "stablehlo.replica_id",
        "stablehlo.partition_id",
        "stablehlo.dynamic_broadcast_in_dim",
        "stablehlo.dynamic_reshape",
        "stablehlo.dynamic_iota",
        "stablehlo.get_dimension_size",
        "stablehlo.dynamic_pad",
        "stablehlo.dynamic_gather",
        "stablehlo.dynamic_conv",
        "stablehlo.return",
        "func.call",
        "func.return",
        "sdy.sharding_constraint",
    ];

    /// The full op name as MLIR spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Unary(op) => op.name(),
            Self::Binary(op) => op.name(),
            Self::Compare { .. } => "stablehlo.compare",
            Self::Select => "stablehlo.select",
            Self::Clamp => "stablehlo.clamp",
            Self::Convert => "stablehlo.convert",
            Self::BitcastConvert => "stablehlo.bitcast_convert",
            Self::Constant(_) => "stablehlo.constant",
            Self::Iota { .. } => "stablehlo.iota",
            Self::BroadcastInDim { .. } => "stablehlo.broadcast_in_dim",
            Self::Reshape => "stablehlo.reshape",
            Self::Transpose { .. } => "stablehlo.transpose",
            Self::Slice { .. } => "stablehlo.slice",
            Self::DynamicSlice { .. } => "stablehlo.dynamic_slice",
            Self::DynamicUpdateSlice => "stablehlo.dynamic_update_slice",
            Self::Concatenate { .. } => "stablehlo.concatenate",
            Self::Pad { .. } => "stablehlo.pad",
            Self::Reverse { .. } => "stablehlo.reverse",
            Self::Gather { .. } => "stablehlo.gather",
            Self::Scatter { .. } => "stablehlo.scatter",
            Self::DotGeneral { .. } => "stablehlo.dot_general",
            Self::Convolution(_) => "stablehlo.convolution",
            Self::Reduce { .. } => "stablehlo.reduce",
            Self::ReduceWindow(_) => "stablehlo.reduce_window",
            Self::SelectAndScatter { .. } => "stablehlo.select_and_scatter",
            Self::Sort { .. } => "stablehlo.sort",
            Self::While => "stablehlo.while",
            Self::Case => "stablehlo.case",
            Self::If => "stablehlo.if",
            Self::Composite { .. } => "stablehlo.composite",
            Self::CustomCall { .. } => "stablehlo.custom_call",
            Self::OptimizationBarrier => "stablehlo.optimization_barrier",
            Self::BatchNormInference { .. } => "stablehlo.batch_norm_inference",
            Self::BatchNormTraining { .. } => "stablehlo.batch_norm_training",
            Self::RngBitGenerator { .. } => "stablehlo.rng_bit_generator",
            Self::AllReduce(_) => "stablehlo.all_reduce",
            Self::AllGather { .. } => "stablehlo.all_gather",
            Self::ReduceScatter { .. } => "stablehlo.reduce_scatter",
            Self::AllToAll { .. } => "stablehlo.all_to_all",
            Self::CollectivePermute { .. } => "stablehlo.collective_permute",
            Self::ReplicaId => "stablehlo.replica_id",
            Self::PartitionId => "stablehlo.partition_id",
            Self::DynamicBroadcastInDim { .. } => "stablehlo.dynamic_broadcast_in_dim",
            Self::DynamicReshape => "stablehlo.dynamic_reshape",
            Self::DynamicIota { .. } => "stablehlo.dynamic_iota",
            Self::GetDimensionSize { .. } => "stablehlo.get_dimension_size",
            Self::DynamicPad => "stablehlo.dynamic_pad",
            Self::DynamicGather { .. } => "stablehlo.dynamic_gather",
            Self::DynamicConv(_) => "stablehlo.dynamic_conv",
            Self::Call { .. } => "func.call",
            Self::Return => "func.return",
            Self::RegionReturn => "stablehlo.return",
            Self::ShardingConstraint(_) => "sdy.sharding_constraint",
        }
    }

    /// Ops that end a block.
    pub fn is_terminator(&self) -> bool {
        matches!(self, Self::Return | Self::RegionReturn)
    }

    /// How many regions the op carries; `None` when variadic (`case`).
    pub fn region_count(&self) -> Option<usize> {
        Some(match self {
            Self::Scatter { .. }
            | Self::Reduce { .. }
            | Self::ReduceWindow(_)
            | Self::Sort { .. }
            | Self::AllReduce(_)
            | Self::ReduceScatter { .. } => 1,
            Self::SelectAndScatter { .. } | Self::While | Self::If => 2,
            Self::Case => return None,
            _ => 0,
        })
    }
}
