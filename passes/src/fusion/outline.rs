//! Outlining a matched region of one block into a `stablehlo.composite` and its private
//! decomposition function, after checking that doing so is safe.

use std::collections::{HashMap, HashSet};

use tpuc_ir::{
    BlockId, Function, InsertPoint, IntoShape, NamedAttrs, NewOp, OpBuilder, OpId, OpKind,
    RegionId, TensorType, Type, Value, Visibility,
};

/// An operand of the composite: a value the region reads, possibly transposed into the
/// composite's layout (`perm` as `stablehlo.transpose` takes it) and then reshaped to the
/// composite's operand shape (`shape`); the decomposition reshapes and transposes it back.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    pub value: Value,
    pub perm: Option<Vec<i64>>,
    pub shape: Option<Vec<u64>>,
}

impl Operand {
    pub fn plain(value: Value) -> Self {
        Self {
            value,
            perm: None,
            shape: None,
        }
    }

    /// `value` read in the layout `perm` (no transpose when it is the identity).
    pub fn permuted(value: Value, perm: &[i64]) -> Self {
        Self {
            perm: (!is_identity(perm)).then(|| perm.to_vec()),
            ..Self::plain(value)
        }
    }

    /// The same operand reshaped (after its transpose) to `shape`.
    pub fn reshaped(self, shape: Vec<u64>) -> Self {
        Self {
            shape: Some(shape),
            ..self
        }
    }

    /// Whether the composite reads the value as it is.
    pub fn is_plain(&self) -> bool {
        self.perm.is_none() && self.shape.is_none()
    }
}

pub fn is_identity(perm: &[i64]) -> bool {
    perm.iter().enumerate().all(|(i, &d)| d == i as i64)
}

fn inverse(perm: &[i64]) -> Vec<i64> {
    let mut inv = vec![0; perm.len()];
    for (i, &d) in perm.iter().enumerate() {
        inv[d as usize] = i as i64;
    }
    inv
}

/// What a pattern found: the ops it covers, the composite's operands in the composite's order
/// and the values it produces.
pub struct Match {
    pub name: &'static str,
    /// The composite's version: the contract its operands and attributes follow.
    pub version: i32,
    pub attributes: NamedAttrs,
    /// Ops replaced by the composite (in any order; all in one block).
    pub ops: Vec<OpId>,
    /// The composite's operands: every value the ops read that is not computed by them and not
    /// a constant expression (constants, iotas and pure ops of those are copied instead).
    pub operands: Vec<Operand>,
    pub results: Vec<Value>,
    /// The composite's result layout when it differs from the (single) result's: the
    /// decomposition transposes its result by `result_perm`, then reshapes it to
    /// `result_shape`, and the composite's result is reshaped and transposed back.
    pub result_perm: Option<Vec<i64>>,
    pub result_shape: Option<Vec<u64>>,
}

/// Replaces the match by a composite calling `decomposition`, returning that function; `None`
/// (and nothing changed) when the region is not convex, an intermediate escapes or a value it
/// reads is neither an operand nor a constant expression.
pub fn outline(f: &mut Function, m: &Match, decomposition: &str) -> Option<Function> {
    let inside: HashSet<OpId> = m.ops.iter().copied().collect();
    let block = f.parent_block(*m.ops.first()?)?;
    if m.ops.iter().any(|&op| f.parent_block(op) != Some(block)) {
        return None;
    }
    let order = block_order(f, block);
    let last = *m.ops.iter().max_by_key(|op| order[op])?;
    if !escapes_only_as_results(f, m, &inside, block, &order, order[&last]) {
        return None;
    }
    let mut ops = m.ops.clone();
    ops.sort_by_key(|op| order[op]);
    let operand_values: HashSet<Value> = m.operands.iter().map(|o| o.value).collect();
    let reads_only_operands_and_constants = ops.iter().all(|&op| {
        f.op(op).operands.iter().all(|&v| {
            operand_values.contains(&v) || defined_inside(f, v, &inside) || is_constant_expr(f, v)
        })
    });
    if !reads_only_operands_and_constants {
        return None;
    }
    let location = f.op(last).location.clone();
    // The operands in the composite's layout, built after the last matched op.
    let mut anchor = last;
    let mut inputs = Vec::new();
    // Per operand, its type once transposed (before any reshape).
    let mut transposed_types = Vec::new();
    for operand in &m.operands {
        let mut input = operand.value;
        if let Some(perm) = &operand.perm {
            let mut b = OpBuilder::at(f, InsertPoint::After(anchor), location.clone());
            input = b.transpose(input, perm).ok()?;
            anchor = f.defining_op(input)?;
        }
        transposed_types.push(f.value_type(input).clone());
        if let Some(shape) = &operand.shape {
            let mut b = OpBuilder::at(f, InsertPoint::After(anchor), location.clone());
            input = b.reshape(input, shape.as_slice()).ok()?;
            anchor = f.defining_op(input)?;
        }
        inputs.push(input);
    }
    let relaid = m.result_perm.is_some() || m.result_shape.is_some();
    let result_types: Vec<Type> = match &m.results[..] {
        [result] if relaid => {
            let ty = f.value_type(*result).as_tensor()?;
            let mut shape = ty.static_shape()?;
            if let Some(perm) = &m.result_perm {
                shape = perm.iter().map(|&d| shape[d as usize]).collect();
            }
            let shape = m.result_shape.clone().unwrap_or(shape);
            vec![Type::Tensor(TensorType::new(
                shape.as_slice().into_shape(),
                ty.element,
            ))]
        }
        _ if relaid => return None,
        _ => m.results.iter().map(|&v| f.value_type(v).clone()).collect(),
    };
    let mut body = Function::new(
        decomposition,
        Visibility::Private,
        inputs.iter().map(|&v| f.value_type(v).clone()).collect(),
        result_types.clone(),
    );
    let entry = body.entry_block();
    let mut map: HashMap<Value, Value> = HashMap::new();
    for ((operand, arg), transposed) in m
        .operands
        .iter()
        .zip(body.args().to_vec())
        .zip(&transposed_types)
    {
        let mut original = arg;
        if operand.shape.is_some() {
            let shape = transposed.as_tensor()?.static_shape()?;
            let mut b = OpBuilder::at(&mut body, InsertPoint::End(entry), location.clone());
            original = b.reshape(original, shape.as_slice()).ok()?;
        }
        if let Some(perm) = &operand.perm {
            let mut b = OpBuilder::at(&mut body, InsertPoint::End(entry), location.clone());
            original = b.transpose(original, &inverse(perm)).ok()?;
        }
        map.insert(operand.value, original);
    }
    for &op in &ops {
        for &operand in &f.op(op).operands {
            if !map.contains_key(&operand) && !defined_inside(f, operand, &inside) {
                copy_constant_expr(f, operand, &mut body, entry, &mut map);
            }
        }
        copy_op(f, op, &mut body, InsertPoint::End(entry), &mut map);
    }
    let mut returned: Vec<Value> = m.results.iter().map(|v| map[v]).collect();
    if let Some(perm) = &m.result_perm {
        let mut b = OpBuilder::at(&mut body, InsertPoint::End(entry), location.clone());
        returned[0] = b.transpose(returned[0], perm).ok()?;
    }
    let transposed_result = body.value_type(returned[0]).as_tensor()?.static_shape()?;
    if let Some(shape) = &m.result_shape {
        let mut b = OpBuilder::at(&mut body, InsertPoint::End(entry), location.clone());
        returned[0] = b.reshape(returned[0], shape.as_slice()).ok()?;
    }
    body.append_op(entry, NewOp::new(OpKind::Return, returned, Vec::new()));

    let composite = f.insert_op(
        InsertPoint::After(anchor),
        NewOp {
            location: location.clone(),
            ..NewOp::new(
                OpKind::Composite {
                    name: m.name.to_owned(),
                    attributes: m.attributes.clone(),
                    decomposition: decomposition.to_owned(),
                    version: m.version,
                },
                inputs,
                result_types,
            )
        },
    );
    let mut new_results = f.op(composite).results.clone();
    let mut anchor = composite;
    if m.result_shape.is_some() {
        let mut b = OpBuilder::at(f, InsertPoint::After(anchor), location.clone());
        new_results[0] = b
            .reshape(new_results[0], transposed_result.as_slice())
            .ok()?;
        anchor = f.defining_op(new_results[0])?;
    }
    if let Some(perm) = &m.result_perm {
        let mut b = OpBuilder::at(f, InsertPoint::After(anchor), location);
        new_results[0] = b.transpose(new_results[0], &inverse(perm)).ok()?;
    }
    for (&old, &new) in m.results.iter().zip(&new_results) {
        f.replace_all_uses_with(old, new);
    }
    for &op in ops.iter().rev() {
        f.erase_op(op);
    }
    Some(body)
}

fn defined_inside(f: &Function, value: Value, inside: &HashSet<OpId>) -> bool {
    f.defining_op(value).is_some_and(|op| inside.contains(&op))
}

fn block_order(f: &Function, block: BlockId) -> HashMap<OpId, usize> {
    f.block(block)
        .ops
        .iter()
        .enumerate()
        .map(|(i, &op)| (op, i))
        .collect()
}

/// The op of `block` that is `op` or holds it in a nested region.
fn ancestor_in(f: &Function, mut op: OpId, block: BlockId) -> Option<OpId> {
    loop {
        if f.parent_block(op)? == block {
            return Some(op);
        }
        op = f.enclosing_op(op)?;
    }
}

/// Every use of a matched op's result outside the match is a use of one of the match's results
/// placed after the last matched op, so the composite can stand there: nothing computed inside
/// leaks, and no outside op both reads the region and feeds it (convexity).
fn escapes_only_as_results(
    f: &Function,
    m: &Match,
    inside: &HashSet<OpId>,
    block: BlockId,
    order: &HashMap<OpId, usize>,
    last: usize,
) -> bool {
    if m.results.iter().any(|&r| !defined_inside(f, r, inside)) {
        return false;
    }
    if m.operands
        .iter()
        .any(|o| defined_inside(f, o.value, inside))
    {
        return false;
    }
    for &op in &m.ops {
        for &result in &f.op(op).results {
            let is_result = m.results.contains(&result);
            for u in f.uses(result) {
                if inside.contains(&u.op) {
                    continue;
                }
                let after = ancestor_in(f, u.op, block).is_some_and(|a| order[&a] > last);
                if !is_result || !after {
                    return false;
                }
            }
        }
    }
    // Ops nested in matched ops (reduction bodies) may read only their own block arguments
    // and values they define.
    m.ops.iter().all(|&op| {
        f.op(op)
            .regions
            .iter()
            .all(|&region| region_is_closed(f, region))
    })
}

fn region_is_closed(f: &Function, region: RegionId) -> bool {
    let mut ops = Vec::new();
    f.walk_region(region, &mut ops);
    let mut defined: HashSet<Value> = HashSet::new();
    for &block in &f.region(region).blocks {
        defined.extend(f.block(block).args.iter().copied());
    }
    for &op in &ops {
        for &r in &f.op(op).regions {
            for &block in &f.region(r).blocks {
                defined.extend(f.block(block).args.iter().copied());
            }
        }
        defined.extend(f.op(op).results.iter().copied());
    }
    ops.iter()
        .all(|&op| f.op(op).operands.iter().all(|v| defined.contains(v)))
}

/// Whether `value` is computed from constants and iotas alone by pure, region-free ops.
pub fn is_constant_expr(f: &Function, value: Value) -> bool {
    let Some(op) = f.defining_op(value) else {
        return false;
    };
    let operation = f.op(op);
    match operation.kind {
        OpKind::Constant(_) | OpKind::Iota { .. } => true,
        _ => {
            operation.kind.is_pure()
                && operation.regions.is_empty()
                && !operation.operands.is_empty()
                && operation.operands.iter().all(|&v| is_constant_expr(f, v))
        }
    }
}

/// Copies the constant expression defining `value` to the end of the decomposition so far.
fn copy_constant_expr(
    f: &Function,
    value: Value,
    body: &mut Function,
    entry: BlockId,
    map: &mut HashMap<Value, Value>,
) {
    if map.contains_key(&value) {
        return;
    }
    let Some(op) = f.defining_op(value) else {
        return;
    };
    for &operand in &f.op(op).operands {
        copy_constant_expr(f, operand, body, entry, map);
    }
    copy_op(f, op, body, InsertPoint::End(entry), map);
}

/// Copies `op` (and its regions) from `f` into `body` at `at`, mapping operands through `map`.
pub(super) fn copy_op(
    f: &Function,
    op: OpId,
    body: &mut Function,
    at: InsertPoint,
    map: &mut HashMap<Value, Value>,
) -> OpId {
    let source = f.op(op);
    let regions = source
        .regions
        .iter()
        .map(|&region| copy_region(f, region, body, map))
        .collect();
    let new = body.insert_op(
        at,
        NewOp {
            kind: source.kind.clone(),
            operands: source.operands.iter().map(|v| map[v]).collect(),
            result_types: source
                .results
                .iter()
                .map(|&r| f.value_type(r).clone())
                .collect(),
            regions,
            attrs: source.attrs.clone(),
            location: source.location.clone(),
        },
    );
    map.extend(
        source
            .results
            .iter()
            .copied()
            .zip(body.op(new).results.clone()),
    );
    new
}

fn copy_region(
    f: &Function,
    region: RegionId,
    body: &mut Function,
    map: &mut HashMap<Value, Value>,
) -> RegionId {
    let new_region = body.add_region();
    for &block in &f.region(region).blocks {
        let new_block = body.add_block(new_region);
        for &arg in &f.block(block).args {
            let new_arg = body.add_block_arg(new_block, f.value_type(arg).clone());
            map.insert(arg, new_arg);
        }
        for &inner in &f.block(block).ops {
            copy_op(f, inner, body, InsertPoint::End(new_block), map);
        }
    }
    new_region
}
