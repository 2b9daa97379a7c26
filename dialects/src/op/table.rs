//! The op table: every op's variant, fields and their attributes (name and kind), MLIR name,
//! region count and traits, written once. `define.rs` says how an entry reads.

use super::define::{define_attr_groups, define_ops};
use super::{BinaryOp, ChloBinaryOp, ChloBroadcastOp, ChloUnaryOp, UnaryOp};
use crate::attr::{
    Attribute, ChannelHandle, CollectiveAttrs, ComparisonDirection, ComparisonType, ConvAttrs,
    CustomCallApiVersion, DotDims, FftType, GatherDims, NamedAttrs, PrecisionConfig, RaggedDotDims,
    RngAlgorithm, RngDistribution, ScatterDims, TensorSharding, Transpose, WindowAttrs,
};
use crate::dense::DenseElements;

define_ops! {
    families {
        /// (operand) -> result
        Unary(op: UnaryOp),
            operands 1, results 1, syntax Elementwise, fold Elementwise, sharding Elementwise,
            traits [elementwise];
        /// (lhs, rhs) -> result
        Binary(op: BinaryOp),
            operands 2, results 1, syntax Elementwise, fold Elementwise, sharding Elementwise,
            traits [elementwise, commutative(op.is_commutative())];
        /// CHLO (operand) -> result
        ChloUnary(op: ChloUnaryOp),
            operands 1, results 1, syntax ChloUnary, fold None, sharding Elementwise,
            traits [elementwise];
        /// CHLO (lhs, rhs) -> result, with rank broadcasting (`dims` empty: numpy-style)
        ChloBroadcast(op: ChloBroadcastOp, dims: Vec<i64> = BROADCAST_DIMENSIONS as opt_i64_array),
            operands 2, results 1, syntax ChloBroadcast, fold None, sharding None;
        /// CHLO (lhs, rhs) -> result, operands and result of one type
        ChloBinary(op: ChloBinaryOp),
            operands 2, results 1, syntax ChloBinary, fold None, sharding Elementwise,
            traits [elementwise];
    }
    ops {
        /// (lhs, rhs) -> i1 result
        Compare {
            direction: ComparisonDirection = COMPARISON_DIRECTION as enumerant,
            compare_type: Option<ComparisonType> = COMPARE_TYPE as opt_enumerant,
        } => "stablehlo.compare",
            operands 2, results 1, syntax Compare, fold Elementwise, sharding Elementwise,
            traits [elementwise, commutative(matches!(
                direction,
                ComparisonDirection::Eq | ComparisonDirection::Ne
            ))];
        /// (pred, on_true, on_false)
        Select => "stablehlo.select",
            operands 3, results 1, syntax Select, fold Elementwise, sharding Elementwise,
            traits [elementwise];
        /// (min, operand, max)
        Clamp => "stablehlo.clamp",
            operands 3, results 1, syntax Elementwise, fold None, sharding Elementwise,
            traits [elementwise];
        Convert => "stablehlo.convert",
            operands 1, results 1, syntax Elementwise, fold Elementwise, sharding Elementwise,
            traits [elementwise];
        /// (operand): each element rounded to `exponent_bits` and `mantissa_bits`
        ReducePrecision {
            exponent_bits: i32 = EXPONENT_BITS as i32,
            mantissa_bits: i32 = MANTISSA_BITS as i32,
        } => "stablehlo.reduce_precision",
            operands 1, results 1, syntax ReducePrecision, fold None, sharding Elementwise,
            traits [elementwise];
        BitcastConvert => "stablehlo.bitcast_convert",
            operands 1, results 1, syntax Functional, fold Identity, sharding Bitcast;
        /// () -> result; the data's shape and element type are the result type's.
        Constant(data: DenseElements = VALUE as constant) => "stablehlo.constant",
            operands 0, results 1, syntax Constant, fold None, sharding Elementwise;
        Iota { dimension: i64 = IOTA_DIMENSION as int } => "stablehlo.iota",
            operands 0, results 1, syntax Iota(IOTA_DIMENSION), fold None, sharding Elementwise;
        BroadcastInDim {
            dims: Vec<i64> = BROADCAST_DIMENSIONS as i64_array,
        } => "stablehlo.broadcast_in_dim",
            operands 1, results 1, syntax Dims(BROADCAST_DIMENSIONS),
            fold Layout, sharding BroadcastInDim;
        Reshape => "stablehlo.reshape",
            operands 1, results 1, syntax Functional, fold Layout, sharding Reshape;
        Transpose { permutation: Vec<i64> = PERMUTATION as i64_array } => "stablehlo.transpose",
            operands 1, results 1, syntax Dims(PERMUTATION), fold Layout, sharding Transpose;
        Slice {
            start: Vec<i64> = START_INDICES as i64_array,
            limit: Vec<i64> = LIMIT_INDICES as i64_array,
            strides: Vec<i64> = STRIDES as i64_array,
        } => "stablehlo.slice",
            operands 1, results 1, syntax Slice, fold None, sharding Window;
        /// (operand, start_indices...)
        DynamicSlice { sizes: Vec<i64> = SLICE_SIZES as i64_array } => "stablehlo.dynamic_slice",
            operands (at least 1), results 1, syntax Sizes(SLICE_SIZES), fold None, sharding Window;
        /// (operand, update, start_indices...)
        DynamicUpdateSlice => "stablehlo.dynamic_update_slice",
            operands (at least 2), results 1, syntax Functional, fold None, sharding UpdateSlice;
        /// (inputs...)
        Concatenate { dimension: i64 = DIMENSION as int } => "stablehlo.concatenate",
            operands (at least 1), results 1, syntax Dim(DIMENSION),
            fold None, sharding Concatenate;
        /// (operand, padding_value)
        Pad {
            low: Vec<i64> = EDGE_PADDING_LOW as i64_array,
            high: Vec<i64> = EDGE_PADDING_HIGH as i64_array,
            interior: Vec<i64> = INTERIOR_PADDING as i64_array,
        } => "stablehlo.pad",
            operands 2, results 1, syntax Pad, fold None, sharding Window;
        Reverse { dims: Vec<i64> = DIMENSIONS as i64_array } => "stablehlo.reverse",
            operands 1, results 1, syntax Reverse(DIMENSIONS), fold None, sharding Reverse;
        /// (operand, start_indices)
        Gather {
            dims: GatherDims = DIMENSION_NUMBERS as gather_dims,
            slice_sizes: Vec<i64> = SLICE_SIZES as i64_array,
            indices_are_sorted: bool = INDICES_ARE_SORTED as flag,
        } => "stablehlo.gather",
            operands 2, results 1, syntax Generic, fold None, sharding Gather;
        /// (inputs..., scatter_indices, updates...) with region `update_computation`
        Scatter {
            dims: ScatterDims = SCATTER_DIMENSION_NUMBERS as scatter_dims,
            indices_are_sorted: bool = INDICES_ARE_SORTED as flag,
            unique_indices: bool = UNIQUE_INDICES as flag,
        } => "stablehlo.scatter",
            operands (at least 3), results (at least 1),
            syntax Generic, fold None, sharding Scatter,
            regions 1;
        /// (lhs, rhs)
        DotGeneral {
            dims: DotDims = DOT_DIMENSION_NUMBERS as dot_dims,
            precision: PrecisionConfig = PRECISION_CONFIG as precision,
        } => "stablehlo.dot_general",
            operands 2, results 1, syntax DotGeneral, fold None, sharding DotGeneral;
        /// (lhs, rhs)
        Convolution(attrs: Box<ConvAttrs> as group) => "stablehlo.convolution",
            operands 2, results 1, syntax Convolution, fold None, sharding Convolution;
        /// (operand): the Fourier transform `fft_type` of the last `fft_length.len()` (1 to 3)
        /// dimensions
        Fft {
            fft_type: FftType = FFT_TYPE as enumerant,
            fft_length: Vec<i64> = FFT_LENGTH as i64_array,
        } => "stablehlo.fft",
            operands 1, results 1, syntax Fft, fold None, sharding Fft;
        /// (a, b): solves `op(a) x = b` (or `x op(a) = b`) for triangular `a`, batched over the
        /// leading dimensions
        TriangularSolve {
            left_side: bool = LEFT_SIDE as bool,
            lower: bool = LOWER as bool,
            unit_diagonal: bool = UNIT_DIAGONAL as bool,
            transpose_a: Transpose = TRANSPOSE_A as enumerant,
        } => "stablehlo.triangular_solve",
            operands 2, results 1, syntax Generic, fold None, sharding None;
        /// (inputs..., init_values...) with region `body`
        Reduce { dimensions: Vec<i64> = DIMENSIONS as i64_array } => "stablehlo.reduce",
            operands (at least 2), results (at least 1), syntax Reduce, fold None, sharding Reduce,
            regions 1;
        /// (inputs..., init_values...) with region `body`
        ReduceWindow(attrs: Box<WindowAttrs> as group) => "stablehlo.reduce_window",
            operands (at least 2), results (at least 1),
            syntax Generic, fold None, sharding ReduceWindow,
            regions 1;
        /// (operand, source, init_value) with regions `select`, `scatter`
        SelectAndScatter {
            window_dimensions: Vec<i64> = WINDOW_DIMENSIONS as i64_array,
            window_strides: Vec<i64> = WINDOW_STRIDES as opt_i64_array,
            padding: Vec<(i64, i64)> = PADDING as opt_pairs,
        } => "stablehlo.select_and_scatter",
            operands 3, results 1, syntax Generic, fold None, sharding SelectAndScatter, regions 2;
        /// (inputs...) with region `computation`, applied to the elements at each index
        Map { dimensions: Vec<i64> = DIMENSIONS as i64_array } => "stablehlo.map",
            operands (at least 1), results 1, syntax Generic, fold None, sharding None,
            regions 1;
        /// (inputs...) with region `comparator`
        Sort {
            dimension: i64 = DIMENSION as int_or(-1),
            is_stable: bool = IS_STABLE as bool,
        } => "stablehlo.sort",
            operands (at least 1), results (at least 1), syntax Generic, fold None, sharding Sort,
            regions 1;
        /// (operands...) with regions `cond`, `body`
        While => "stablehlo.while",
            operands variadic, results variadic, syntax While, fold None, sharding None, regions 2;
        /// (index) with one region per branch
        Case => "stablehlo.case",
            operands 1, results variadic, syntax Generic, fold None, sharding None,
            regions variadic;
        /// (pred) with regions `true_branch`, `false_branch`
        If => "stablehlo.if",
            operands 1, results variadic, syntax Generic, fold None, sharding None, regions 2;
        /// (inputs...)
        Composite {
            name: String = NAME as string,
            attributes: NamedAttrs = COMPOSITE_ATTRIBUTES as opt_dict,
            decomposition: String = DECOMPOSITION as symbol,
            version: i32 = VERSION as opt_i32,
        } => "stablehlo.composite",
            operands variadic, results variadic, syntax Composite, fold None, sharding None;
        /// (inputs...)
        CustomCall {
            target: String = CALL_TARGET_NAME as string,
            backend_config: String = BACKEND_CONFIG as opt_string,
            has_side_effect: bool = HAS_SIDE_EFFECT as flag,
            api_version: CustomCallApiVersion = API_VERSION as api_version,
        } => "stablehlo.custom_call",
            operands variadic, results variadic, syntax CustomCall, fold None, sharding None,
            traits [side_effect(*has_side_effect), opaque];
        /// (operands...)
        OptimizationBarrier => "stablehlo.optimization_barrier",
            operands variadic, results variadic, syntax Barrier, fold None, sharding Pairwise;
        /// (operand, scale, offset, mean, variance)
        BatchNormInference {
            epsilon: f32 = EPSILON as f32,
            feature_index: i64 = FEATURE_INDEX as int,
        } => "stablehlo.batch_norm_inference",
            operands 5, results 1, syntax Generic, fold None, sharding BatchNorm;
        /// (operand, scale, offset) -> (output, batch_mean, batch_var)
        BatchNormTraining {
            epsilon: f32 = EPSILON as f32,
            feature_index: i64 = FEATURE_INDEX as int,
        } => "stablehlo.batch_norm_training",
            operands 3, results 3, syntax Generic, fold None, sharding BatchNorm;
        /// (initial_state) -> (output_state, output)
        RngBitGenerator {
            algorithm: RngAlgorithm = RNG_ALGORITHM as enumerant,
        } => "stablehlo.rng_bit_generator",
            operands 1, results 2, syntax RngBitGenerator, fold None, sharding None;
        /// (operands...) with region `computation`
        AllReduce(collective: CollectiveAttrs as group) => "stablehlo.all_reduce",
            operands (at least 1), results (at least 1), syntax Generic, fold None, sharding None,
            regions 1, traits [side_effect];
        /// (operands...)
        AllGather {
            dimension: i64 = ALL_GATHER_DIM as int,
            collective: CollectiveAttrs as group,
        } => "stablehlo.all_gather",
            operands variadic, results variadic, syntax Generic, fold None, sharding None,
            traits [side_effect];
        /// (operand) with region `computation`
        ReduceScatter {
            dimension: i64 = SCATTER_DIMENSION as int,
            collective: CollectiveAttrs as group,
        } => "stablehlo.reduce_scatter",
            operands 1, results 1, syntax Generic, fold None, sharding None, regions 1,
            traits [side_effect];
        /// (operands...)
        AllToAll {
            split_dimension: i64 = SPLIT_DIMENSION as int,
            concat_dimension: i64 = CONCAT_DIMENSION as int,
            split_count: i64 = SPLIT_COUNT as int,
            replica_groups: Vec<Vec<i64>> = REPLICA_GROUPS as replica_groups,
            channel: Option<ChannelHandle> = CHANNEL_HANDLE as opt_channel,
        } => "stablehlo.all_to_all",
            operands variadic, results variadic, syntax Generic, fold None, sharding None,
            traits [side_effect];
        /// (operand)
        CollectivePermute {
            source_target_pairs: Vec<(i64, i64)> = SOURCE_TARGET_PAIRS as pairs,
            channel: Option<ChannelHandle> = CHANNEL_HANDLE as opt_channel,
        } => "stablehlo.collective_permute",
            operands 1, results 1, syntax Generic, fold None, sharding None, traits [side_effect];
        /// (operands...[, root]): each group's first process's operands, sent to the group;
        /// with `has_dynamic_root` the last operand says which process is the root
        CollectiveBroadcast {
            replica_groups: Vec<Vec<i64>> = REPLICA_GROUPS as replica_groups,
            channel: Option<ChannelHandle> = CHANNEL_HANDLE as opt_channel,
            has_dynamic_root: bool = HAS_DYNAMIC_ROOT as unit_flag,
        } => "stablehlo.collective_broadcast",
            operands (at least 1), results (at least 1), syntax Generic, fold None,
            sharding None, traits [side_effect];
        /// () -> tensor<ui32>
        ReplicaId => "stablehlo.replica_id",
            operands 0, results 1, syntax ResultType, fold None, sharding None,
            traits [side_effect];
        /// () -> tensor<ui32>
        PartitionId => "stablehlo.partition_id",
            operands 0, results 1, syntax ResultType, fold None, sharding None,
            traits [side_effect];
        /// (operands...) -> tuple of their types
        Tuple => "stablehlo.tuple",
            operands variadic, results 1, syntax Tuple, fold None, sharding None;
        /// (tuple) -> its element `index`
        GetTupleElement { index: i32 = INDEX as i32 } => "stablehlo.get_tuple_element",
            operands 1, results 1, syntax GetTupleElement, fold None, sharding None;
        /// () -> token
        CreateToken => "stablehlo.create_token",
            operands 0, results 1, syntax ResultType, fold None, sharding None;
        /// (tokens...) -> token
        AfterAll => "stablehlo.after_all",
            operands variadic, results 1, syntax Generic, fold None, sharding None,
            traits [side_effect];
        /// (operand): `broadcast_sizes` new leading dimensions
        Broadcast {
            sizes: Vec<i64> = BROADCAST_SIZES as i64_array,
        } => "stablehlo.broadcast",
            operands 1, results 1, syntax Generic, fold None, sharding None;
        /// (operand, size): dimension `dimension` of the operand, its size set
        SetDimensionSize {
            dimension: i64 = DIMENSION as int,
        } => "stablehlo.set_dimension_size",
            operands 2, results 1, syntax Generic, fold None, sharding None;
        /// (a, b, shape): random numbers of `rng_distribution`
        Rng {
            distribution: RngDistribution = RNG_DISTRIBUTION as enumerant,
        } => "stablehlo.rng",
            operands 3, results 1, syntax Generic, fold None, sharding None,
            traits [side_effect];
        /// (lhs, rhs): the contraction `einsum_config` names
        Einsum { config: String = EINSUM_CONFIG as string } => "stablehlo.einsum",
            operands 2, results 1, syntax Generic, fold None, sharding None;
        /// (operand): the reduction `einsum_config` names
        UnaryEinsum { config: String = EINSUM_CONFIG as string } => "stablehlo.unary_einsum",
            operands 1, results 1, syntax Generic, fold None, sharding None;
        /// (operand, scale, mean, variance, grad_output) -> (grad_operand, grad_scale, grad_offset)
        BatchNormGrad {
            epsilon: f32 = EPSILON as f32,
            feature_index: i64 = FEATURE_INDEX as int,
        } => "stablehlo.batch_norm_grad",
            operands 5, results 3, syntax Generic, fold None, sharding None;
        /// (inputs..., token) -> token
        Send {
            channel: Option<ChannelHandle> = CHANNEL_HANDLE as opt_channel,
            is_host_transfer: bool = IS_HOST_TRANSFER as flag,
        } => "stablehlo.send",
            operands (at least 1), results 1, syntax Generic, fold None, sharding None,
            traits [side_effect];
        /// (token) -> (results..., token)
        Recv {
            channel: Option<ChannelHandle> = CHANNEL_HANDLE as opt_channel,
            is_host_transfer: bool = IS_HOST_TRANSFER as flag,
        } => "stablehlo.recv",
            operands 1, results (at least 1), syntax Generic, fold None, sharding None,
            traits [side_effect];
        /// (inputs..., token) -> token
        Outfeed {
            config: String = OUTFEED_CONFIG as opt_string,
        } => "stablehlo.outfeed",
            operands (at least 1), results 1, syntax Generic, fold None, sharding None,
            traits [side_effect];
        /// (operand, output_dimensions)
        DynamicBroadcastInDim {
            dims: Vec<i64> = BROADCAST_DIMENSIONS as i64_array,
            known_expanding: Vec<i64> = KNOWN_EXPANDING_DIMENSIONS as opt_i64_array,
            known_nonexpanding: Vec<i64> = KNOWN_NONEXPANDING_DIMENSIONS as opt_i64_array,
        } => "stablehlo.dynamic_broadcast_in_dim",
            operands 2, results 1, syntax Dims(BROADCAST_DIMENSIONS), fold None, sharding None;
        /// (operand, output_shape)
        DynamicReshape => "stablehlo.dynamic_reshape",
            operands 2, results 1, syntax Functional, fold None, sharding None;
        /// (output_shape)
        DynamicIota { dimension: i64 = IOTA_DIMENSION as int } => "stablehlo.dynamic_iota",
            operands 1, results 1, syntax Dim(IOTA_DIMENSION), fold None, sharding None;
        /// (operand) -> tensor<i32>
        GetDimensionSize {
            dimension: i64 = DIMENSION as int,
        } => "stablehlo.get_dimension_size",
            operands 1, results 1, syntax Dim(DIMENSION), fold None, sharding None;
        /// (operand, padding_value, edge_padding_low, edge_padding_high, interior_padding)
        DynamicPad => "stablehlo.dynamic_pad",
            operands 5, results 1, syntax Functional, fold None, sharding None;
        /// (operand, start_indices, limit_indices, strides)
        RealDynamicSlice => "stablehlo.real_dynamic_slice",
            operands 4, results 1, syntax Functional, fold None, sharding None;
        /// (operand, start_indices, slice_sizes)
        DynamicGather {
            dims: GatherDims = DIMENSION_NUMBERS as gather_dims,
            indices_are_sorted: bool = INDICES_ARE_SORTED as flag,
        } => "stablehlo.dynamic_gather",
            operands 3, results 1, syntax Generic, fold None, sharding None;
        /// (lhs, rhs, padding): like `Convolution` with the padding as an operand; `padding` in
        /// the attributes stays empty.
        DynamicConv(
            attrs: Box<ConvAttrs> as group_without(&[super::attr_name::PADDING])
        ) => "stablehlo.dynamic_conv",
            operands 3, results 1, syntax Generic, fold None, sharding None;
        /// `func.call @callee(args...)`
        Call { callee: String = CALLEE as symbol } => "func.call",
            operands variadic, results variadic, syntax Call, fold None, sharding None,
            traits [side_effect];
        /// `func.return`, the terminator of a function body.
        Return => "func.return",
            operands variadic, results 0, syntax Return, fold None, sharding None,
            traits [terminator, side_effect];
        /// `stablehlo.return`, the terminator of a region of a StableHLO op.
        RegionReturn => "stablehlo.return",
            operands variadic, results 0, syntax Return, fold None, sharding None,
            traits [terminator, side_effect];
        /// CHLO (pred, on_true, on_false) with numpy-style broadcasting
        ChloBroadcastSelect => "chlo.broadcast_select",
            operands 3, results 1, syntax Functional, fold None, sharding None;
        /// CHLO (lhs, rhs) -> i1 result, with rank broadcasting (`dims` empty: numpy-style)
        ChloBroadcastCompare {
            dims: Vec<i64> = BROADCAST_DIMENSIONS as opt_i64_array,
            direction: ComparisonDirection = COMPARISON_DIRECTION as chlo_enumerant,
            compare_type: Option<ComparisonType> = COMPARE_TYPE as opt_chlo_enumerant,
        } => "chlo.broadcast_compare",
            operands 2, results 1, syntax ChloBroadcast, fold None, sharding None;
        /// CHLO (operand) -> result: the scalar `value` splat to the operand's shape
        ChloConstantLike(value: Attribute = VALUE as typed_value) => "chlo.constant_like",
            operands 1, results 1, syntax Generic, fold None, sharding None;
        /// CHLO (lhs, rhs, group_sizes): a dot_general per group of lhs rows
        ChloRaggedDot {
            dims: RaggedDotDims = RAGGED_DOT_DIMENSION_NUMBERS as ragged_dot_dims,
            precision: PrecisionConfig = PRECISION_CONFIG as chlo_precision,
        } => "chlo.ragged_dot",
            operands 3, results 1, syntax Generic, fold None, sharding None;
        /// CHLO (operand) -> (values, indices): the `k` largest along the last dimension
        ChloTopK { k: i64 = K as int } => "chlo.top_k",
            operands 1, results 2, syntax TopK, fold None, sharding None;
        /// `sdy.sharding_constraint` (operand)
        ShardingConstraint(sharding: TensorSharding = SHARDING as sharding)
            => "sdy.sharding_constraint",
            operands 1, results 1, syntax ShardingConstraint, fold None, sharding Pairwise;
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
