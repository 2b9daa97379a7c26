//! The op table: every op's variant, fields and their attributes (name and kind), MLIR name,
//! region count and traits, written once. `define.rs` says how an entry reads.

use super::define::{define_attr_groups, define_ops};
use super::{BinaryOp, ChloBinaryOp, ChloBroadcastOp, ChloUnaryOp, UnaryOp};
use crate::attr::{
    Attribute, ChannelHandle, CollectiveAttrs, ComparisonDirection, ComparisonType, ConvAttrs,
    CustomCallApiVersion, DotDims, GatherDims, NamedAttrs, PrecisionConfig, RaggedDotDims,
    RngAlgorithm, ScatterDims, TensorSharding, WindowAttrs,
};
use crate::dense::DenseElements;

define_ops! {
    families {
        /// (operand) -> result
        Unary(op: UnaryOp), traits [elementwise];
        /// (lhs, rhs) -> result
        Binary(op: BinaryOp), traits [elementwise, commutative(op.is_commutative())];
        /// CHLO (operand) -> result
        ChloUnary(op: ChloUnaryOp), traits [elementwise];
        /// CHLO (lhs, rhs) -> result, with rank broadcasting (`dims` empty: numpy-style)
        ChloBroadcast(op: ChloBroadcastOp, dims: Vec<i64> = BROADCAST_DIMENSIONS as opt_i64_array);
        /// CHLO (lhs, rhs) -> result, operands and result of one type
        ChloBinary(op: ChloBinaryOp), traits [elementwise];
    }
    ops {
        /// (lhs, rhs) -> i1 result
        Compare {
            direction: ComparisonDirection = COMPARISON_DIRECTION as enumerant,
            compare_type: Option<ComparisonType> = COMPARE_TYPE as opt_enumerant,
        } => "stablehlo.compare",
            traits [elementwise, commutative(matches!(
                direction,
                ComparisonDirection::Eq | ComparisonDirection::Ne
            ))];
        /// (pred, on_true, on_false)
        Select => "stablehlo.select", traits [elementwise];
        /// (min, operand, max)
        Clamp => "stablehlo.clamp", traits [elementwise];
        Convert => "stablehlo.convert", traits [elementwise];
        BitcastConvert => "stablehlo.bitcast_convert";
        /// () -> result; the data's shape and element type are the result type's.
        Constant(data: DenseElements = VALUE as constant) => "stablehlo.constant";
        Iota { dimension: i64 = IOTA_DIMENSION as int } => "stablehlo.iota";
        BroadcastInDim {
            dims: Vec<i64> = BROADCAST_DIMENSIONS as i64_array,
        } => "stablehlo.broadcast_in_dim";
        Reshape => "stablehlo.reshape";
        Transpose { permutation: Vec<i64> = PERMUTATION as i64_array } => "stablehlo.transpose";
        Slice {
            start: Vec<i64> = START_INDICES as i64_array,
            limit: Vec<i64> = LIMIT_INDICES as i64_array,
            strides: Vec<i64> = STRIDES as i64_array,
        } => "stablehlo.slice";
        /// (operand, start_indices...)
        DynamicSlice { sizes: Vec<i64> = SLICE_SIZES as i64_array } => "stablehlo.dynamic_slice";
        /// (operand, update, start_indices...)
        DynamicUpdateSlice => "stablehlo.dynamic_update_slice";
        /// (inputs...)
        Concatenate { dimension: i64 = DIMENSION as int } => "stablehlo.concatenate";
        /// (operand, padding_value)
        Pad {
            low: Vec<i64> = EDGE_PADDING_LOW as i64_array,
            high: Vec<i64> = EDGE_PADDING_HIGH as i64_array,
            interior: Vec<i64> = INTERIOR_PADDING as i64_array,
        } => "stablehlo.pad";
        Reverse { dims: Vec<i64> = DIMENSIONS as i64_array } => "stablehlo.reverse";
        /// (operand, start_indices)
        Gather {
            dims: GatherDims = DIMENSION_NUMBERS as gather_dims,
            slice_sizes: Vec<i64> = SLICE_SIZES as i64_array,
            indices_are_sorted: bool = INDICES_ARE_SORTED as flag,
        } => "stablehlo.gather";
        /// (inputs..., scatter_indices, updates...) with region `update_computation`
        Scatter {
            dims: ScatterDims = SCATTER_DIMENSION_NUMBERS as scatter_dims,
            indices_are_sorted: bool = INDICES_ARE_SORTED as flag,
            unique_indices: bool = UNIQUE_INDICES as flag,
        } => "stablehlo.scatter", regions 1;
        /// (lhs, rhs)
        DotGeneral {
            dims: DotDims = DOT_DIMENSION_NUMBERS as dot_dims,
            precision: PrecisionConfig = PRECISION_CONFIG as precision,
        } => "stablehlo.dot_general";
        /// (lhs, rhs)
        Convolution(attrs: Box<ConvAttrs> as group) => "stablehlo.convolution";
        /// (inputs..., init_values...) with region `body`
        Reduce { dimensions: Vec<i64> = DIMENSIONS as i64_array } => "stablehlo.reduce",
            regions 1;
        /// (inputs..., init_values...) with region `body`
        ReduceWindow(attrs: Box<WindowAttrs> as group) => "stablehlo.reduce_window", regions 1;
        /// (operand, source, init_value) with regions `select`, `scatter`
        SelectAndScatter {
            window_dimensions: Vec<i64> = WINDOW_DIMENSIONS as i64_array,
            window_strides: Vec<i64> = WINDOW_STRIDES as opt_i64_array,
            padding: Vec<(i64, i64)> = PADDING as opt_pairs,
        } => "stablehlo.select_and_scatter", regions 2;
        /// (inputs...) with region `comparator`
        Sort {
            dimension: i64 = DIMENSION as int_or(-1),
            is_stable: bool = IS_STABLE as bool,
        } => "stablehlo.sort", regions 1;
        /// (operands...) with regions `cond`, `body`
        While => "stablehlo.while", regions 2;
        /// (index) with one region per branch
        Case => "stablehlo.case", regions variadic;
        /// (pred) with regions `true_branch`, `false_branch`
        If => "stablehlo.if", regions 2;
        /// (inputs...)
        Composite {
            name: String = NAME as string,
            attributes: NamedAttrs = COMPOSITE_ATTRIBUTES as opt_dict,
            decomposition: String = DECOMPOSITION as symbol,
            version: i32 = VERSION as opt_i32,
        } => "stablehlo.composite";
        /// (inputs...)
        CustomCall {
            target: String = CALL_TARGET_NAME as string,
            backend_config: String = BACKEND_CONFIG as opt_string,
            has_side_effect: bool = HAS_SIDE_EFFECT as flag,
            api_version: CustomCallApiVersion = API_VERSION as api_version,
        } => "stablehlo.custom_call", traits [side_effect(*has_side_effect), opaque];
        /// (operands...)
        OptimizationBarrier => "stablehlo.optimization_barrier";
        /// (operand, scale, offset, mean, variance)
        BatchNormInference {
            epsilon: f32 = EPSILON as f32,
            feature_index: i64 = FEATURE_INDEX as int,
        } => "stablehlo.batch_norm_inference";
        /// (operand, scale, offset) -> (output, batch_mean, batch_var)
        BatchNormTraining {
            epsilon: f32 = EPSILON as f32,
            feature_index: i64 = FEATURE_INDEX as int,
        } => "stablehlo.batch_norm_training";
        /// (initial_state) -> (output_state, output)
        RngBitGenerator {
            algorithm: RngAlgorithm = RNG_ALGORITHM as enumerant,
        } => "stablehlo.rng_bit_generator";
        /// (operands...) with region `computation`
        AllReduce(collective: CollectiveAttrs as group) => "stablehlo.all_reduce",
            regions 1, traits [side_effect];
        /// (operands...)
        AllGather {
            dimension: i64 = ALL_GATHER_DIM as int,
            collective: CollectiveAttrs as group,
        } => "stablehlo.all_gather", traits [side_effect];
        /// (operand) with region `computation`
        ReduceScatter {
            dimension: i64 = SCATTER_DIMENSION as int,
            collective: CollectiveAttrs as group,
        } => "stablehlo.reduce_scatter", regions 1, traits [side_effect];
        /// (operands...)
        AllToAll {
            split_dimension: i64 = SPLIT_DIMENSION as int,
            concat_dimension: i64 = CONCAT_DIMENSION as int,
            split_count: i64 = SPLIT_COUNT as int,
            replica_groups: Vec<Vec<i64>> = REPLICA_GROUPS as replica_groups,
            channel: Option<ChannelHandle> = CHANNEL_HANDLE as opt_channel,
        } => "stablehlo.all_to_all", traits [side_effect];
        /// (operand)
        CollectivePermute {
            source_target_pairs: Vec<(i64, i64)> = SOURCE_TARGET_PAIRS as pairs,
            channel: Option<ChannelHandle> = CHANNEL_HANDLE as opt_channel,
        } => "stablehlo.collective_permute", traits [side_effect];
        /// () -> tensor<ui32>
        ReplicaId => "stablehlo.replica_id", traits [side_effect];
        /// () -> tensor<ui32>
        PartitionId => "stablehlo.partition_id", traits [side_effect];
        /// (operand, output_dimensions)
        DynamicBroadcastInDim {
            dims: Vec<i64> = BROADCAST_DIMENSIONS as i64_array,
            known_expanding: Vec<i64> = KNOWN_EXPANDING_DIMENSIONS as opt_i64_array,
            known_nonexpanding: Vec<i64> = KNOWN_NONEXPANDING_DIMENSIONS as opt_i64_array,
        } => "stablehlo.dynamic_broadcast_in_dim";
        /// (operand, output_shape)
        DynamicReshape => "stablehlo.dynamic_reshape";
        /// (output_shape)
        DynamicIota { dimension: i64 = IOTA_DIMENSION as int } => "stablehlo.dynamic_iota";
        /// (operand) -> tensor<i32>
        GetDimensionSize {
            dimension: i64 = DIMENSION as int,
        } => "stablehlo.get_dimension_size";
        /// (operand, padding_value, edge_padding_low, edge_padding_high, interior_padding)
        DynamicPad => "stablehlo.dynamic_pad";
        /// (operand, start_indices, limit_indices, strides)
        RealDynamicSlice => "stablehlo.real_dynamic_slice";
        /// (operand, start_indices, slice_sizes)
        DynamicGather {
            dims: GatherDims = DIMENSION_NUMBERS as gather_dims,
            indices_are_sorted: bool = INDICES_ARE_SORTED as flag,
        } => "stablehlo.dynamic_gather";
        /// (lhs, rhs, padding): like `Convolution` with the padding as an operand; `padding` in
        /// the attributes stays empty.
        DynamicConv(
            attrs: Box<ConvAttrs> as group_without(&[super::attr_name::PADDING])
        ) => "stablehlo.dynamic_conv";
        /// `func.call @callee(args...)`
        Call { callee: String = CALLEE as symbol } => "func.call", traits [side_effect];
        /// `func.return`, the terminator of a function body.
        Return => "func.return", traits [terminator, side_effect];
        /// `stablehlo.return`, the terminator of a region of a StableHLO op.
        RegionReturn => "stablehlo.return", traits [terminator, side_effect];
        /// CHLO (pred, on_true, on_false) with numpy-style broadcasting
        ChloBroadcastSelect => "chlo.broadcast_select";
        /// CHLO (lhs, rhs) -> i1 result, with rank broadcasting (`dims` empty: numpy-style)
        ChloBroadcastCompare {
            dims: Vec<i64> = BROADCAST_DIMENSIONS as opt_i64_array,
            direction: ComparisonDirection = COMPARISON_DIRECTION as chlo_enumerant,
            compare_type: Option<ComparisonType> = COMPARE_TYPE as opt_chlo_enumerant,
        } => "chlo.broadcast_compare";
        /// CHLO (operand) -> result: the scalar `value` splat to the operand's shape
        ChloConstantLike(value: Attribute = VALUE as typed_value) => "chlo.constant_like";
        /// CHLO (lhs, rhs, group_sizes): a dot_general per group of lhs rows
        ChloRaggedDot {
            dims: RaggedDotDims = RAGGED_DOT_DIMENSION_NUMBERS as ragged_dot_dims,
            precision: PrecisionConfig = PRECISION_CONFIG as chlo_precision,
        } => "chlo.ragged_dot";
        /// CHLO (operand) -> (values, indices): the `k` largest along the last dimension
        ChloTopK { k: i64 = K as int } => "chlo.top_k";
        /// `sdy.sharding_constraint` (operand)
        ShardingConstraint(sharding: TensorSharding = SHARDING as sharding)
            => "sdy.sharding_constraint";
    }
}

define_attr_groups! {
    ConvAttrs {
        dims = DIMENSION_NUMBERS as conv_dims,
        window_strides = WINDOW_STRIDES as opt_i64_array,
        padding = PADDING as opt_pairs,
        lhs_dilation = LHS_DILATION as opt_i64_array,
        rhs_dilation = RHS_DILATION as opt_i64_array,
        window_reversal = WINDOW_REVERSAL as opt_bool_array,
        feature_group_count = FEATURE_GROUP_COUNT as count,
        batch_group_count = BATCH_GROUP_COUNT as count,
        precision = PRECISION_CONFIG as precision,
    }
    WindowAttrs {
        window_dimensions = WINDOW_DIMENSIONS as i64_array,
        window_strides = WINDOW_STRIDES as opt_i64_array,
        base_dilations = BASE_DILATIONS as opt_i64_array,
        window_dilations = WINDOW_DILATIONS as opt_i64_array,
        padding = PADDING as opt_pairs,
    }
    CollectiveAttrs {
        replica_groups = REPLICA_GROUPS as replica_groups,
        channel = CHANNEL_HANDLE as opt_channel,
        use_global_device_ids = USE_GLOBAL_DEVICE_IDS as unit_flag,
    }
}

/// The op declaring a function of the module (not an [`OpKind`]: the module holds functions).
pub const FUNCTION_OP: &str = "func.func";
/// The op declaring a Shardy mesh of the module.
pub const MESH_OP: &str = "sdy.mesh";
