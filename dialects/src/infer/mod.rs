//! Type inference and per-op constraints from the StableHLO spec.
//!
//! [`result_types`] checks an op's operands, attributes and region signatures and returns its
//! result types. Ops whose results cannot be inferred (reshape, convert, custom_call, ...) take
//! them as `declared`; for the others a declared type must be compatible with the inferred one.
//! The builder calls it before creating an op, the verifier on every op.

mod chlo;
mod collective;
mod contract;
mod control;
mod elementwise;
mod fft;
mod index;
mod linalg;
mod ragged_dot;
mod reduce;
mod shape;
mod tuple;

pub(crate) use elementwise::default_compare_type;

use std::collections::HashSet;

use crate::attr::CustomCallApiVersion;
use crate::op::{OpKind, check_operands, check_results};
use crate::types::{Dim, ElementType, TensorType, Type};
use crate::{BlockId, Function, Value};

pub(crate) type InferResult<T> = Result<T, String>;

/// The block argument and return types of one region of an op.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RegionSig {
    pub args: Vec<Type>,
    pub returns: Vec<Type>,
}

impl RegionSig {
    /// The argument types of `block` and the operand types of its terminator (none without one).
    pub fn of_block(f: &Function, block: BlockId) -> RegionSig {
        let types = |values: &[Value]| values.iter().map(|&v| f.value_type(v).clone()).collect();
        RegionSig {
            args: types(&f.block(block).args),
            returns: f
                .terminator(block)
                .map(|t| types(&t.operands))
                .unwrap_or_default(),
        }
    }

    /// That the region returns exactly `expected`; `what` names the region in the error.
    pub fn check_returns(&self, expected: &[Type], what: &str) -> InferResult<()> {
        if self.returns != expected {
            return Err(format!(
                "{what} must return ({}), returns ({})",
                list(expected),
                list(&self.returns)
            ));
        }
        Ok(())
    }
}

/// What inference sees of an op.
pub(crate) struct OpSig<'a> {
    pub kind: &'a OpKind,
    pub operands: &'a [Type],
    pub regions: &'a [RegionSig],
    pub declared: Option<&'a [Type]>,
}

/// Checks the op and returns its result types.
pub(crate) fn result_types(sig: &OpSig<'_>) -> InferResult<Vec<Type>> {
    let expected_regions = sig.kind.region_count();
    if let Some(count) = expected_regions
        && count != sig.regions.len()
    {
        return Err(format!(
            "expects {count} region(s), got {}",
            sig.regions.len()
        ));
    }
    let opcode = sig.kind.opcode();
    check_operands(opcode.operands(), sig.operands.len())?;
    if let Some(declared) = sig.declared {
        check_results(opcode.results(), declared.len())?;
    }
    let expected_args = region_args(sig.kind, sig.operands)?;
    let promotes = matches!(
        sig.kind,
        OpKind::Reduce { .. } | OpKind::AllReduce(_) | OpKind::ReduceScatter { .. }
    );
    for (i, (region, args)) in sig.regions.iter().zip(&expected_args).enumerate() {
        if &region.args != args && !(promotes && promotable_types(args, &region.args)) {
            return Err(format!(
                "region {i} must take ({}), takes ({})",
                list(args),
                list(&region.args)
            ));
        }
    }
    let inferred = infer(sig)?;
    check_results(opcode.results(), inferred.len())?;
    match sig.declared {
        None => Ok(inferred),
        Some(declared) => {
            if declared.len() != inferred.len() {
                return Err(format!(
                    "has {} result(s), expected {}",
                    declared.len(),
                    inferred.len()
                ));
            }
            for (i, (d, e)) in declared.iter().zip(&inferred).enumerate() {
                if !d.is_compatible(e) {
                    return Err(format!("result {i} has type {d}, expected {e}"));
                }
            }
            Ok(declared.to_vec())
        }
    }
}

/// The block argument types each region of the op must take.
pub(crate) fn region_args(kind: &OpKind, operands: &[Type]) -> InferResult<Vec<Vec<Type>>> {
    match kind {
        OpKind::Reduce { .. } | OpKind::ReduceWindow(_) => {
            let half = operands.len() / 2;
            let elements = scalars_of(&operands[half..])?;
            Ok(vec![[elements.clone(), elements].concat()])
        }
        OpKind::Scatter { .. } => {
            let n = operands.len().saturating_sub(1) / 2;
            let elements = scalars_of(&operands[..n])?;
            Ok(vec![[elements.clone(), elements].concat()])
        }
        OpKind::Sort { .. } => {
            let elements = scalars_of(operands)?;
            Ok(vec![
                elements
                    .iter()
                    .flat_map(|e| [e.clone(), e.clone()])
                    .collect(),
            ])
        }
        OpKind::SelectAndScatter { .. } => {
            let operand = scalars_of(operands.first().map(std::slice::from_ref).unwrap_or(&[]))?;
            let source = scalars_of(operands.get(1).map(std::slice::from_ref).unwrap_or(&[]))?;
            Ok(vec![
                [operand.clone(), operand].concat(),
                [source.clone(), source].concat(),
            ])
        }
        OpKind::AllReduce(_) | OpKind::ReduceScatter { .. } => {
            let element = scalars_of(operands.first().map(std::slice::from_ref).unwrap_or(&[]))?;
            Ok(vec![[element.clone(), element].concat()])
        }
        OpKind::Map { .. } => Ok(vec![scalars_of(operands)?]),
        OpKind::While => Ok(vec![operands.to_vec(), operands.to_vec()]),
        OpKind::If => Ok(vec![Vec::new(), Vec::new()]),
        // `case` branches take no arguments; `branches` checks them.
        _ => Ok(Vec::new()),
    }
}

/// The op's result types; [`result_types`] has checked the operand count against the table, so
/// the per-op rules index the operands their table entry guarantees.
fn infer(sig: &OpSig<'_>) -> InferResult<Vec<Type>> {
    let ops = sig.operands;
    match sig.kind {
        OpKind::Unary(op) => elementwise::unary(*op, ops),
        OpKind::Binary(op) => elementwise::binary(*op, ops),
        OpKind::Compare { compare_type, .. } => elementwise::compare(*compare_type, ops),
        OpKind::ChloUnary(op) => chlo::unary(*op, ops),
        OpKind::ChloBroadcast(op, dims) => chlo::broadcast(*op, dims, ops),
        OpKind::ChloBroadcastSelect => chlo::broadcast_select(ops),
        OpKind::ChloBinary(op) => chlo::binary(*op, ops),
        OpKind::ChloBroadcastCompare {
            dims, compare_type, ..
        } => chlo::broadcast_compare(dims, *compare_type, ops),
        OpKind::ChloConstantLike(value) => chlo::constant_like(value, ops),
        OpKind::ChloRaggedDot { dims, precision } => {
            ragged_dot::ragged_dot(dims, precision, ops, sig.declared)
        }
        OpKind::ChloTopK { k } => chlo::top_k(*k, ops),
        OpKind::Select => elementwise::select(ops),
        OpKind::Clamp => elementwise::clamp(ops),
        OpKind::Convert => elementwise::convert(ops, sig.declared),
        OpKind::BitcastConvert => elementwise::bitcast_convert(ops, sig.declared),
        OpKind::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        } => elementwise::reduce_precision(*exponent_bits, *mantissa_bits, ops),
        OpKind::Constant(data) => shape::constant(data, sig.declared),
        OpKind::Iota { dimension } => shape::iota(*dimension, sig.declared),
        OpKind::BroadcastInDim { dims } => shape::broadcast_in_dim(dims, ops, sig.declared),
        OpKind::Reshape => shape::reshape(ops, sig.declared),
        OpKind::Transpose { permutation } => shape::transpose(permutation, ops),
        OpKind::Concatenate { dimension } => shape::concatenate(*dimension, ops),
        OpKind::Pad {
            low,
            high,
            interior,
        } => shape::pad(low, high, interior, ops),
        OpKind::Reverse { dims } => shape::reverse(dims, ops),
        OpKind::Slice {
            start,
            limit,
            strides,
        } => index::slice(start, limit, strides, ops),
        OpKind::DynamicSlice { sizes } => index::dynamic_slice(sizes, ops),
        OpKind::DynamicUpdateSlice => index::dynamic_update_slice(ops),
        OpKind::Gather {
            dims, slice_sizes, ..
        } => index::gather(dims, slice_sizes, ops),
        OpKind::Scatter { dims, .. } => index::scatter(dims, ops, sig.regions),
        OpKind::DynamicGather { dims, .. } => index::dynamic_gather(dims, ops, sig.declared),
        OpKind::DotGeneral { dims, precision } => {
            contract::dot_general(dims, precision, ops, sig.declared)
        }
        OpKind::Convolution(attrs) => contract::convolution(attrs, ops, sig.declared),
        OpKind::DynamicConv(attrs) => contract::dynamic_conv(attrs, ops, sig.declared),
        OpKind::Fft {
            fft_type,
            fft_length,
        } => fft::fft(*fft_type, fft_length, ops),
        OpKind::TriangularSolve { left_side, .. } => linalg::triangular_solve(*left_side, ops),
        OpKind::Reduce { dimensions } => reduce::reduce(dimensions, ops, sig.regions),
        OpKind::ReduceWindow(window) => reduce::reduce_window(window, ops, sig.regions),
        OpKind::SelectAndScatter {
            window_dimensions,
            window_strides,
            padding,
        } => {
            reduce::select_and_scatter(window_dimensions, window_strides, padding, ops, sig.regions)
        }
        OpKind::Sort { dimension, .. } => reduce::sort(*dimension, ops, sig.regions),
        OpKind::Map { dimensions } => reduce::map(dimensions, ops, sig.regions),
        OpKind::While => control::while_loop(ops, sig.regions),
        OpKind::If => control::if_else(ops, sig.regions),
        OpKind::Case => control::case(ops, sig.regions),
        OpKind::OptimizationBarrier => Ok(ops.to_vec()),
        OpKind::CustomCall {
            backend_config,
            api_version: CustomCallApiVersion::TypedFfi,
            ..
        } if !backend_config.is_empty() => Err(
            "a typed-FFI custom call (api_version 4) takes a dictionary backend_config; \
             only string configs (api_version 1-3) are supported"
                .to_string(),
        ),
        OpKind::Composite { name, .. } if !is_namespaced_op_name(name) => Err(format!(
            "C1: name `{name}` must be a namespaced op name (`dialect.op`: a letter, then \
             letters, digits and `_`; each `.`-separated part after it also `$`)"
        )),
        OpKind::Composite { .. } | OpKind::CustomCall { .. } | OpKind::Call { .. } => {
            Ok(declared(sig.declared)?.to_vec())
        }
        OpKind::BatchNormInference { feature_index, .. } => {
            control::batch_norm_inference(*feature_index, ops)
        }
        OpKind::BatchNormTraining { feature_index, .. } => {
            control::batch_norm_training(*feature_index, ops)
        }
        OpKind::RngBitGenerator { .. } => control::rng_bit_generator(ops, sig.declared),
        OpKind::AllReduce(collective) => collective::all_reduce(collective, ops, sig.regions),
        OpKind::AllGather {
            dimension,
            collective,
        } => collective::all_gather(*dimension, collective, ops, sig.declared),
        OpKind::ReduceScatter {
            dimension,
            collective,
        } => collective::reduce_scatter(*dimension, collective, ops, sig.regions, sig.declared),
        OpKind::AllToAll {
            split_dimension,
            concat_dimension,
            split_count,
            replica_groups,
            ..
        } => collective::all_to_all(
            *split_dimension,
            *concat_dimension,
            *split_count,
            replica_groups,
            ops,
        ),
        OpKind::CollectivePermute {
            source_target_pairs,
            ..
        } => collective::collective_permute(source_target_pairs, ops),
        OpKind::CollectiveBroadcast {
            replica_groups,
            has_dynamic_root,
            ..
        } => collective::collective_broadcast(replica_groups, *has_dynamic_root, ops),
        OpKind::ReplicaId | OpKind::PartitionId => Ok(vec![scalar(ElementType::UI32)]),
        OpKind::DynamicBroadcastInDim {
            dims,
            known_expanding,
            known_nonexpanding,
        } => shape::dynamic_broadcast_in_dim(
            dims,
            known_expanding,
            known_nonexpanding,
            ops,
            sig.declared,
        ),
        OpKind::DynamicReshape => shape::dynamic_reshape(ops, sig.declared),
        OpKind::DynamicIota { dimension } => shape::dynamic_iota(*dimension, ops, sig.declared),
        OpKind::GetDimensionSize { dimension } => shape::get_dimension_size(*dimension, ops),
        OpKind::DynamicPad => shape::dynamic_pad(ops, sig.declared),
        OpKind::RealDynamicSlice => shape::real_dynamic_slice(ops, sig.declared),
        OpKind::Return | OpKind::RegionReturn => Ok(Vec::new()),
        OpKind::Tuple => Ok(vec![Type::Tuple(ops.to_vec())]),
        OpKind::GetTupleElement { index } => tuple::get_tuple_element(*index, ops),
        OpKind::CreateToken => Ok(vec![Type::Token]),
        OpKind::AfterAll => tuple::after_all(ops),
        OpKind::Broadcast { sizes } => shape::broadcast(sizes, ops),
        OpKind::SetDimensionSize { dimension } => {
            shape::set_dimension_size(*dimension, ops, sig.declared)
        }
        OpKind::Rng { .. } | OpKind::Einsum { .. } | OpKind::UnaryEinsum { .. } => {
            Ok(declared(sig.declared)?.to_vec())
        }
        OpKind::BatchNormGrad { feature_index, .. } => {
            control::batch_norm_grad(*feature_index, ops)
        }
        OpKind::Send { .. } | OpKind::Outfeed { .. } => tuple::token_last(ops),
        OpKind::Recv { .. } => tuple::recv(ops, sig.declared),
        OpKind::ShardingConstraint(sharding) => {
            let operand = tensor(&ops[0], "operand")?;
            if sharding.dims.len() != operand.rank() {
                return Err(format!(
                    "sharding has {} dimension(s), operand has rank {}",
                    sharding.dims.len(),
                    operand.rank()
                ));
            }
            Ok(ops.to_vec())
        }
    }
}

/// Whether `to` is `from` or a wider type of its kind (the spec's `is_promotable`): a
/// reduction body may compute in a wider type than its inputs.
pub(crate) fn is_promotable(from: ElementType, to: ElementType) -> bool {
    let same_kind = (from.is_float() && to.is_float())
        || (from.is_signed_integer() && to.is_signed_integer())
        || (from.is_unsigned_integer() && to.is_unsigned_integer())
        || (from.is_complex() && to.is_complex());
    from == to || (same_kind && to.bit_width() >= from.bit_width())
}

/// Scalar region arguments of promotable element types, one for one.
fn promotable_types(expected: &[Type], actual: &[Type]) -> bool {
    expected.len() == actual.len()
        && expected.iter().zip(actual).all(|(e, a)| match (e, a) {
            (Type::Tensor(e), Type::Tensor(a)) => {
                e.rank() == 0 && a.rank() == 0 && is_promotable(e.element, a.element)
            }
            _ => false,
        })
}

/// MLIR's op names: `[a-zA-Z][a-zA-Z0-9_]*` then one or more `.[a-zA-Z0-9_$]+`.
fn is_namespaced_op_name(name: &str) -> bool {
    let mut parts = name.split('.');
    let dialect = parts.next().unwrap_or("");
    let mut rest = parts.peekable();
    dialect.starts_with(|c: char| c.is_ascii_alphabetic())
        && dialect
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        && rest.peek().is_some()
        && rest.all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        })
}

pub(crate) fn list(types: &[Type]) -> String {
    types
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

pub(crate) fn scalar(element: ElementType) -> Type {
    Type::Tensor(TensorType::scalar(element))
}

/// Rank-0 tensors of the element types of `types`.
fn scalars_of(types: &[Type]) -> InferResult<Vec<Type>> {
    types
        .iter()
        .map(|ty| Ok(scalar(tensor(ty, "operand")?.element)))
        .collect()
}

pub(crate) fn tensor<'a>(ty: &'a Type, what: &str) -> InferResult<&'a TensorType> {
    ty.as_tensor()
        .ok_or_else(|| format!("{what} must be a tensor, got {ty}"))
}

pub(crate) fn declared(declared: Option<&[Type]>) -> InferResult<&[Type]> {
    declared.ok_or_else(|| "result types must be given".to_string())
}

/// The single declared result, which must be a tensor.
pub(crate) fn declared_tensor(declared_types: Option<&[Type]>) -> InferResult<&TensorType> {
    match declared(declared_types)? {
        [ty] => tensor(ty, "result"),
        types => Err(format!("expects 1 result, got {}", types.len())),
    }
}

/// Checks `dims` are unique and in `[0, rank)`.
pub(crate) fn check_dims(dims: &[i64], rank: usize, what: &str) -> InferResult<()> {
    let mut seen = HashSet::new();
    for &d in dims {
        if d < 0 || d as usize >= rank {
            return Err(format!("{what} {d} is out of range [0, {rank})"));
        }
        if !seen.insert(d) {
            return Err(format!("{what} {d} appears twice"));
        }
    }
    Ok(())
}

pub(crate) fn check_len<T>(values: &[T], len: usize, what: &str) -> InferResult<()> {
    if values.len() == len {
        Ok(())
    } else {
        Err(format!(
            "{what} has {} entries, expected {len}",
            values.len()
        ))
    }
}

/// Dimension-wise refinement of two compatible shapes.
pub(crate) fn refine_shape(a: &[Dim], b: &[Dim], what: &str) -> InferResult<Vec<Dim>> {
    if !crate::types::shapes_compatible(a, b) {
        return Err(format!(
            "{what}: shapes {} and {} differ",
            shape_str(a),
            shape_str(b)
        ));
    }
    Ok(a.iter().zip(b).map(|(x, y)| x.refine(*y)).collect())
}

pub(crate) fn shape_str(shape: &[Dim]) -> String {
    let dims: Vec<String> = shape.iter().map(ToString::to_string).collect();
    format!("[{}]", dims.join(", "))
}

/// Applies `f` to a static dimension, keeping dynamic ones dynamic.
pub(crate) fn map_dim(dim: Dim, f: impl FnOnce(u64) -> InferResult<u64>) -> InferResult<Dim> {
    match dim {
        Dim::Static(size) => Ok(Dim::Static(f(size)?)),
        Dim::Dynamic => Ok(Dim::Dynamic),
    }
}

/// `size * factor` for a dimension size, or an error when it overflows.
pub(crate) fn checked_product(size: u64, factor: u64) -> InferResult<u64> {
    size.checked_mul(factor)
        .ok_or_else(|| format!("dimension size {size} x {factor} overflows 64 bits"))
}
