//! The named op constructors of [`Builder`], one per StableHLO op.

use std::borrow::BorrowMut;

use super::{Builder, CustomCallOptions, IntoShape, RegionBody};
use crate::attr::{
    ChannelHandle, CollectiveAttrs, ComparisonDirection, ComparisonType, ConvAttrs, DotDims,
    FftType, GatherDims, NamedAttrs, PrecisionConfig, RngAlgorithm, ScatterDims, TensorSharding,
    Transpose, WindowAttrs,
};
use crate::dense::DenseElements;
use crate::error::{IrError, Result};
use crate::function::{Function, Value};
use crate::infer::{self, OpSig};
use crate::op::{BinaryOp, ChloUnaryOp, OpKind, UnaryOp};
use crate::types::{ElementType, TensorType, Type};

macro_rules! unary_methods {
    ($($method:ident => $op:ident),+ $(,)?) => {
        $(
            #[doc = concat!("`", stringify!($method), "` elementwise.")]
            pub fn $method(&mut self, operand: Value) -> Result<Value> {
                self.unary(UnaryOp::$op, operand)
            }
        )+
    };
}

macro_rules! binary_methods {
    ($($method:ident => $op:ident),+ $(,)?) => {
        $(
            #[doc = concat!("`", stringify!($method), "` elementwise.")]
            pub fn $method(&mut self, lhs: Value, rhs: Value) -> Result<Value> {
                self.binary(BinaryOp::$op, lhs, rhs)
            }
        )+
    };
}

impl<F: BorrowMut<Function>> Builder<F> {
    // Elementwise.

    pub fn unary(&mut self, op: UnaryOp, operand: Value) -> Result<Value> {
        self.op1(OpKind::Unary(op), &[operand], Vec::new(), None)
    }

    pub fn binary(&mut self, op: BinaryOp, lhs: Value, rhs: Value) -> Result<Value> {
        self.op1(OpKind::Binary(op), &[lhs, rhs], Vec::new(), None)
    }

    /// A CHLO op of one operand (`chlo-legalize` rewrites it into StableHLO).
    pub fn chlo_unary(&mut self, op: ChloUnaryOp, operand: Value) -> Result<Value> {
        self.op1(OpKind::ChloUnary(op), &[operand], Vec::new(), None)
    }

    unary_methods!(
        abs => Abs, cbrt => Cbrt, ceil => Ceil, count_leading_zeros => CountLeadingZeros,
        cosine => Cosine, exponential => Exponential, exponential_minus_one => ExponentialMinusOne,
        floor => Floor, imag => Imag, is_finite => IsFinite, log => Log, log_plus_one => LogPlusOne,
        logistic => Logistic, negate => Negate, not => Not, popcnt => Popcnt, real => Real,
        round_nearest_afz => RoundNearestAfz, round_nearest_even => RoundNearestEven,
        rsqrt => Rsqrt, sign => Sign, sine => Sine, sqrt => Sqrt, tan => Tan, tanh => Tanh,
    );

    binary_methods!(
        add => Add, and => And, atan2 => Atan2, complex => Complex, divide => Divide,
        maximum => Maximum, minimum => Minimum, multiply => Multiply, or => Or, power => Power,
        remainder => Remainder, shift_left => ShiftLeft,
        shift_right_arithmetic => ShiftRightArithmetic, shift_right_logical => ShiftRightLogical,
        subtract => Subtract, xor => Xor,
    );

    /// `compare` with the comparison type the element type calls for (SIGNED, UNSIGNED, FLOAT).
    pub fn compare(
        &mut self,
        direction: ComparisonDirection,
        lhs: Value,
        rhs: Value,
    ) -> Result<Value> {
        let element = self.tensor_type(lhs)?.element;
        let compare_type = infer::default_compare_type(element);
        self.compare_with_type(direction, Some(compare_type), lhs, rhs)
    }

    pub fn compare_with_type(
        &mut self,
        direction: ComparisonDirection,
        compare_type: Option<ComparisonType>,
        lhs: Value,
        rhs: Value,
    ) -> Result<Value> {
        let kind = OpKind::Compare {
            direction,
            compare_type,
        };
        self.op1(kind, &[lhs, rhs], Vec::new(), None)
    }

    pub fn select(&mut self, pred: Value, on_true: Value, on_false: Value) -> Result<Value> {
        self.op1(OpKind::Select, &[pred, on_true, on_false], Vec::new(), None)
    }

    pub fn clamp(&mut self, min: Value, operand: Value, max: Value) -> Result<Value> {
        self.op1(OpKind::Clamp, &[min, operand, max], Vec::new(), None)
    }

    /// Converts to another element type, same shape.
    pub fn convert(&mut self, operand: Value, element: ElementType) -> Result<Value> {
        let ty = self.tensor_type(operand)?.with_element(element);
        self.op1(
            OpKind::Convert,
            &[operand],
            Vec::new(),
            Some(vec![ty.into()]),
        )
    }

    pub fn bitcast_convert(&mut self, operand: Value, result: TensorType) -> Result<Value> {
        self.op1(
            OpKind::BitcastConvert,
            &[operand],
            Vec::new(),
            Some(vec![result.into()]),
        )
    }

    // Constants and shapes.

    pub fn constant(&mut self, ty: TensorType, data: DenseElements) -> Result<Value> {
        self.op1(
            OpKind::Constant(data),
            &[],
            Vec::new(),
            Some(vec![ty.into()]),
        )
    }

    /// A constant of `shape` with every element `value` (converted to `element`).
    pub fn splat(
        &mut self,
        element: ElementType,
        shape: impl IntoShape,
        value: f64,
    ) -> Result<Value> {
        let ty = TensorType::new(shape.into_shape(), element);
        self.constant(ty, DenseElements::splat_f64(element, value))
    }

    /// A constant of `shape` with every element the integer `value` (exact for 64-bit types).
    pub fn splat_i64(
        &mut self,
        element: ElementType,
        shape: impl IntoShape,
        value: i64,
    ) -> Result<Value> {
        let ty = TensorType::new(shape.into_shape(), element);
        self.constant(ty, DenseElements::splat_i64(element, value))
    }

    pub fn iota(&mut self, ty: TensorType, dimension: i64) -> Result<Value> {
        self.op1(
            OpKind::Iota { dimension },
            &[],
            Vec::new(),
            Some(vec![ty.into()]),
        )
    }

    /// Broadcasts to `shape`; operand dimension `i` maps to result dimension `dims[i]`.
    pub fn broadcast_in_dim(
        &mut self,
        operand: Value,
        dims: &[i64],
        shape: impl IntoShape,
    ) -> Result<Value> {
        let ty = TensorType::new(shape.into_shape(), self.tensor_type(operand)?.element);
        let kind = OpKind::BroadcastInDim {
            dims: dims.to_vec(),
        };
        self.op1(kind, &[operand], Vec::new(), Some(vec![ty.into()]))
    }

    pub fn reshape(&mut self, operand: Value, shape: impl IntoShape) -> Result<Value> {
        let ty = TensorType::new(shape.into_shape(), self.tensor_type(operand)?.element);
        self.op1(
            OpKind::Reshape,
            &[operand],
            Vec::new(),
            Some(vec![ty.into()]),
        )
    }

    pub fn transpose(&mut self, operand: Value, permutation: &[i64]) -> Result<Value> {
        let kind = OpKind::Transpose {
            permutation: permutation.to_vec(),
        };
        self.op1(kind, &[operand], Vec::new(), None)
    }

    pub fn slice(
        &mut self,
        operand: Value,
        start: &[i64],
        limit: &[i64],
        strides: &[i64],
    ) -> Result<Value> {
        let kind = OpKind::Slice {
            start: start.to_vec(),
            limit: limit.to_vec(),
            strides: strides.to_vec(),
        };
        self.op1(kind, &[operand], Vec::new(), None)
    }

    pub fn dynamic_slice(
        &mut self,
        operand: Value,
        start_indices: &[Value],
        sizes: &[i64],
    ) -> Result<Value> {
        let operands = [&[operand], start_indices].concat();
        let kind = OpKind::DynamicSlice {
            sizes: sizes.to_vec(),
        };
        self.op1(kind, &operands, Vec::new(), None)
    }

    pub fn dynamic_update_slice(
        &mut self,
        operand: Value,
        update: Value,
        start_indices: &[Value],
    ) -> Result<Value> {
        let operands = [&[operand, update], start_indices].concat();
        self.op1(OpKind::DynamicUpdateSlice, &operands, Vec::new(), None)
    }

    pub fn concatenate(&mut self, inputs: &[Value], dimension: i64) -> Result<Value> {
        self.op1(OpKind::Concatenate { dimension }, inputs, Vec::new(), None)
    }

    pub fn pad(
        &mut self,
        operand: Value,
        padding_value: Value,
        low: &[i64],
        high: &[i64],
        interior: &[i64],
    ) -> Result<Value> {
        let kind = OpKind::Pad {
            low: low.to_vec(),
            high: high.to_vec(),
            interior: interior.to_vec(),
        };
        self.op1(kind, &[operand, padding_value], Vec::new(), None)
    }

    pub fn reverse(&mut self, operand: Value, dims: &[i64]) -> Result<Value> {
        self.op1(
            OpKind::Reverse {
                dims: dims.to_vec(),
            },
            &[operand],
            Vec::new(),
            None,
        )
    }

    pub fn gather(
        &mut self,
        operand: Value,
        start_indices: Value,
        dims: GatherDims,
        slice_sizes: &[i64],
        indices_are_sorted: bool,
    ) -> Result<Value> {
        let kind = OpKind::Gather {
            dims,
            slice_sizes: slice_sizes.to_vec(),
            indices_are_sorted,
        };
        self.op1(kind, &[operand, start_indices], Vec::new(), None)
    }

    /// `scatter`; `update` combines (current inputs..., updates...) scalars into new inputs.
    #[allow(clippy::too_many_arguments)]
    pub fn scatter(
        &mut self,
        inputs: &[Value],
        scatter_indices: Value,
        updates: &[Value],
        dims: ScatterDims,
        indices_are_sorted: bool,
        unique_indices: bool,
        update: impl RegionBody<Self>,
    ) -> Result<Vec<Value>> {
        let kind = OpKind::Scatter {
            dims,
            indices_are_sorted,
            unique_indices,
        };
        let operands = [inputs, &[scatter_indices], updates].concat();
        self.op_with_bodies(kind, &operands, vec![Box::new(update)], None)
    }

    // Contractions.

    pub fn dot_general(
        &mut self,
        lhs: Value,
        rhs: Value,
        dims: DotDims,
        precision: PrecisionConfig,
    ) -> Result<Value> {
        self.op1(
            OpKind::DotGeneral { dims, precision },
            &[lhs, rhs],
            Vec::new(),
            None,
        )
    }

    /// `dot_general` with a result element type other than the operands' (e.g. bf16 x bf16 -> f32).
    pub fn dot_general_to(
        &mut self,
        lhs: Value,
        rhs: Value,
        dims: DotDims,
        precision: PrecisionConfig,
        element: ElementType,
    ) -> Result<Value> {
        let kind = OpKind::DotGeneral { dims, precision };
        let declared = self.with_element(&kind, &[lhs, rhs], element)?;
        self.op1(kind, &[lhs, rhs], Vec::new(), Some(declared))
    }

    pub fn convolution(&mut self, lhs: Value, rhs: Value, attrs: ConvAttrs) -> Result<Value> {
        self.op1(
            OpKind::Convolution(Box::new(attrs)),
            &[lhs, rhs],
            Vec::new(),
            None,
        )
    }

    /// `convolution` with a result element type other than the operands'.
    pub fn convolution_to(
        &mut self,
        lhs: Value,
        rhs: Value,
        attrs: ConvAttrs,
        element: ElementType,
    ) -> Result<Value> {
        let kind = OpKind::Convolution(Box::new(attrs));
        let declared = self.with_element(&kind, &[lhs, rhs], element)?;
        self.op1(kind, &[lhs, rhs], Vec::new(), Some(declared))
    }

    /// The inferred result types of a region-free op, with `element` swapped in.
    fn with_element(
        &self,
        kind: &OpKind,
        operands: &[Value],
        element: ElementType,
    ) -> Result<Vec<Type>> {
        let types = operands
            .iter()
            .map(|&v| self.value_type(v).cloned())
            .collect::<Result<Vec<_>>>()?;
        let lhs = types[0].as_tensor().map(|t| t.element);
        let same: Vec<Type> = types
            .iter()
            .map(|t| match (t, lhs) {
                (Type::Tensor(t), Some(e)) => Type::Tensor(t.with_element(e)),
                (t, _) => t.clone(),
            })
            .collect();
        let sig = OpSig {
            kind,
            operands: &same,
            regions: &[],
            declared: None,
        };
        let inferred = infer::result_types(&sig).map_err(|m| IrError::op(kind.name(), m))?;
        Ok(inferred
            .into_iter()
            .map(|t| match t {
                Type::Tensor(t) => Type::Tensor(t.with_element(element)),
                t => t,
            })
            .collect())
    }

    // Ops with bodies.

    fn op_with_bodies(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        bodies: Vec<Box<dyn RegionBody<Self> + '_>>,
        declared: Option<Vec<Type>>,
    ) -> Result<Vec<Value>> {
        let arg_types = self.regions_for(&kind, operands)?;
        let mut regions = Vec::with_capacity(bodies.len());
        for (i, body) in bodies.into_iter().enumerate() {
            let args = arg_types.get(i).cloned().unwrap_or_default();
            regions.push(self.region(args, body)?);
        }
        self.op(kind, operands, regions, declared)
    }

    /// `reduce` of `inputs` over `dimensions`; `body` gets (accumulators..., elements...).
    pub fn reduce(
        &mut self,
        inputs: &[Value],
        init_values: &[Value],
        dimensions: &[i64],
        body: impl RegionBody<Self>,
    ) -> Result<Vec<Value>> {
        let kind = OpKind::Reduce {
            dimensions: dimensions.to_vec(),
        };
        let operands = [inputs, init_values].concat();
        self.op_with_bodies(kind, &operands, vec![Box::new(body)], None)
    }

    /// `reduce` of one input whose body applies one binary op (prints in the compact form).
    pub fn reduce_with(
        &mut self,
        op: BinaryOp,
        input: Value,
        init_value: Value,
        dimensions: &[i64],
    ) -> Result<Value> {
        let results = self.reduce(&[input], &[init_value], dimensions, |b, args| {
            Ok(vec![b.binary(op, args[0], args[1])?])
        })?;
        Ok(results[0])
    }

    pub fn reduce_window(
        &mut self,
        inputs: &[Value],
        init_values: &[Value],
        window: WindowAttrs,
        body: impl RegionBody<Self>,
    ) -> Result<Vec<Value>> {
        let operands = [inputs, init_values].concat();
        self.op_with_bodies(
            OpKind::ReduceWindow(Box::new(window)),
            &operands,
            vec![Box::new(body)],
            None,
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub fn select_and_scatter(
        &mut self,
        operand: Value,
        source: Value,
        init_value: Value,
        window_dimensions: &[i64],
        window_strides: &[i64],
        padding: &[(i64, i64)],
        select: impl RegionBody<Self>,
        scatter: impl RegionBody<Self>,
    ) -> Result<Value> {
        let kind = OpKind::SelectAndScatter {
            window_dimensions: window_dimensions.to_vec(),
            window_strides: window_strides.to_vec(),
            padding: padding.to_vec(),
        };
        let results = self.op_with_bodies(
            kind,
            &[operand, source, init_value],
            vec![Box::new(select), Box::new(scatter)],
            None,
        )?;
        Ok(results[0])
    }

    /// `map` over every dimension of `inputs`; the computation gets one scalar of each input and
    /// returns one scalar.
    pub fn map(&mut self, inputs: &[Value], computation: impl RegionBody<Self>) -> Result<Value> {
        let first = inputs
            .first()
            .ok_or_else(|| IrError::builder("`map` needs at least one input"))?;
        let rank = self.tensor_type(*first)?.rank() as i64;
        let kind = OpKind::Map {
            dimensions: (0..rank).collect(),
        };
        let results = self.op_with_bodies(kind, inputs, vec![Box::new(computation)], None)?;
        Ok(results[0])
    }

    /// `sort`; the comparator gets (lhs0, rhs0, lhs1, rhs1, ...) and returns one `tensor<i1>`.
    pub fn sort(
        &mut self,
        inputs: &[Value],
        dimension: i64,
        is_stable: bool,
        comparator: impl RegionBody<Self>,
    ) -> Result<Vec<Value>> {
        let kind = OpKind::Sort {
            dimension,
            is_stable,
        };
        self.op_with_bodies(kind, inputs, vec![Box::new(comparator)], None)
    }

    /// `while`: `cond` maps the loop values to a `tensor<i1>`, `body` to the next loop values.
    pub fn while_loop(
        &mut self,
        initial: &[Value],
        cond: impl RegionBody<Self>,
        body: impl RegionBody<Self>,
    ) -> Result<Vec<Value>> {
        self.op_with_bodies(
            OpKind::While,
            initial,
            vec![Box::new(cond), Box::new(body)],
            None,
        )
    }

    /// `if`: both branches take no arguments and return the same types.
    pub fn if_else(
        &mut self,
        pred: Value,
        true_branch: impl FnOnce(&mut Self) -> Result<Vec<Value>>,
        false_branch: impl FnOnce(&mut Self) -> Result<Vec<Value>>,
    ) -> Result<Vec<Value>> {
        let regions = vec![
            self.region(Vec::new(), |b, _| true_branch(b))?,
            self.region(Vec::new(), |b, _| false_branch(b))?,
        ];
        self.op(OpKind::If, &[pred], regions, None)
    }

    /// `case` with `branch_count` branches; `branch(b, i)` builds branch `i`.
    pub fn case(
        &mut self,
        index: Value,
        branch_count: usize,
        mut branch: impl FnMut(&mut Self, usize) -> Result<Vec<Value>>,
    ) -> Result<Vec<Value>> {
        let mut regions = Vec::with_capacity(branch_count);
        for i in 0..branch_count {
            regions.push(self.region(Vec::new(), |b, _| branch(b, i))?);
        }
        self.op(OpKind::Case, &[index], regions, None)
    }

    // Calls and opaque ops.

    pub fn call(
        &mut self,
        callee: &str,
        args: &[Value],
        result_types: Vec<Type>,
    ) -> Result<Vec<Value>> {
        let kind = OpKind::Call {
            callee: callee.to_string(),
        };
        self.op(kind, args, Vec::new(), Some(result_types))
    }

    pub fn composite(
        &mut self,
        name: &str,
        inputs: &[Value],
        attributes: NamedAttrs,
        decomposition: &str,
        version: i32,
        result_types: Vec<Type>,
    ) -> Result<Vec<Value>> {
        let kind = OpKind::Composite {
            name: name.to_string(),
            attributes,
            decomposition: decomposition.to_string(),
            version,
        };
        self.op(kind, inputs, Vec::new(), Some(result_types))
    }

    pub fn custom_call(
        &mut self,
        target: &str,
        inputs: &[Value],
        result_types: Vec<Type>,
        options: CustomCallOptions,
    ) -> Result<Vec<Value>> {
        let kind = OpKind::CustomCall {
            target: target.to_string(),
            backend_config: options.backend_config,
            has_side_effect: options.has_side_effect,
            api_version: options.api_version,
        };
        self.op(kind, inputs, Vec::new(), Some(result_types))
    }

    pub fn optimization_barrier(&mut self, operands: &[Value]) -> Result<Vec<Value>> {
        self.op(OpKind::OptimizationBarrier, operands, Vec::new(), None)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn batch_norm_inference(
        &mut self,
        operand: Value,
        scale: Value,
        offset: Value,
        mean: Value,
        variance: Value,
        epsilon: f32,
        feature_index: i64,
    ) -> Result<Value> {
        let kind = OpKind::BatchNormInference {
            epsilon,
            feature_index,
        };
        self.op1(
            kind,
            &[operand, scale, offset, mean, variance],
            Vec::new(),
            None,
        )
    }

    /// Returns (output, batch_mean, batch_var).
    pub fn batch_norm_training(
        &mut self,
        operand: Value,
        scale: Value,
        offset: Value,
        epsilon: f32,
        feature_index: i64,
    ) -> Result<Vec<Value>> {
        let kind = OpKind::BatchNormTraining {
            epsilon,
            feature_index,
        };
        self.op(kind, &[operand, scale, offset], Vec::new(), None)
    }

    /// The Fourier transform `fft_type` of the last `fft_length.len()` (1 to 3) dimensions of
    /// `operand`; `fft_length` is the size of each in the time domain (for IRFFT, the real
    /// result's).
    pub fn fft(&mut self, operand: Value, fft_type: FftType, fft_length: &[i64]) -> Result<Value> {
        let kind = OpKind::Fft {
            fft_type,
            fft_length: fft_length.to_vec(),
        };
        self.op1(kind, &[operand], Vec::new(), None)
    }

    /// Solves `op(a) x = b` (`left_side`) or `x op(a) = b` for `x`, reading `a` from its lower
    /// (`lower`) or upper triangle, its diagonal taken as ones if `unit_diagonal`; `op` is
    /// `transpose_a`. Leading dimensions are batch dimensions.
    pub fn triangular_solve(
        &mut self,
        a: Value,
        b: Value,
        left_side: bool,
        lower: bool,
        unit_diagonal: bool,
        transpose_a: Transpose,
    ) -> Result<Value> {
        let kind = OpKind::TriangularSolve {
            left_side,
            lower,
            unit_diagonal,
            transpose_a,
        };
        self.op1(kind, &[a, b], Vec::new(), None)
    }

    /// Each element rounded to a float format of `exponent_bits` and `mantissa_bits` (the
    /// result keeps the operand's type).
    pub fn reduce_precision(
        &mut self,
        operand: Value,
        exponent_bits: i32,
        mantissa_bits: i32,
    ) -> Result<Value> {
        let kind = OpKind::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        };
        self.op1(kind, &[operand], Vec::new(), None)
    }

    /// Returns (output_state, output).
    pub fn rng_bit_generator(
        &mut self,
        state: Value,
        algorithm: RngAlgorithm,
        output: TensorType,
    ) -> Result<(Value, Value)> {
        let state_type = self.value_type(state)?.clone();
        let results = self.op(
            OpKind::RngBitGenerator { algorithm },
            &[state],
            Vec::new(),
            Some(vec![state_type, output.into()]),
        )?;
        Ok((results[0], results[1]))
    }

    // Collectives.

    pub fn all_reduce(
        &mut self,
        operands: &[Value],
        collective: CollectiveAttrs,
        computation: impl RegionBody<Self>,
    ) -> Result<Vec<Value>> {
        self.op_with_bodies(
            OpKind::AllReduce(collective),
            operands,
            vec![Box::new(computation)],
            None,
        )
    }

    pub fn all_gather(
        &mut self,
        operand: Value,
        dimension: i64,
        collective: CollectiveAttrs,
    ) -> Result<Value> {
        self.op1(
            OpKind::AllGather {
                dimension,
                collective,
            },
            &[operand],
            Vec::new(),
            None,
        )
    }

    pub fn reduce_scatter(
        &mut self,
        operand: Value,
        dimension: i64,
        collective: CollectiveAttrs,
        computation: impl RegionBody<Self>,
    ) -> Result<Value> {
        let kind = OpKind::ReduceScatter {
            dimension,
            collective,
        };
        let results = self.op_with_bodies(kind, &[operand], vec![Box::new(computation)], None)?;
        Ok(results[0])
    }

    pub fn all_to_all(
        &mut self,
        operand: Value,
        split_dimension: i64,
        concat_dimension: i64,
        split_count: i64,
        replica_groups: Vec<Vec<i64>>,
        channel: Option<ChannelHandle>,
    ) -> Result<Value> {
        let kind = OpKind::AllToAll {
            split_dimension,
            concat_dimension,
            split_count,
            replica_groups,
            channel,
        };
        self.op1(kind, &[operand], Vec::new(), None)
    }

    pub fn collective_permute(
        &mut self,
        operand: Value,
        source_target_pairs: Vec<(i64, i64)>,
        channel: Option<ChannelHandle>,
    ) -> Result<Value> {
        let kind = OpKind::CollectivePermute {
            source_target_pairs,
            channel,
        };
        self.op1(kind, &[operand], Vec::new(), None)
    }

    pub fn replica_id(&mut self) -> Result<Value> {
        self.op1(OpKind::ReplicaId, &[], Vec::new(), None)
    }

    pub fn partition_id(&mut self) -> Result<Value> {
        self.op1(OpKind::PartitionId, &[], Vec::new(), None)
    }

    pub fn sharding_constraint(
        &mut self,
        operand: Value,
        sharding: TensorSharding,
    ) -> Result<Value> {
        self.op1(
            OpKind::ShardingConstraint(sharding),
            &[operand],
            Vec::new(),
            None,
        )
    }

    // Dynamic shapes.

    pub fn get_dimension_size(&mut self, operand: Value, dimension: i64) -> Result<Value> {
        self.op1(
            OpKind::GetDimensionSize { dimension },
            &[operand],
            Vec::new(),
            None,
        )
    }

    pub fn dynamic_broadcast_in_dim(
        &mut self,
        operand: Value,
        output_dimensions: Value,
        dims: &[i64],
        result: TensorType,
    ) -> Result<Value> {
        let kind = OpKind::DynamicBroadcastInDim {
            dims: dims.to_vec(),
            known_expanding: Vec::new(),
            known_nonexpanding: Vec::new(),
        };
        self.op1(
            kind,
            &[operand, output_dimensions],
            Vec::new(),
            Some(vec![result.into()]),
        )
    }

    pub fn dynamic_reshape(
        &mut self,
        operand: Value,
        output_shape: Value,
        result: TensorType,
    ) -> Result<Value> {
        self.op1(
            OpKind::DynamicReshape,
            &[operand, output_shape],
            Vec::new(),
            Some(vec![result.into()]),
        )
    }

    pub fn dynamic_iota(
        &mut self,
        output_shape: Value,
        dimension: i64,
        result: TensorType,
    ) -> Result<Value> {
        self.op1(
            OpKind::DynamicIota { dimension },
            &[output_shape],
            Vec::new(),
            Some(vec![result.into()]),
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub fn dynamic_pad(
        &mut self,
        operand: Value,
        padding_value: Value,
        low: Value,
        high: Value,
        interior: Value,
        result: TensorType,
    ) -> Result<Value> {
        let operands = [operand, padding_value, low, high, interior];
        self.op1(
            OpKind::DynamicPad,
            &operands,
            Vec::new(),
            Some(vec![result.into()]),
        )
    }

    /// `operand[start:limit:strides]` with the bounds as rank-1 integer tensors.
    pub fn real_dynamic_slice(
        &mut self,
        operand: Value,
        start: Value,
        limit: Value,
        strides: Value,
        result: TensorType,
    ) -> Result<Value> {
        self.op1(
            OpKind::RealDynamicSlice,
            &[operand, start, limit, strides],
            Vec::new(),
            Some(vec![result.into()]),
        )
    }

    pub fn dynamic_gather(
        &mut self,
        operand: Value,
        start_indices: Value,
        slice_sizes: Value,
        dims: GatherDims,
        indices_are_sorted: bool,
        result: TensorType,
    ) -> Result<Value> {
        let kind = OpKind::DynamicGather {
            dims,
            indices_are_sorted,
        };
        self.op1(
            kind,
            &[operand, start_indices, slice_sizes],
            Vec::new(),
            Some(vec![result.into()]),
        )
    }

    pub fn dynamic_conv(
        &mut self,
        lhs: Value,
        rhs: Value,
        padding: Value,
        attrs: ConvAttrs,
        result: TensorType,
    ) -> Result<Value> {
        let kind = OpKind::DynamicConv(Box::new(attrs));
        self.op1(
            kind,
            &[lhs, rhs, padding],
            Vec::new(),
            Some(vec![result.into()]),
        )
    }
}
