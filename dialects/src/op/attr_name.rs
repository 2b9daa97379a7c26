//! The MLIR names of the ops' inherent attributes, each written once; the op table and the
//! custom assembly forms refer to them by these constants.

macro_rules! attr_names {
    ($($constant:ident = $name:literal,)*) => {
        $( pub const $constant: &str = $name; )*

        /// Every name above.
        pub const ALL: &[&str] = &[$($constant),*];
    };
}

attr_names! {
    ALL_GATHER_DIM = "all_gather_dim",
    API_VERSION = "api_version",
    BACKEND_CONFIG = "backend_config",
    BASE_DILATIONS = "base_dilations",
    BATCH_GROUP_COUNT = "batch_group_count",
    BROADCAST_DIMENSIONS = "broadcast_dimensions",
    CALL_TARGET_NAME = "call_target_name",
    CALLEE = "callee",
    CHANNEL_HANDLE = "channel_handle",
    COMPARE_TYPE = "compare_type",
    COMPARISON_DIRECTION = "comparison_direction",
    COMPOSITE_ATTRIBUTES = "composite_attributes",
    CONCAT_DIMENSION = "concat_dimension",
    DECOMPOSITION = "decomposition",
    DIMENSION = "dimension",
    DIMENSION_NUMBERS = "dimension_numbers",
    DIMENSIONS = "dimensions",
    DOT_DIMENSION_NUMBERS = "dot_dimension_numbers",
    EDGE_PADDING_HIGH = "edge_padding_high",
    EDGE_PADDING_LOW = "edge_padding_low",
    EPSILON = "epsilon",
    FEATURE_GROUP_COUNT = "feature_group_count",
    FEATURE_INDEX = "feature_index",
    FFT_LENGTH = "fft_length",
    FFT_TYPE = "fft_type",
    HAS_SIDE_EFFECT = "has_side_effect",
    INDICES_ARE_SORTED = "indices_are_sorted",
    INTERIOR_PADDING = "interior_padding",
    IOTA_DIMENSION = "iota_dimension",
    IS_STABLE = "is_stable",
    K = "k",
    KNOWN_EXPANDING_DIMENSIONS = "known_expanding_dimensions",
    KNOWN_NONEXPANDING_DIMENSIONS = "known_nonexpanding_dimensions",
    LHS_DILATION = "lhs_dilation",
    LIMIT_INDICES = "limit_indices",
    NAME = "name",
    PADDING = "padding",
    PERMUTATION = "permutation",
    PRECISION_CONFIG = "precision_config",
    RAGGED_DOT_DIMENSION_NUMBERS = "ragged_dot_dimension_numbers",
    REPLICA_GROUPS = "replica_groups",
    RHS_DILATION = "rhs_dilation",
    RNG_ALGORITHM = "rng_algorithm",
    SCATTER_DIMENSION = "scatter_dimension",
    SCATTER_DIMENSION_NUMBERS = "scatter_dimension_numbers",
    SHARDING = "sharding",
    SLICE_SIZES = "slice_sizes",
    SOURCE_TARGET_PAIRS = "source_target_pairs",
    SPLIT_COUNT = "split_count",
    SPLIT_DIMENSION = "split_dimension",
    START_INDICES = "start_indices",
    STRIDES = "strides",
    UNIQUE_INDICES = "unique_indices",
    USE_GLOBAL_DEVICE_IDS = "use_global_device_ids",
    VALUE = "value",
    VERSION = "version",
    WINDOW_DILATIONS = "window_dilations",
    WINDOW_DIMENSIONS = "window_dimensions",
    WINDOW_REVERSAL = "window_reversal",
    WINDOW_STRIDES = "window_strides",
}
